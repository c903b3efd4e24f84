"""The parent's small evaluator of plain operations: what an assert's *spine*
(see ``verdict``) may do over plain values (``==``/``!=`` made strict,
ordering, arithmetic, ``math.isclose``, a few builtins and pure methods), each
bounded in size, and the errors it raises."""

from __future__ import annotations

import ast
import cmath
import math
import operator
from collections.abc import Callable
from typing import Any

from .codec import check_hashes, strict_eq, strict_in


class Unsupported(Exception):
    """The spine has a node the parent's evaluator does not know."""


class EvalError(Exception):
    """Evaluating the assert over the values raised (as Python would)."""


# ------------------------------------------------------------------ plain ops
_NUM = (bool, int, float, complex)
_SEQ = (list, tuple, str, bytes)
_MAX_SIZE = 10_000_000


def _guard_hashes(items: list[Any]) -> None:
    """Refuse to build a set or dict from values crafted to share a hash."""
    try:
        check_hashes(items)
    except ValueError as exc:
        raise EvalError(f"TypeError: {exc}") from None


def _is_num(x: Any) -> bool:
    return type(x) in _NUM


def _guard_size(n: int) -> None:
    if n > _MAX_SIZE:
        raise EvalError(f"result too large to evaluate ({n} items)")


def _binop(op: ast.operator, a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    try:
        if isinstance(op, ast.Add):
            if _is_num(a) and _is_num(b):
                return a + b
            if ta is tb and ta in _SEQ:
                _guard_size(len(a) + len(b))
                return a + b
        elif isinstance(op, ast.Sub):
            if _is_num(a) and _is_num(b):
                return a - b
            if ta in (set, frozenset) and tb in (set, frozenset):
                return a - b
        elif isinstance(op, ast.Mult):
            if _is_num(a) and _is_num(b):
                return a * b
            if ta in _SEQ and tb in (int, bool):
                _guard_size(len(a) * max(int(b), 0))
                return a * b
            if tb in _SEQ and ta in (int, bool):
                _guard_size(len(b) * max(int(a), 0))
                return a * b
        elif isinstance(op, (ast.Div, ast.FloorDiv, ast.Mod)) and _is_num(a) and _is_num(b):
            fn = {ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}[type(op)]
            return fn(a, b)
        elif isinstance(op, ast.Pow) and _is_num(a) and _is_num(b):
            if (
                ta in (int, bool)
                and tb in (int, bool)
                and b > 0
                and (abs(b) > 100_000 or abs(a).bit_length() * b > 1_000_000)
            ):
                raise EvalError("power too large to evaluate")
            return a**b
    except EvalError:
        raise
    except Exception as exc:  # ZeroDivisionError, OverflowError, ...
        raise EvalError(f"{type(exc).__name__}: {exc}") from None
    raise EvalError(f"unsupported operand types for {type(op).__name__}: {ta.__name__}, {tb.__name__}")


def _order(op: ast.cmpop, a: Any, b: Any) -> bool:
    fn = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}[type(op)]
    try:
        return bool(fn(a, b))  # plain values only: no user code runs
    except Exception as exc:
        raise EvalError(f"{type(exc).__name__}: {exc}") from None


def _compare(op: ast.cmpop, a: Any, b: Any) -> bool:
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


def _isclose(a: Any, b: Any, rel_tol: Any = 1e-09, abs_tol: Any = 0.0, *, cmath_: bool = False) -> bool:
    for v in (a, b, rel_tol, abs_tol):
        if not _is_num(v):
            raise EvalError(f"TypeError: isclose() needs numbers, got {type(v).__name__}")
    try:
        if cmath_ or type(a) is complex or type(b) is complex:
            return cmath.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
        return math.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
    except Exception as exc:
        raise EvalError(f"{type(exc).__name__}: {exc}") from None


def _iterable(x: Any) -> Any:
    if type(x) in (list, tuple, str, bytes, set, frozenset, dict):
        return x
    raise EvalError(f"TypeError: '{type(x).__name__}' object is not iterable")


def _call_builtin(name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
    try:
        if name == "abs" and len(args) == 1 and _is_num(args[0]):
            return abs(args[0])
        if name == "len" and len(args) == 1:
            return len(_iterable(args[0]))
        if (
            name in ("set", "frozenset", "list", "tuple", "sorted", "min", "max", "sum", "all", "any")
            and len(args) == 1
        ):
            it = _iterable(args[0])
            if name in ("set", "frozenset"):
                _guard_hashes(list(it))
            if name == "sorted":
                reverse = kwargs.pop("reverse", False)
                return sorted(it, reverse=bool(reverse))
            table: dict[str, Callable[[Any], Any]] = {
                "set": set,
                "frozenset": frozenset,
                "list": list,
                "tuple": tuple,
                "min": min,
                "max": max,
                "sum": sum,
                "all": all,
                "any": any,
            }
            return table[name](it)
        if name in ("min", "max") and len(args) >= 2:
            return (min if name == "min" else max)(args)
        if name == "round" and len(args) in (1, 2) and _is_num(args[0]):
            if len(args) == 2 and type(args[1]) is not int:
                raise EvalError("round() ndigits must be an int")
            return round(*args)
        if name in ("bool", "int", "float", "str") and len(args) == 1:
            if name == "str" and type(args[0]) not in (str, int, float, bool, complex) and args[0] is not None:
                raise Unsupported("str() of a container")
            return {"bool": bool, "int": int, "float": float, "str": str}[name](args[0])
        if name == "dict" and len(args) == 1 and type(args[0]) in (list, tuple, dict):
            if type(args[0]) is not dict:
                pairs = [p for p in args[0] if type(p) in (list, tuple) and len(p) == 2]
                _guard_hashes([p[0] for p in pairs])
            return dict(args[0])
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
