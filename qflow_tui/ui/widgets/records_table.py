"""A workflow's own pane, shown generically: the records of one kind its run
emitted (MapCoder's recalled problems, its plans' confidences), a row each, in
the columns its :class:`~qflow_tui.core.workflows.base.Pane` declares, for the
shown progression. Every value is plain text: a record's text is a model's or a
program's, never markup."""

from __future__ import annotations

from typing import Unpack

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...core.pieces import RecordRow, Records, value_words
from ...core.safe_text import one_line
from ...core.workflows.base import Column, Pane
from ..palette import palette
from ..state import RunState
from ..widget_options import WidgetOptions

#: Characters of a value shown in a column declared without a width.
MAX_CELL = 120


def pane_columns(pane: Pane, rows: list[RecordRow]) -> tuple[Column, ...]:
    """The pane's declared columns; none declared: every field, in the order first seen."""
    if pane.columns:
        return pane.table_columns
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row.fields))
    return tuple(Column(n) for n in names)


def render_records(pane: Pane, rows: list[RecordRow], muted: str = "dim") -> Table | Text:
    """The rows as a table of plain text (its empty words before any row)."""
    if not rows:
        return Text(pane.empty or f"No {pane.title} yet.", style=muted)
    columns = pane_columns(pane, rows)
    table = Table(box=None, padding=(0, 2, 0, 0), show_edge=False, expand=False, header_style="bold")
    for c in columns:
        table.add_column(
            Text(one_line(c.heading, 40)),
            no_wrap=True,
            overflow="ellipsis",
            max_width=c.width or None,
        )
    for row in rows:
        table.add_row(*(Text(one_line(value_words(row.value(c.field)), c.width or MAX_CELL)) for c in columns))
    return table


class RecordsTable(VerticalScroll, can_focus=True):
    """One workflow pane's records, as a table (see the module docstring)."""

    ALLOW_MAXIMIZE = True

    DEFAULT_CSS = """
    RecordsTable { height: 1fr; padding: 0 1; }
    """

    def __init__(self, pane: Pane, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.pane = pane
        self.shown: list[RecordRow] = []
        """The rows painted last (what a test reads)."""

    def compose(self) -> ComposeResult:
        yield Static(id="records-body")

    def update_from(self, state: RunState, progression: int) -> None:
        self.shown = state.piece(Records).of(self.pane.record, progression)
        body = self.query_one("#records-body", Static)
        body.update(render_records(self.pane, self.shown, palette(self.app).muted))
