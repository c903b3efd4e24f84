"""The parent's small evaluator of plain operations: what an assert's *spine*
(see ``verdict``) may do over plain values (``==``/``!=`` made strict,
ordering, arithmetic, ``math.isclose``, a few builtins and pure methods), each
bounded in size, and the errors it raises."""

from __future__ import annotations

import ast
import cmath
import math
import operator
from collections.abc import Callable, Collection, Iterable
from typing import TYPE_CHECKING, TypeAlias, TypeGuard

from .codec import check_hashes, strict_eq, strict_in


class Unsupported(Exception):
    """The spine has a node the parent's evaluator does not know."""


class EvalError(Exception):
    """Evaluating the assert over the values raised (as Python would)."""


if TYPE_CHECKING:
    #: A plain value: what a test's expected value or a program's (decoded)
    #: return value is when the app's evaluator judges it. Its parts come in
    #: as ``object`` (decoded, read or computed elsewhere) and are narrowed
    #: by their exact type before anything computes on them.
    Plain: TypeAlias = (
        bool
        | int
        | float
        | complex
        | str
        | bytes
        | list["Plain"]
        | tuple["Plain", ...]
        | set["Plain"]
        | frozenset["Plain"]
        | dict["Plain", "Plain"]
        | None
    )

#: A number (``bool`` is an ``int``).
Number: TypeAlias = int | float | complex
#: What ``+`` joins and ``*`` repeats.
PlainSeq: TypeAlias = "list[object] | tuple[object, ...] | str | bytes"
#: What ``<`` may order (Python says whether the two sides agree).
Orderable: TypeAlias = "int | float | str | bytes | list[object] | tuple[object, ...] | set[object] | frozenset[object]"

# ------------------------------------------------------------------ plain ops
_NUM = (bool, int, float, complex)
_SEQ = (list, tuple, str, bytes)
_SETS = (set, frozenset)
_CONTAINERS = (list, tuple, str, bytes, set, frozenset, dict)
_ORDERABLE = (bool, int, float, str, bytes, list, tuple, set, frozenset)
_MAX_SIZE = 10_000_000


def _guard_hashes(items: list[object]) -> None:
    """Refuse to build a set or dict from values crafted to share a hash."""
    try:
        check_hashes(items)
    except ValueError as exc:
        raise EvalError(f"TypeError: {exc}") from None


def _is_num(x: object) -> TypeGuard[Number]:
    return type(x) in _NUM


def _is_int(x: object) -> TypeGuard[int]:
    return type(x) in (int, bool)


def _is_seq(x: object) -> TypeGuard[PlainSeq]:
    return type(x) in _SEQ


def _is_set(x: object) -> TypeGuard[set[object] | frozenset[object]]:
    return type(x) in _SETS


def _is_orderable(x: object) -> TypeGuard[Orderable]:
    return type(x) in _ORDERABLE


def _concat(a: object, b: object) -> PlainSeq | None:
    """``a + b`` for two sequences of one exact type (None for anything else)."""
    if type(a) is not type(b) or not _is_seq(a):
        return None
    if isinstance(a, str) and isinstance(b, str):
        _guard_size(len(a) + len(b))
        return a + b
    if isinstance(a, bytes) and isinstance(b, bytes):
        _guard_size(len(a) + len(b))
        return a + b
    if isinstance(a, list) and isinstance(b, list):
        _guard_size(len(a) + len(b))
        return a + b
    if isinstance(a, tuple) and isinstance(b, tuple):
        _guard_size(len(a) + len(b))
        return a + b
    return None


def _guard_size(n: int) -> None:
    if n > _MAX_SIZE:
        raise EvalError(f"result too large to evaluate ({n} items)")


