"""The types of JSON data, in one place: what ``json.loads`` gives back, and
what a record holds before ``json.dumps`` writes it. A value read from a file is
:data:`JSONValue` (checked before use); a value only passed on is ``object``."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    #: One JSON value: text, a number, true/false, an array, an object or null.
    JSONValue: TypeAlias = str | int | float | bool | list["JSONValue"] | dict[str, "JSONValue"] | None
else:
    # At run time (``typing.get_type_hints`` of a TypedDict, the checks of
    # :mod:`.typecheck`) the same kinds, one level deep: Python 3.11 has no
    # recursive alias that can be evaluated.
    JSONValue = str | int | float | bool | list | dict | None

#: A JSON object (a session header's ``config``, a results line's ``problem``).
JSONObject: TypeAlias = dict[str, JSONValue]
