"""The problems of a bench as a table that fills in as they run: status, the
verdict of the program after each workflow step, tokens, time, and why a
problem failed."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Unpack

from rich.text import Text

from ...core.bench.report import step_columns
from ...core.bench.results import ResultLine
from ...core.safe_text import one_line
from ...core.workflows import WORKFLOWS
from ..palette import Palette, palette
from ..replay_model import short_step
from ..widget_options import WidgetOptions
from .columns import room_left
from .lists import ListTable
from .search_line import matches

#: The widths of the columns beside the steps' (the problem's: at least this,
#: as wide as the longest id up to ``_PROBLEM_MAX``).
_WIDTHS = {"problem": 16, "status": 14, "tokens": 6, "time": 6}
#: The widest the problem column grows ("humaneval-plus/163#12" whole).
_PROBLEM_MAX = 22
#: The least room the "why" column takes; it gets what the others leave (the
#: line under the table shows the highlighted problem's reason whole).
_WHY_MIN = 8
#: The longest step name shown whole where there is room.
_WHOLE = 20


@dataclass
class BenchRow:
    """What the table shows of one run of a bench (a problem, or one sample of it)."""

    key: str
    """The run's key: the problem id, with ``#N`` for sample N > 0."""
    state: str = "queued"
    """``queued``, ``running``, ``evaluating``, ``done``, ``provider_error``, ``error`` or ``not run``."""
    step: str = ""
    """The workflow step it is in, while running."""
    tokens: int = 0
    record: ResultLine | None = None
    """Its line of ``results.jsonl``, once finished."""
    started: float | None = None
    """When it started running (the app's clock), for its time while running."""
    seen_at: float | None = None
    """When its last update arrived (the app's clock)."""

    @property
    def why(self) -> str:
        """Why it did not pass, in one line: the run's error (a provider that
        failed, a model with no answer) or the hidden tests' verdict; "" when it
        passed or has not finished."""
        rec: Mapping[str, object] = self.record or {}
        if self.state in ("provider_error", "error"):
            return one_line(str(rec.get("error") or self.state.replace("_", " ")))
        if self.state == "done" and not rec.get("passed"):
            verdict = rec.get("verdict")
            detail = verdict.get("detail") or verdict.get("status") if isinstance(verdict, dict) else ""
            return one_line(str(detail or "failed the hidden tests"))
        return ""

    @property
    def session(self) -> str | None:
        """Its session file, relative to the bench folder, once known."""
        value = self.record.get("session") if self.record else None
        return value if isinstance(value, str) else None


def step_words(workflow: str) -> Callable[[str], str]:
    """How the bench's workflow names a step (its ``stage_words``:
    ``self_debug:2`` -> ``self-debug 2``); the plain name with spaces for a
    workflow not installed here."""
    spec = WORKFLOWS.get(workflow)
    return spec.step_label if spec is not None else short_step


def _status(row: BenchRow, colours: Palette, words: Callable[[str], str] = short_step) -> Text:
    if row.state == "done":
        if row.record and row.record.get("passed"):
            return Text("passed", style=f"bold {colours.success}")
        return Text("FAILED", style=f"bold {colours.error}")
    if row.state == "running":
        label = f"▶ {words(row.step)}" if row.step else "▶ starting"
        return Text(one_line(label), style=colours.accent, no_wrap=True, overflow="ellipsis")
    if row.state == "evaluating":
        return Text("evaluating", style=colours.accent)
    if row.state == "provider_error":
        return Text("provider error", style=colours.warning)
    if row.state == "error":
        return Text("error", style=colours.error)
    return Text(row.state, style=colours.muted)


def _step_cell(row: BenchRow, step: str, colours: Palette) -> Text:
    for s in row.record.get("steps", []) if row.record else []:
        if s.get("step") == step:
            mark, style = ("✓", colours.success) if s.get("passed") else ("✗", colours.error)
            if s.get("accepted"):
                style += " bold underline"  # the program the Code Quality Checker accepted by then
            return Text(mark, style=style, justify="center")
    return Text("·", style=colours.muted, justify="center")


def _tokens(n: int) -> str:
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    if n >= 1000:
        return f"{n / 1000:.1f}k"
    return str(n)


