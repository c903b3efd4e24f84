"""Rows as CSV that a spreadsheet opens as data: a cell that a spreadsheet
would run as a formula (one beginning ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return, as OWASP's "CSV Injection" page lists them, or any of them
after leading spaces) gets a leading ``'`` and is quoted; so is a cell that
holds a separator of any locale (``,`` ``;`` a tab ``|``), a quote or a line
break, so no part of it starts a cell of its own (quotes inside doubled,
RFC 4180). A number (``-19.20``, ``1e-05``) is data, not a formula, and is
written as it is. Terminal control sequences are removed."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..safe_text import clean

#: What makes a spreadsheet read a cell as a formula (OWASP), at its start.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_QUOTED = re.compile(r"[,;\t|\"'\r\n]|^\s|\s$")


def is_formula(cell: str) -> bool:
    """Would a spreadsheet run ``cell`` (before neutralising) as a formula?"""
    stripped = cell.lstrip(" \t\r\n")
    starts = cell.startswith(FORMULA_START) or stripped.startswith(FORMULA_START)
    return starts and not _NUMBER.fullmatch(cell)


def cell(value: object) -> str:
    """One CSV field for ``value``: neutralised if a spreadsheet would run it,
    quoted where a separator, quote or line break is inside."""
    if value is None:
        return ""
    if isinstance(value, bool):
        value = str(value).lower()
    s = value if isinstance(value, str) else str(value)
    s = clean(s.replace("\r\n", "\n")) if not s.isascii() or not s.isprintable() else s
    if is_formula(s):
        s = "'" + s
    if _QUOTED.search(s):
        s = '"' + s.replace('"', '""') + '"'
    return s


def rows(table: Iterable[Iterable[object]]) -> str:
    """The CSV text of ``table``, a line per row (``\\n`` ends each)."""
    return "".join(",".join(cell(v) for v in row) + "\n" for row in table)