def _binop(op: ast.operator, a: object, b: object) -> object:
    ta, tb = type(a), type(b)
    try:
        if isinstance(op, ast.Add):
            if _is_num(a) and _is_num(b):
                return a + b
            joined = _concat(a, b)
            if joined is not None:
                return joined
        elif isinstance(op, ast.Sub):
            if _is_num(a) and _is_num(b):
                return a - b
            if _is_set(a) and _is_set(b):
                return a - b
        elif isinstance(op, ast.Mult):
            if _is_num(a) and _is_num(b):
                return a * b
            if _is_seq(a) and _is_int(b):
                _guard_size(len(a) * max(int(b), 0))
                return a * b
            if _is_seq(b) and _is_int(a):
                _guard_size(len(b) * max(int(a), 0))
                return a * b
        elif isinstance(op, (ast.Div, ast.FloorDiv, ast.Mod)) and _is_num(a) and _is_num(b):
            fn = {ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}[type(op)]
            return fn(a, b)
        elif isinstance(op, ast.Pow) and _is_num(a) and _is_num(b):
            if _is_int(a) and _is_int(b) and b > 0 and (abs(b) > 100_000 or abs(a).bit_length() * b > 1_000_000):
                raise EvalError("power too large to evaluate")
            return a**b
    except EvalError:
        raise
    except Exception as exc:  # ZeroDivisionError, OverflowError, ...
        raise EvalError(f"{type(exc).__name__}: {exc}") from None
    raise EvalError(f"unsupported operand types for {type(op).__name__}: {ta.__name__}, {tb.__name__}")


_ORDER_SYMBOLS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


def _order(op: ast.cmpop, a: object, b: object) -> bool:
    fn = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}[type(op)]
    if not (_is_orderable(a) and _is_orderable(b)):
        # None, complex and dict have no order: Python's own words for it
        raise EvalError(
            f"TypeError: '{_ORDER_SYMBOLS[type(op)]}' not supported between instances of "
            f"'{type(a).__name__}' and '{type(b).__name__}'"
        )
    try:
        return bool(fn(a, b))  # plain values only: no user code runs
    except Exception as exc:
        raise EvalError(f"{type(exc).__name__}: {exc}") from None


def _compare(op: ast.cmpop, a: object, b: object) -> bool:
    if isinstance(op, ast.Eq):
        return strict_eq(a, b)
    if isinstance(op, ast.NotEq):
        return not strict_eq(a, b)
    if isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
        return _order(op, a, b)
    if isinstance(op, (ast.In, ast.NotIn)):
        try:
            found = strict_in(a, b)
        except TypeError as exc:
            raise EvalError(f"TypeError: {exc}") from None
        return found if isinstance(op, ast.In) else not found
    if isinstance(op, (ast.Is, ast.IsNot)):
        # only planned when one side is the constant None/True/False
        same = type(a) is type(b) and a == b
        return same if isinstance(op, ast.Is) else not same
    raise EvalError("unsupported comparison")


def _isclose(a: object, b: object, rel_tol: object = 1e-09, abs_tol: object = 0.0, *, cmath_: bool = False) -> bool:
    if not (_is_num(a) and _is_num(b) and _is_num(rel_tol) and _is_num(abs_tol)):
        v = next(v for v in (a, b, rel_tol, abs_tol) if not _is_num(v))
        raise EvalError(f"TypeError: isclose() needs numbers, got {type(v).__name__}")
    if isinstance(rel_tol, complex) or isinstance(abs_tol, complex):
        raise EvalError("TypeError: must be real number, not complex")  # as (c)math.isclose says
    try:
        if cmath_ or isinstance(a, complex) or isinstance(b, complex):
            return cmath.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
        return math.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
    except Exception as exc:
        raise EvalError(f"{type(exc).__name__}: {exc}") from None


def _is_container(x: object) -> TypeGuard[Collection[object]]:
    return type(x) in _CONTAINERS


def _iterable(x: object) -> Collection[object]:
    if _is_container(x):
        return x
    raise EvalError(f"TypeError: '{type(x).__name__}' object is not iterable")


#: Builtins the evaluator calls over items whose types it does not narrow:
#: Python itself says (TypeError, ValueError) when they do not order, add up
#: or convert, and the items are plain values, so no user code runs.
_min: Callable[..., object] = min
_max: Callable[..., object] = max
_sum: Callable[..., object] = sum
_int: Callable[..., object] = int
_float: Callable[..., object] = float


