"""Checking a value that came from outside (a plugin's object, a line of a
file qflow reads back) against the type its reader declares, and making the
text in it terminal-safe: the first field that is wrong is said in one line
naming it (``rank is 'high' (a str), not a whole number``;
``steps[0].passed is 'yes' (a str), not true or false``), never a traceback
later where the value is used.

Types are written as Python annotations: plain classes, ``X | None``,
``Literal``, ``tuple[X, ...]``, ``list``, ``dict``, ``frozenset``, callables,
dataclasses and TypedDicts (each field checked in turn; a TypedDict's required
keys must be there, its other keys may be missing, and keys it does not name
are left as they are)."""

from __future__ import annotations

import builtins
import collections.abc
import copy
import dataclasses
import sys
import types
import typing
from collections.abc import Collection, Mapping
from typing import Any, Literal, TypeVar, Union, cast

from .safe_text import one_line

T = TypeVar("T")
#: The longest text kept from one thing a plugin says (a summary, a reason).
TEXT_LIMIT = 500


_WORDS: dict[type, str] = {
    str: "text",
    int: "a whole number",
    float: "a number",
    bool: "true or false",
    tuple: "a tuple",
    list: "a list",
    dict: "a dict",
    frozenset: "a frozenset",
    set: "a set",
    type(None): "None",
}


def _described(value: object) -> str:
    shown = one_line(repr(value), 60) if isinstance(value, (str, int, float, bool, type(None))) else ""
    kind = type(value).__name__
    article = "an" if kind[:1].lower() in "aeiou" else "a"
    return f"{shown} ({article} {kind})" if shown else f"{article} {kind}"


