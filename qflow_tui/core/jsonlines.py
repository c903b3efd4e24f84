"""JSON Lines that every reader splits where we do: one object per ``\\n``.

``json.dumps(..., ensure_ascii=False)`` escapes ``\\n``, ``\\r`` and the other
control characters inside strings, but writes U+0085, U+2028 and U+2029 as
they are, and ``str.splitlines()`` (and many editors and tools) breaks a line
at each of them. A program whose text holds one (in a comment, in a string)
would then split its own line, and the line would be lost on reading. These
three are written as JSON escapes instead: the same JSON, the same text once
read, and a line no splitter cuts."""

from __future__ import annotations

import json

#: The characters ``str.splitlines()`` breaks at that JSON leaves unescaped.
_LINE_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_TABLE = str.maketrans(_LINE_BREAKS)


def dumps_line(obj: object, *, separators: tuple[str, str] | None = None) -> str:
    """``obj`` as one line of JSON (no trailing newline), non-ASCII text kept
    as it is apart from the three line breaks JSON does not escape;
    ``separators`` as ``json.dumps`` takes them."""
    return json.dumps(obj, ensure_ascii=False, separators=separators).translate(_TABLE)


def split_lines(text: str) -> list[str]:
    """The lines of a JSON Lines text, split at ``\\n`` only (a line written
    before :func:`dumps_line` may hold a raw U+2028 inside a string)."""
    return text.split("\n")
