"""Text from outside (a program, a model, a file, a session) made safe to keep
and to show: valid Unicode (no lone surrogates, which no UTF-8 file or terminal
takes), terminal control sequences removed and, where text will be read as Rich
markup, the markup escaped. Everything the CLI or the app prints that it did not
write itself goes through here; so does text at every boundary where it enters
the core (a sandbox child's report, a provider's stream, a file read back)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import TypeVar, cast

T = TypeVar("T")

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


#: What stands in for a code point that could not be kept (a lone surrogate):
#: Unicode's own replacement character, so the reader sees that something was there.
REPLACEMENT = "\ufffd"
_HIGH = ("\ud800", "\udbff")


def valid_text(text: str) -> str:
    """``text`` as valid Unicode, keeping all it can: a surrogate pair that
    arrived as two code points (JSON's ``"\\ud83d\\ude00"`` read in two pieces,
    or a UTF-16 slicer's halves joined) becomes the one character it encodes;
    each lone surrogate becomes :data:`REPLACEMENT`. Valid text comes back as
    it is (the same object), at the cost of one encoding pass at most."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # UTF-16 is the one codec in which a pair of surrogate code points is
        # the character they encode; "replace" marks the lone ones.
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


class StreamText:
    """The deltas of one streamed answer as valid text. A provider, or a proxy
    that slices by UTF-16 unit, can send the two halves of a surrogate pair in
    two chunks: a high surrogate at the end of a delta is held back until the
    next one, joined with its low half if that comes next, and replaced if not
    (or if the stream ends)."""

    __slots__ = ("_held",)

    def __init__(self) -> None:
        self._held = ""

    def feed(self, delta: str) -> str:
        """The valid text of ``delta`` to pass on now (may be empty)."""
        if self._held:
            delta, self._held = self._held + delta, ""
        if delta and _HIGH[0] <= delta[-1] <= _HIGH[1]:
            delta, self._held = delta[:-1], delta[-1]
        return valid_text(delta)

    def end(self) -> str:
        """What is still held when the stream ends: a replacement mark, or ``""``."""
        held, self._held = self._held, ""
        return REPLACEMENT if held else ""


# A \\u escape of a surrogate in JSON text: the run of backslashes before the
# "u" (odd: an escape; even: escaped backslashes, then plain text), the unit,
# and the escape right after it when that is a low surrogate.
_JSON_SURROGATE = re.compile(r"(?<!\\)(\\+)u([dD][89a-fA-F][0-9a-fA-F]{2})(?:\\u([dD][c-fC-F][0-9a-fA-F]{2}))?")
_JSON_REPLACEMENT = "\\ufffd"
_ANY_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _fix_escape(m: re.Match[str]) -> str:
    run, unit, low = m.group(1), m.group(2), m.group(3)
    after = _JSON_REPLACEMENT if low else ""  # a low half with no high half before it
    if len(run) % 2 == 0:  # JSON's "\\ud800" is a backslash, then the text "ud800"
        return f"{run}u{unit}{after}"
    if low and unit[1] in "89abAB":
        return m.group(0)  # a whole pair: the character it encodes
    return run[:-1] + _JSON_REPLACEMENT + after


def valid_json_text(text: str) -> str:
    """JSON text whose ``\\u`` escapes all decode to valid text: an escaped
    surrogate pair is kept (it is one character), a lone escaped surrogate
    becomes ``\\ufffd`` (:data:`REPLACEMENT`). ``json.loads`` of it yields only
    valid strings, however deep they sit; text without such escapes comes back
    as it is."""
    if "\\u" not in text or not _ANY_SURROGATE_ESCAPE.search(text):
        return text
    return _JSON_SURROGATE.sub(_fix_escape, text)


def valid(value: T) -> T:
    """A copy of ``value`` with :func:`valid_text` applied to every string in it
    (through dataclasses, dicts, lists and tuples); other values unchanged."""
    return cast("T", _walk(value, valid_text, 0))


def clean(text: str) -> str:
    """``text`` without terminal control sequences or control characters
    (newlines and tabs kept; a carriage return is dropped), as valid text."""
    if not text:
        return text
    return _CONTROL.sub("", _SEQUENCES.sub("", valid_text(text)))


def one_line(text: str, limit: int | None = None) -> str:
    """``clean(text)`` on one line: line breaks and tabs become spaces;
    cut to ``limit`` characters with an ellipsis."""
    out = _CONTROL_ONE_LINE.sub(" ", _SEQUENCES.sub("", valid_text(text or "")))
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


def scrub(value: T) -> T:
    """A copy of ``value`` with :func:`clean` applied to every string in it
    (through dataclasses, dicts, lists and tuples); other values unchanged.
    Used where events from a run or a session file enter the app's display."""
    return cast("T", _walk(value, clean, 0))


def _walk(value: object, fix: Callable[[str], str], depth: int) -> object:
    if isinstance(value, str):
        return fix(value)
    if depth > 50:
        return value
    if isinstance(value, dict):
        return {_walk(k, fix, depth + 1): _walk(v, fix, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, fix, depth + 1) for v in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(_walk(v, fix, depth + 1) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            f.name: _walk(getattr(value, f.name), fix, depth + 1)
            for f in dataclasses.fields(value)
            if f.init and isinstance(getattr(value, f.name), (str, dict, list, tuple))
        }
        return dataclasses.replace(value, **changes) if changes else value
    return value
