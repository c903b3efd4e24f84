"""Tables and lists that move as lazygit's and k9s's do: j and k a row down and
up, g and G to the first and the last row, besides the arrows and Home/End.

Every table and list of the app is one of these, so the keys are the same
wherever a cursor moves through rows (the keys screen lists them with the
pane)."""

from __future__ import annotations

from typing import Any

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import DataTable, OptionList, Tree


def row_keys(down: str, up: str, first: str, last: str) -> list[BindingType]:
    """j/k/g/G bound to a widget's own actions for a row down, up, first and last."""
    return [
        Binding("j", down, "Down", show=False, tooltip="The next row (as ↓)"),
        Binding("k", up, "Up", show=False, tooltip="The previous row (as ↑)"),
        Binding("g", first, "First", show=False, tooltip="The first row (as Ctrl+Home)"),
        Binding("G", last, "Last", show=False, tooltip="The last row (as Ctrl+End)"),
    ]


class ListTable(DataTable[Any]):
    """A table whose rows j, k, g and G move through."""

    BINDINGS = row_keys("cursor_down", "cursor_up", "scroll_top", "scroll_bottom")


class ListOptions(OptionList):
    """A list of choices that j, k, g and G move through."""

    BINDINGS = row_keys("cursor_down", "cursor_up", "first", "last")


class ListTree(Tree[str]):
    """A tree whose visible lines j, k, g and G move through."""

    BINDINGS = row_keys("cursor_down", "cursor_up", "first", "last")

    def action_first(self) -> None:
        self.cursor_line = 0

    def action_last(self) -> None:
        self.cursor_line = self.last_line


class ListScroll(VerticalScroll):
    """A scrolled list of entries (the keys, the messages): j and k scroll a
    line, g and G to the top and the bottom."""

    BINDINGS = [
        Binding("j", "scroll_down", "Down", show=False, tooltip="Scroll down a line (as ↓)"),
        Binding("k", "scroll_up", "Up", show=False, tooltip="Scroll up a line (as ↑)"),
        Binding("g", "top", "Top", show=False, tooltip="To the top (as Home)"),
        Binding("G", "bottom", "Bottom", show=False, tooltip="To the bottom (as End)"),
    ]

    def action_top(self) -> None:
        self.scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.scroll_end(animate=False)