def _call_builtin(name: str, args: list[object], kwargs: dict[str, object]) -> object:
    first = args[0] if args else None
    try:
        if name == "abs" and len(args) == 1 and _is_num(first):
            return abs(first)
        if name == "len" and len(args) == 1:
            return len(_iterable(args[0]))
        if (
            name in ("set", "frozenset", "list", "tuple", "sorted", "min", "max", "sum", "all", "any")
            and len(args) == 1
        ):
            it = _iterable(args[0])
            if name in ("set", "frozenset"):
                _guard_hashes(list(it))
            if name == "sorted":  # as _min: Python says when the items do not order
                reverse = kwargs.pop("reverse", False)
                ordered: Callable[..., list[object]] = sorted
                return ordered(it, reverse=bool(reverse))
            table: dict[str, Callable[[Iterable[object]], object]] = {
                "set": set,
                "frozenset": frozenset,
                "list": list,
                "tuple": tuple,
                "min": _min,
                "max": _max,
                "sum": _sum,
                "all": all,
                "any": any,
            }
            return table[name](it)
        if name in ("min", "max") and len(args) >= 2:
            return (_min if name == "min" else _max)(args)
        if name == "round" and len(args) in (1, 2) and _is_num(first):
            ndigits = args[1] if len(args) == 2 else None
            if len(args) == 2 and type(ndigits) is not int:
                raise EvalError("round() ndigits must be an int")
            if isinstance(first, complex):
                raise EvalError("TypeError: type complex doesn't define __round__ method")  # Python's words
            return round(first) if type(ndigits) is not int else round(first, ndigits)
        if name in ("bool", "int", "float", "str") and len(args) == 1:
            if name == "str" and type(first) not in (str, int, float, bool, complex) and first is not None:
                raise Unsupported("str() of a container")
            # int()/float() say themselves (TypeError/ValueError) what they cannot convert
            convert: dict[str, Callable[[object], object]] = {"bool": bool, "int": _int, "float": _float, "str": str}
            return convert[name](first)
        if (
            name == "dict"
            and len(args) == 1
            and isinstance(first, (list, tuple, dict))
            and type(first) in (list, tuple, dict)
        ):
            if not isinstance(first, dict):
                pairs = [p for p in first if type(p) in (list, tuple) and len(p) == 2]
                _guard_hashes([p[0] for p in pairs])
            return dict(first)
    except (EvalError, Unsupported):
        raise
    except Exception as exc:
        raise EvalError(f"{type(exc).__name__}: {exc}") from None
    raise EvalError(f"unsupported call {name}() with these arguments")


_BUILTIN_CALLS = {
    "abs",
    "len",
    "set",
    "frozenset",
    "list",
    "tuple",
    "sorted",
    "min",
    "max",
    "sum",
    "all",
    "any",
    "round",
    "bool",
    "int",
    "float",
    "str",
    "dict",
}
_ISCLOSE = {("math", "isclose"), ("cmath", "isclose"), (None, "isclose")}
_MATH_FUNCS = {"fabs", "floor", "ceil", "sqrt", "isnan", "isinf", "isfinite", "trunc"}
_TYPE_NAMES = {
    "int": int,
    "float": float,
    "str": str,
    "list": list,
    "tuple": tuple,
    "dict": dict,
    "set": set,
    "frozenset": frozenset,
    "bool": bool,
    "bytes": bytes,
    "complex": complex,
}
_METHODS: dict[type, set[str]] = {
    str: {
        "lower",
        "upper",
        "strip",
        "lstrip",
        "rstrip",
        "split",
        "startswith",
        "endswith",
        "count",
        "find",
        "index",
        "isdigit",
        "isalpha",
        "isalnum",
        "isupper",
        "islower",
        "isspace",
        "replace",
        "title",
        "capitalize",
        "swapcase",
    },
    list: {"count", "index"},
    tuple: {"count", "index"},
    dict: {"get"},
    bytes: {"decode"},
}
