"""Outside text inside GitHub-flavoured markdown: on one line (a newline would
end a table row or start a heading), with every character markdown gives a
meaning escaped, so a name shows as written and never becomes a table cell,
a heading, a link, emphasis or raw HTML."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..safe_text import one_line

# Backslash-escaped where they would mean something: code spans, emphasis,
# strikethrough, links and images, table cells. HTML's three are written as
# entities, which every renderer shows as the character and none reads as a tag.
_BACKSLASHED = set("\\`*[]|~$")
_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
# What opens a block when it starts a line: a heading (``# ``), a list item
# (``- ``, ``+ ``, ``1. ``, ``1) ``), a setext underline or a thematic break
# (``===``, ``---``); ``>`` is an entity already, ``*`` ``_`` ``~`` and the
# backtick are escaped wherever they are.
_BLOCK_MARK = re.compile(r"^\s*(#{1,6}(?=\s|$)|[+\-](?=\s|$)|\d{1,9}[.)](?=\s|$)|[=\-]+\s*$)")


def _underscore_escaped(text: str, i: int) -> bool:
    """An ``_`` inside a word (``program_generator``) never emphasises; one at
    a word's edge may."""
    before = text[i - 1] if i > 0 else " "
    after = text[i + 1] if i + 1 < len(text) else " "
    return not (before.isalnum() and after.isalnum())


def text(value: object) -> str:
    """``value`` as markdown that shows it as written, on one line."""
    s = one_line(str(value))
    out = []
    for i, ch in enumerate(s):
        if ch in _ENTITIES:
            out.append(_ENTITIES[ch])
        elif ch in _BACKSLASHED or (ch == "_" and _underscore_escaped(s, i)):
            out.append("\\" + ch)
        else:
            out.append(ch)
    escaped = "".join(out)
    match = _BLOCK_MARK.match(escaped)
    if match:  # text that would open a block at a line's start: its mark escaped
        mark = match.group(1)
        mark = mark[:-1] + "\\" + mark[-1] if mark[0].isdigit() else "\\" + mark
        escaped = escaped[: match.start(1)] + mark + escaped[match.end(1) :]
    return escaped


def code(value: object, cell: bool = False) -> str:
    """``value`` as an inline code span: on one line, in a fence longer than
    any run of backticks inside, so nothing in it ends the span early. In a
    table ``cell``, its ``|`` escaped too (GFM splits cells before it reads
    code spans, and shows ``\\|`` inside one as ``|``)."""
    s = one_line(str(value))
    longest = max((len(run) for run in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    edges = s.startswith("`") or s.endswith("`") or (s.startswith(" ") and s.endswith(" ")) or not s.strip()
    pad = " " if edges else ""
    if cell:
        s = s.replace("|", "\\|")
    return f"{fence}{pad}{s}{pad}{fence}"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A table of cells already written as markdown (outside text through
    :func:`text`); every row has the header's number of cells, and no cell
    holds a line break."""
    width = len(header)
    for row in rows:
        if len(row) != width:
            raise ValueError(f"a markdown row of {len(row)} cells under a header of {width}")
    for cell in [*header, *(c for r in rows for c in r)]:
        if "\n" in cell or "\r" in cell:
            raise ValueError("a markdown cell holds a line break")
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
