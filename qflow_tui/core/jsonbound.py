"""JSON from outside (a server's answer, a line of a file) read within a bound
on its nesting: a body nested 100,000 deep is refused in one line before
Python's reader recurses into it, in C-speed work linear in its size."""

from __future__ import annotations

import re
from itertools import accumulate

#: Bytes that open and close a level, as +1 / -1 (255) after translation.
_DEPTH = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)


def depth_problem(raw: bytes, max_depth: int) -> str | None:
    """Why the JSON text ``raw`` nests deeper than ``max_depth``, or None. Most
    texts have fewer brackets than the bound and are not scanned at all;
    strings are set aside before brackets are counted."""
    if raw.count(b"[") + raw.count(b"{") <= max_depth:
        return None
    marks = _STRING.sub(b'""', raw).translate(_DEPTH, delete=_NOT_BRACKETS)
    deepest = max(accumulate(1 if b == 1 else -1 for b in marks), default=0)
    if deepest > max_depth:
        return f"its JSON nests {deepest} deep (at most {max_depth} is read)"
    return None