class BenchTable(ListTable):
    """One row per run, one column per workflow step seen in the results so far."""

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.rows_by_key: dict[str, BenchRow] = {}
        """Every run shown, by key, in the bench's order."""
        self.steps: list[str] = []
        """The step columns shown (the steps the finished runs went through, in Table 1's order)."""
        self.now: float | None = None
        """The app's clock at the last update, for the time of a running problem."""
        self._room = 0
        """The step names' room the columns were built with (see _label_room)."""
        self._why = 0
        """The width the "why" column was built with (below ``_WHY_MIN``: not shown)."""
        self.search = ""
        """Rows shown are those whose id, status or reason holds this (``/``); empty: all."""
        self._shown: list[str] = []
        """The keys of the rows on show, in order."""
        self._widths = dict(_WIDTHS)
        """The widths in use: the problem column fits the longest id shown."""
        self.words: Callable[[str], str] = short_step
        """How the bench's workflow names its steps (:func:`step_words`), set by the screen."""

    def _label_room(self) -> int:
        """Cells a step's column name may take: whole names ("program generator")
        where the table has room for them all, else 12, cut with an ellipsis."""
        whole = [max(3, min(len(self.words(step)), _WHOLE)) for step in self.steps]
        return _WHOLE if room_left(self, [*self._widths.values(), *whole, _WHY_MIN]) >= 0 else 12

    def on_resize(self) -> None:
        # Built again only when a column's width would change: a terminal being
        # dragged sends many resizes, and a bench may have hundreds of rows.
        if self.rows_by_key and (self._room, self._why) != (self._label_room(), self._why_width(self._label_room())):
            self.show(list(self.rows_by_key.values()))

    def _why_width(self, room: int) -> int:
        """The cells left for the "why" column with step names ``room`` wide."""
        steps = [max(3, len(one_line(self.words(step), room))) for step in self.steps]
        return room_left(self, [*self._widths.values(), *steps, 0])

    def _columns(self) -> None:
        self.clear(columns=True)
        self.add_column("problem", key="problem", width=self._widths["problem"])
        self.add_column("status", key="status", width=self._widths["status"])
        self._room = self._label_room()
        for step in self.steps:
            label = one_line(self.words(step), self._room)
            self.add_column(Text(label, justify="center"), key=f"step:{step}", width=max(3, len(label)))
        self.add_column(Text("tokens", justify="right"), key="tokens", width=_WIDTHS["tokens"])
        self.add_column(Text("time", justify="right"), key="time", width=_WIDTHS["time"])
        # What is left goes to why a problem failed; too narrow for it, the
        # column gives way to the line under the table, which shows it whole.
        self._why = self._why_width(self._room)
        if self._why >= _WHY_MIN:
            self.add_column("why", key="why", width=self._why)

    def _cells(self, row: BenchRow, colours: Palette) -> list[Text]:
        rec = row.record
        tokens = rec.get("tokens_total", row.tokens) if rec else row.tokens
        duration = rec.get("duration") if rec else None
        if duration is None and row.started is not None and self.now is not None and row.state != "not run":
            duration = max(0.0, self.now - row.started)
        return [
            Text(one_line(row.key), no_wrap=True, overflow="ellipsis"),
            _status(row, colours, self.words),
            *(_step_cell(row, step, colours) for step in self.steps),
            Text(_tokens(int(tokens or 0)) if tokens or row.record else "", justify="right"),
            Text(f"{float(duration):.1f}s" if duration is not None else "", justify="right"),
            *([Text(row.why, style=colours.muted, no_wrap=True, overflow="ellipsis")] if self._why >= _WHY_MIN else []),
        ]

    def matches(self, row: BenchRow) -> bool:
        """Whether ``row`` is shown under the search (case does not matter)."""
        if not self.search:
            return True
        return matches(f"{row.key} {_status(row, palette(self.app), self.words).plain} {row.why}", self.search)

    def show(self, rows: list[BenchRow]) -> None:
        """Show every row again (the first time, or when a new step column appears)."""
        colours = palette(self.app)
        keep = self.cursor_row
        self.rows_by_key = {r.key: r for r in rows}
        self.steps = step_columns(r.record for r in rows if r.record and r.state == "done")
        longest = max((len(one_line(r.key)) for r in rows), default=0)
        self._widths["problem"] = min(_PROBLEM_MAX, max(_WIDTHS["problem"], longest))
        self._columns()
        shown = [r for r in rows if self.matches(r)]
        self._shown = [r.key for r in shown]
        for r in shown:
            self.add_row(*self._cells(r, colours), key=r.key)
        if shown:
            self.move_cursor(row=min(max(keep, 0), len(shown) - 1))

    def search_for(self, text: str) -> None:
        """Show only the rows that hold every word of ``text``."""
        if text.strip() != self.search:
            self.search = text.strip()
            self.show(list(self.rows_by_key.values()))

    def update_rows(self, keys: list[str]) -> None:
        """Redraw the rows of ``keys`` (a new step column redraws the whole table)."""
        rows = list(self.rows_by_key.values())
        steps = step_columns(r.record for r in rows if r.record and r.state == "done")
        if steps != self.steps or self._shown != [r.key for r in rows if self.matches(r)]:
            self.show(rows)
            return
        colours = palette(self.app)
        columns = list(self.columns)
        for key in keys:
            row = self.rows_by_key.get(key)
            if row is None or key not in self._shown:
                continue
            for column, cell in zip(columns, self._cells(row, colours), strict=True):
                self.update_cell(key, column, cell)

    @property
    def selected(self) -> BenchRow | None:
        if not self.rows_by_key or self.cursor_row < 0 or self.cursor_row >= self.row_count:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        return self.rows_by_key.get(key) if key is not None else None
