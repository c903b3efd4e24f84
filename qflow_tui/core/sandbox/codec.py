"""Typed access, for the app's side, to the harness's value codec and strict
comparison (the harness is untyped, stdlib-only child code; both sides share
one definition)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeGuard

from .harness import channel, prelude, values
from .harness import codec as harness

NotPlain: type[Exception] = harness.NotPlain
Foreign: type = harness.Foreign
"""A numpy value as data (dtype, shape, items): the app keeps it as this, the
trusted process rebuilds numpy's own value from it (see ``harness.codec.Foreign``)."""
Boxed: type = harness.Boxed
"""A value of one of the standard library's types (Counter, OrderedDict,
defaultdict, deque, Fraction, Decimal) as data, kept and rebuilt as :data:`Foreign` is."""
Subclassed: type = harness.Subclassed
"""A value of a program's subclass of a built-in type (an int subclass, a
namedtuple) as data; a child rebuilds it as a fresh subclass of that name."""


class ForeignValue(Protocol):
    """What the app reads of a :data:`Foreign`."""

    dtype: str
    shape: tuple[int, ...] | None
    """None for a numpy scalar, the array's shape else."""
    data: object
    """The scalar's plain value, or the array's items (plain values)."""


class BoxedValue(Protocol):
    """What the app reads of a :data:`Boxed`."""

    type_name: str
    data: object
    """Its contents as a plain value (a Counter's: a dict)."""


class SubclassedValue(Protocol):
    """What the app reads of a :data:`Subclassed`."""

    base: str
    name: str
    data: object


def is_foreign(value: object) -> TypeGuard[ForeignValue]:
    return type(value) is Foreign


def is_boxed(value: object) -> TypeGuard[BoxedValue]:
    return type(value) is Boxed


def is_subclassed(value: object) -> TypeGuard[SubclassedValue]:
    return type(value) is Subclassed


decode_value: Callable[..., Any] = harness.decode_value
"""Encoded tree -> plain value (a numpy value -> :data:`Foreign`, a
Counter, deque, ... -> :data:`Boxed`; ``found``, a list, collects them); raises ValueError (or RecursionError, ...) for
anything malformed."""
encode_value: Callable[[Any], Any] = harness.encode_value
value_text: Callable[[object, int], str] = values._plain_text
"""The JSON text of a value's encoding (what a program's process reports),
at most ``max_bytes`` long (NotPlain past it, or for a value that is not plain)."""
check_hashes: Callable[[list[Any]], None] = harness.check_hashes
strict_eq: Callable[[Any, Any], bool] = harness.strict_eq
strict_in: Callable[[Any, Any], bool] = harness.strict_in
harness_lazy_modules: tuple[str, ...] = channel._LAZY_MODULES
"""Standard modules the oracle resolves by name in a test even when nothing imported them."""
BIG_VALUE_MAX: int = prelude.BIG_VALUE_MAX
"""Largest encoded value one call may report when the trusted side allows more than the usual cap."""
KEEP_CHUNK: int = prelude.KEEP_CHUNK
"""Bytes of base64 ground-truth records after which the trusted process sends a ``keep`` message."""
