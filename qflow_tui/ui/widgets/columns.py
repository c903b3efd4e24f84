"""Fitting a table's columns to its width: Textual's DataTable takes fixed
column widths, so a table that fits its terminal works out what is left."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from textual.widgets import DataTable

_Cell = TypeVar("_Cell")
"""What a table's cells hold; the columns do not look."""


def room_left(table: DataTable[_Cell], widths: Iterable[int]) -> int:
    """Cells of ``table``'s width left over by columns of ``widths``, each with
    its padding; negative when they do not fit. Room is kept for the vertical
    scrollbar, shown or not: the rows that bring it may come after the resize
    this is worked out at, and do not resize the table."""
    used = sum(width + 2 * table.cell_padding for width in widths)
    return table.size.width - table.styles.scrollbar_size_vertical - used
