"""Text from outside (a program, a model, a file, a session) made safe to show:
terminal control sequences removed and, where text will be read as Rich markup,
the markup escaped. Everything the CLI or the app prints that it did not write
itself goes through here."""

from __future__ import annotations

import dataclasses
import re
from typing import Any, TypeVar

# Whole escape sequences first (so no half of one is left to show), then any
# remaining control character: C0 except newline and tab, DEL, C1 (which
# includes the 8-bit CSI and OSC), and the bidirectional overrides that make
# text read differently from what it is.
_SEQUENCES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI ... final byte (ESC[2J, colours, cursor moves)
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL or ST (ESC]0;title, ESC]8;;link)
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*[0-~]?"  # any other ESC sequence, or a lone ESC
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
    r"|\x9d[^\x07\x9c]*[\x07\x9c]?"  # 8-bit OSC
)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_CONTROL_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# A "[" that Rich could read as the start of a tag ([bold], [/], [link=...],
# [@click]), with the backslashes before it (which escape, or are escaped).
_TAG = re.compile(r"(\\*)(\[[a-zA-Z#/@\]])")


def clean(text: str) -> str:
    """``text`` without terminal control sequences or control characters
    (newlines and tabs kept; a carriage return is dropped)."""
    if not text:
        return text
    return _CONTROL.sub("", _SEQUENCES.sub("", text))


def one_line(text: str, limit: int | None = None) -> str:
    """``clean(text)`` on one line: line breaks and tabs become spaces;
    cut to ``limit`` characters with an ellipsis."""
    out = _CONTROL_ONE_LINE.sub(" ", _SEQUENCES.sub("", text or ""))
    if limit is not None and len(out) > limit:
        out = out[: max(0, limit - 1)] + "…"
    return out


def escape_markup(text: str) -> str:
    """``text`` that Rich's markup parser shows as written: every ``[`` that
    could open a tag gets a backslash (and backslashes before it are doubled,
    so they stay as written too)."""
    out = _TAG.sub(lambda m: m.group(1) * 2 + "\\" + m.group(2), text)
    if out.endswith("\\") and not out.endswith("\\\\"):
        out += "\\"  # a trailing backslash would escape the markup that follows
    return out


def markup_safe(text: str) -> str:
    """Outside text to put inside a Rich markup string: cleaned and escaped."""
    return escape_markup(clean(text))


T = TypeVar("T")


def scrub(value: T) -> T:
    """A copy of ``value`` with :func:`clean` applied to every string in it
    (through dataclasses, dicts, lists and tuples); other values unchanged.
    Used where events from a run or a session file enter the app's display."""
    return _scrub(value, 0)  # type: ignore[no-any-return]


def _scrub(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return clean(value)
    if depth > 50:
        return value
    if isinstance(value, dict):
        return {_scrub(k, depth + 1): _scrub(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, depth + 1) for v in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(_scrub(v, depth + 1) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            f.name: _scrub(getattr(value, f.name), depth + 1)
            for f in dataclasses.fields(value)
            if f.init and isinstance(getattr(value, f.name), (str, dict, list, tuple))
        }
        return dataclasses.replace(value, **changes) if changes else value
    return value