def _wanted(annotation: object) -> str:
    """What ``annotation`` asks for, in words a user reads: ``a whole number``,
    ``a list``, ``text or None`` (a container's items are checked, and named,
    one by one)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    words = _WORDS.get(annotation) if isinstance(annotation, type) else None  # ``Literal[[1]]`` cannot be a key
    if words is not None:
        return words
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin in (Union, types.UnionType):
        return " or ".join(_wanted(a) for a in args)
    if origin is tuple and args and (len(args) != 2 or args[1] is not Ellipsis):
        return f"a tuple of {len(args)}"
    if origin is not None and origin in _WORDS:
        return _WORDS[origin]
    if is_callable_type(annotation):
        return "a function"
    if typing.is_typeddict(annotation):
        return "a dict"
    if isinstance(annotation, type):
        article = "an" if annotation.__name__[:1].lower() in "aeiou" else "a"
        return f"{article} {annotation.__name__}"
    return str(annotation)


class _Names(dict[str, object]):
    """Names for resolving a class's annotations: ``names``, its module's, then
    the builtins, and ``Any`` for a name only a type checker sees."""

    def __init__(self, module: str, names: Mapping[str, object]) -> None:
        super().__init__()
        self.module = vars(sys.modules[module]) if module in sys.modules else {}
        self.names = names

    def __missing__(self, key: str) -> object:
        if key in self.names:
            return self.names[key]
        if key in self.module:
            return self.module[key]
        return getattr(builtins, key, Any)


_HINTS: dict[tuple[type, tuple[str, ...]], dict[str, object]] = {}


def field_types(cls: type, names: Mapping[str, object] | None = None) -> dict[str, object]:
    """The resolved annotations of a dataclass's fields: ``names`` first (for
    names its module imports only under ``TYPE_CHECKING``), any other name a
    type checker alone sees resolves to ``Any``."""
    names = names or {}
    key = (cls, tuple(sorted(names)))
    hints = _HINTS.get(key)
    if hints is None:
        hints = {}
        for f in dataclasses.fields(cls):
            annotation = f.type
            if isinstance(annotation, str):
                try:
                    annotation = eval(annotation, {}, _Names(cls.__module__, names))
                except Exception:
                    annotation = Any
            hints[f.name] = annotation
        _HINTS[key] = hints
    return hints


class _Wrong:
    """The mark of a value not of its type, before its words are made."""


_WRONG = _Wrong()


def is_callable_type(annotation: object) -> bool:
    return typing.get_origin(annotation) is collections.abc.Callable or annotation is collections.abc.Callable


def type_problem(
    value: object, annotation: object, where: str, names: Mapping[str, object] | None = None, depth: int = 0
) -> str | None:
    """Why ``value`` is not of the type ``annotation`` says (one line naming
    ``where``, the field's path), or None. Knows plain classes, ``X | None``,
    ``Literal``, ``tuple[X, ...]``, ``list``, ``dict``, ``frozenset``, callables
    and dataclasses (each of whose fields is checked in turn, their annotations
    resolved with ``names``)."""
    found = _mismatch(value, annotation, where, names, depth)
    if isinstance(found, _Wrong):
        return f"{where} is {_described(value)}, not {_wanted(annotation)}"
    return found


#: Each annotation's reading (what kind of check it asks for, its origin and
#: arguments), keyed by the annotation itself (as session.reader's checkers
#: are): a bench checks the same few annotations thousands of times, and
#: reading them again was most of the check. Bounded: an annotation written
#: inline is a new object each time, though an equal one finds its entry.
_PLANS: dict[object, tuple[str, object, tuple[object, ...]]] = {}
_MAX_PLANS = 4096


def _plan(annotation: object) -> tuple[str, object, tuple[object, ...]]:
    """What :func:`_mismatch` checks for ``annotation``: its kind, origin and arguments."""
    try:
        got = _PLANS.get(annotation)
    except TypeError:  # an annotation that cannot be a key (``Literal[[1]]``): read each time
        return _read_plan(annotation)
    if got is None:
        got = _read_plan(annotation)
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        _PLANS[annotation] = got
    return got


def _read_plan(annotation: object) -> tuple[str, object, tuple[object, ...]]:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    kind = "unknown"  # an annotation this checker does not know: not checked
    if annotation is Any or annotation is object or isinstance(annotation, TypeVar):
        kind = "any"
    elif origin is Literal:
        kind = "literal"
    elif origin in (Union, types.UnionType):
        kind = "union"
    elif annotation is type(None) or annotation is None:
        kind = "none"
    elif annotation is float:
        kind = "float"
    elif annotation is int:
        kind = "int"
    elif is_callable_type(annotation):
        kind = "callable"
    elif origin in (tuple, list, frozenset, set):
        kind = "items"
    elif origin is dict:
        kind = "dict"
    elif origin is not None and isinstance(origin, type):
        kind = "origin"
    elif typing.is_typeddict(annotation):
        kind = "typeddict"
    elif isinstance(annotation, type):
        kind = "dataclass" if dataclasses.is_dataclass(annotation) else "class"
    return kind, origin, args


def _mismatch(
    value: object, annotation: object, where: str, names: Mapping[str, object] | None, depth: int
) -> str | _Wrong | None:
    """:func:`type_problem`'s work: ``_WRONG`` where ``value`` itself is not of
    the type (its words are made only then: most values checked are right;
    so is an item's path, made only for the item that is wrong)."""
    if depth > 20:
        return None
    kind, origin, args = _plan(annotation)
    if kind == "any" or kind == "unknown":
        return None
    if kind == "literal":
        return None if any(value == a and type(value) is type(a) for a in args) else _WRONG
    if kind == "union":
        if any(_mismatch(value, a, where, names, depth + 1) is None for a in args):
            return None
        return _WRONG
    if kind == "none":
        return None if value is None else _WRONG
    if kind == "float":
        return None if isinstance(value, (int, float)) and not isinstance(value, bool) else _WRONG
    if kind == "int":
        return None if isinstance(value, int) and not isinstance(value, bool) else _WRONG
    if kind == "callable":
        return None if callable(value) else _WRONG
    if kind == "items":
        if not isinstance(value, cast("type[Collection[object]]", origin)):
            return _WRONG
        items = list(value)
        if origin is tuple and args and (len(args) != 2 or args[1] is not Ellipsis):
            if len(items) != len(args):
                return _WRONG
            kinds = list(args)
        else:
            kinds = [args[0] if args else Any] * len(items)
        for i, (item, item_type) in enumerate(zip(items, kinds, strict=True)):
            if _mismatch(item, item_type, where, names, depth + 1) is not None:
                return type_problem(item, item_type, f"{where}[{i}]", names, depth + 1)
        return None
    if kind == "dict":
        if not isinstance(value, dict):
            return _WRONG
        key_type, value_type = args if len(args) == 2 else (Any, Any)
        for k, v in value.items():
            if _mismatch(k, key_type, where, names, depth + 1) is not None:
                return type_problem(k, key_type, f"{where} key", names, depth + 1)
            if _mismatch(v, value_type, where, names, depth + 1) is not None:
                return type_problem(v, value_type, f"{where}[{one_line(repr(k), 40)}]", names, depth + 1)
        return None
    if kind == "origin":
        return None if isinstance(value, cast(type, origin)) else _WRONG
    if kind == "typeddict":
        return keys_problem(value, annotation, where, names, depth + 1)
    if not isinstance(value, cast(type, annotation)):
        return _WRONG
    if kind == "dataclass":
        return fields_problem(value, names, where, depth + 1)
    return None


def keys_problem(
    value: object, shape: object, where: str = "", names: Mapping[str, object] | None = None, depth: int = 0
) -> str | None:
    """Why the dict ``value`` does not have the shape of the TypedDict
    ``shape`` (a required key missing, or a key's value of the wrong type), or
    None. Keys the shape does not name are not checked."""
    if not isinstance(value, dict):
        return f"{where or 'it'} is {_described(value)}, not a dict"
    required, hints = _typed_dict_hints(shape)
    prefix = f"{where}." if where else ""
    for key in required:
        if key not in value:
            return f"{prefix}{key} is missing"
    for key, annotation in hints:
        if key in value and _mismatch(value[key], annotation, where, names, depth) is not None:
            return type_problem(value[key], annotation, f"{prefix}{key}", names, depth)
    return None


#: Each TypedDict's required keys (sorted) and resolved annotations (without
#: ``Required``/``NotRequired``): a results line checks the same shapes 164
#: times a bench, and resolving them was most of the check.
_SHAPES: dict[object, tuple[list[str], list[tuple[str, object]]]] = {}


def _typed_dict_hints(shape: object) -> tuple[list[str], list[tuple[str, object]]]:
    cached = _SHAPES.get(shape)  # a TypedDict class: hashed by identity, as _PLANS' classes are
    if cached is None:
        required: frozenset[str] = getattr(shape, "__required_keys__")  # noqa: B009 (a TypedDict's, unknown to object)
        hints = [(key, _unrequired(annotation)) for key, annotation in typing.get_type_hints(shape).items()]
        cached = _SHAPES[shape] = (sorted(required), hints)
    return cached


def _unrequired(annotation: object) -> object:
    """``Required[X]`` / ``NotRequired[X]`` -> ``X``."""
    if typing.get_origin(annotation) in (typing.Required, typing.NotRequired):
        return typing.get_args(annotation)[0]
    return annotation


def fields_problem(
    obj: object, names: Mapping[str, object] | None = None, where: str = "", depth: int = 0
) -> str | None:
    """The first field of the dataclass instance ``obj`` whose value is not of
    its declared type, in words (see :func:`type_problem`), or None."""
    if not dataclasses.is_dataclass(obj):
        raise TypeError(f"{type(obj).__name__} is not a dataclass")  # as dataclasses.fields says
    hints = field_types(type(obj), names)
    for f in dataclasses.fields(obj):
        name = f"{where}.{f.name}" if where else f.name
        problem = type_problem(getattr(obj, f.name), hints[f.name], name, names, depth)
        if problem:
            return problem
    return None


def safe_strings(value: T, limit: int = TEXT_LIMIT, depth: int = 0) -> T:
    """``value`` with every string in it (through dataclasses, tuples, lists,
    frozensets and dicts) made terminal-safe on one line
    (:func:`~qflow_tui.core.safe_text.one_line`, cut at ``limit``). What has
    nothing to clean comes back as it is (the same object); a changed
    dataclass is copied field by field (frozen ones too, without running their
    checks again)."""
    if isinstance(value, str):
        cleaned = one_line(value, limit)
        return value if cleaned == value else cleaned  # type: ignore[return-value]
    if depth > 20:
        return value
    if isinstance(value, (tuple, list, frozenset)) and not hasattr(value, "_fields"):
        items = [safe_strings(v, limit, depth + 1) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return type(value)(items)
    if isinstance(value, dict):
        pairs = [(safe_strings(k, limit, depth + 1), safe_strings(v, limit, depth + 1)) for k, v in value.items()]
        if all(a is k and b is v for (a, b), (k, v) in zip(pairs, value.items(), strict=True)):
            return value
        return dict(pairs)  # type: ignore[return-value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changed = {}
        for f in dataclasses.fields(value):
            old = getattr(value, f.name)
            new = safe_strings(old, limit, depth + 1)
            if new is not old:
                changed[f.name] = new
        if not changed:
            return value
        out = copy.copy(value)
        for name, new in changed.items():
            object.__setattr__(out, name, new)
        return out
    return value


__all__ = [
    "TEXT_LIMIT",
    "field_types",
    "fields_problem",
    "is_callable_type",
    "keys_problem",
    "safe_strings",
    "type_problem",
]
