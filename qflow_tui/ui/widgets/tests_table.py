"""The tests a run designed, judged or ran: each test, its judge's verdict with
its reasoning (a column named after the judging agent, QualityFlow's Test
Quality Checker, only for a workflow that declares one), and the test's last
execution result against the selected progression's program."""

from __future__ import annotations

from typing import Any, TypeVar, Unpack

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from ...core.safe_text import clean, one_line
from ..palette import Palette, palette
from ..state import RunState, RunText, SynthTest, SynthTests
from ..widget_options import WidgetOptions
from .columns import room_left
from .lists import ListTable

_Cell = TypeVar("_Cell")
"""What a table's cells hold; the columns do not look."""


#: How an edit a person made at a stop, not yet taken by the run, reads in the
#: TQC column (the run takes it when it goes on: then the row says ✎).
PENDING_WORDS = {"keep": "→ keep", "drop": "→ drop", "delete": "→ delete", "edit": "→ edit"}

#: What the detail says of a pending edit (``{judge}``: the judge's short name).
_PENDING_DETAIL = {
    "keep": "kept over the {judge} when the run goes on (space again: undo)",
    "drop": "dropped over the {judge} when the run goes on (space again: undo)",
    "delete": "deleted when the run goes on (d again: undo)",
    "edit": "replaced by your edit when the run goes on (t: change it)",
}


def _tqc_cell(t: SynthTest, colours: Palette, pending: str | None = None) -> Text:
    if pending is not None:
        return Text(PENDING_WORDS[pending], style=f"bold italic {colours.warning}")
    if t.steered:
        # A person's word over the TQC's (the detail below still gives the TQC's).
        return Text(f"✎ {t.steered}", style=f"bold {colours.accent}")
    if t.verdict is None:
        return Text("—" if t.source == "run" else "…", style=colours.muted)
    return Text(t.verdict, style=colours.outcome(t.verdict))


def _result_cell(t: SynthTest, progression: int, colours: Palette) -> Text:
    r = t.results.get(progression)
    if r is None:
        return Text("—", style=colours.muted)
    status = r.get("status", "?")
    if status == "fail" and r.get("actual") is not None:
        return Text(f"fail → {r['actual']}", style=colours.error)
    return Text(status, style=colours.outcome(status))


#: How a line break inside an I/O test's input or output reads on its one row.
LINE_BREAK = "⏎"


def io_row_text(given: str, expected: str, colours: Palette) -> Text:
    """An I/O test on one row: its input, an arrow, its expected output, each
    line break a ⏎ (the final one left out), e.g. ``1 2⏎3 → 6``; the row's
    end is cut with an ellipsis, the detail shows both whole."""

    def flat(text: str) -> str:
        return one_line(text.rstrip("\n").replace("\n", LINE_BREAK)) or "(empty)"

    out = Text(flat(given))
    out.append(" → ", style=f"bold {colours.muted}")
    out.append(flat(expected))
    return out


def _test_cell(t: SynthTest, colours: Palette, pending: str | None, pair: tuple[str, str] | None = None) -> Text:
    style = f"strike {colours.muted}" if pending == "delete" else ""
    cell = io_row_text(*pair, colours) if pair is not None else Text(t.test.replace("\n", " "))
    cell.stylize(style)
    cell.no_wrap, cell.overflow = True, "ellipsis"
    return cell


def _io_block(out: Text, title: str, text: str, colours: Palette) -> None:
    """One side of an I/O test in the detail: its title, then the text whole,
    line by line (a missing final newline said, as a judge would see it)."""
    out.append(f"\n{title}\n", style=f"bold {colours.muted}")
    body = clean(text)
    out.append(body.rstrip("\n") if body.strip("\n") else "(empty)")
    if text and not text.endswith("\n"):
        out.append("  (no final newline)", style=colours.muted)


def render_detail(
    t: SynthTest | None,
    index: int,
    progression: int,
    colours: Palette,
    pending: str | None = None,
    judge: str = "TQC",
    pair: tuple[str, str] | None = None,
) -> Text:
    """One test in full; ``judge``: the short name of the agent that judges the
    tests (empty: the workflow has none, and no verdict line is shown);
    ``pair``: an I/O test's stdin and expected stdout, shown whole, with what
    the program printed on its last run."""
    if t is None:
        return Text("No tests yet.", style=colours.muted)
    out = Text()
    out.append(f"#{index + 1} ", style="bold")
    if pair is not None:
        out.append("stdin/stdout test", style=f"bold {colours.muted}")
        _io_block(out, "input", pair[0], colours)
        _io_block(out, "expected output", pair[1], colours)
        out.append("\n")
    else:
        out.append(t.test + "\n")
    if pending is not None:
        out.append("pending ", style=f"bold {colours.muted}")
        out.append(_PENDING_DETAIL[pending].format(judge=judge or "judge") + "\n", style=colours.warning)
    if judge:
        out.append(f"{judge} ", style=f"bold {colours.muted}")
        if t.steered:
            out.append_text(_tqc_cell(t, colours))
            if t.source == "person":
                out.append(f" by a person (the {judge} does not judge it)", style=colours.muted)
            else:
                out.append(f" by a person; the {judge}: ", style=colours.muted)
                out.append_text(_tqc_cell(SynthTest(t.test, t.round, t.verdict, t.source), colours))
        else:
            out.append_text(_tqc_cell(t, colours))
    if t.value is not None:
        out.append("   reasoned value ", style=f"bold {colours.muted}")
        out.append(str(t.value))
    if t.detail:
        out.append(f"   {t.detail}", style=colours.muted)
    r = t.results.get(progression)
    if r is not None:
        when = r.get("when", "before")
        where = f"at {r.get('step')}" if when == "at" else f"{when} the {r.get('step')} fix"
        out.append(f"\nlast run (p{progression}'s program {where}) ", style=f"bold {colours.muted}")
        if pair is not None:
            status = r.get("status", "?")
            out.append(status, style=colours.outcome(status))
            if r.get("error"):
                out.append(f"  {one_line(str(r['error']))}", style=colours.error)
            if r.get("actual") is not None:
                out.append("\nprinted ", style=f"bold {colours.muted}")
                out.append(one_line(str(r["actual"])))
        else:
            out.append_text(_result_cell(t, progression, colours))
            if r.get("error") and r.get("status") != "fail":
                out.append(f"  {r['error']}", style=colours.error)
    if t.reasoning:
        out.append("\nreasoning ", style=f"bold {colours.muted}")
        out.append(t.reasoning.strip())
    return out


def _columns(judge: str) -> tuple[tuple[str, str, int], ...]:
    """The columns before the test's (label, key, width); the test's takes the
    rest. The judge's verdicts have a column only where the workflow has a judge."""
    verdicts = ((judge, "tqc", 9),) if judge else ()
    return (("#", "n", 3), *verdicts, ("last run", "run", 18))


class TestsTable(Vertical):
    """The tests as a table, the selected test's verdict and reasoning below it."""

    __test__ = False  # not a pytest test class

    ALLOW_MAXIMIZE = True
    """A pane the user can zoom (z, or the palette's Maximize); Textual's scroll
    containers refuse by default."""

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self._state: RunState | None = None
        self._progression = 0
        self._rows: list[tuple[str | None, str]] = []
        """What each row shows (verdict, last result), to update only changed cells."""
        self._theme = ""
        self._test_width = 0
        self._judge = ""
        """The judging agent's short name (the verdict column's title); empty: no column."""
        self.pending: dict[str, str] = {}
        """A person's edits at a stop not taken yet, by test: keep, drop, delete or edit
        (set by the run screen; see PENDING_WORDS)."""
        """Cells the test column has (0: not laid out yet): longer tests end in
        an ellipsis there, as the detail below shows them whole."""

    def compose(self) -> ComposeResult:
        yield Static(id="tests-summary")
        table: DataTable[Any] = ListTable(id="tests-grid", cursor_type="row", zebra_stripes=True)
        self._add_columns(table)
        yield table
        with VerticalScroll(id="tests-detail"):
            yield Static(id="tests-detail-body")

    def update_from(self, state: RunState, progression: int) -> None:
        self._state = state
        self._progression = progression
        colours = palette(self.app)
        table = self.query_one("#tests-grid", DataTable)
        theme = self.app.theme
        judge = state.short(state.test_judge) if state.test_judge else ""
        if judge != self._judge:
            self._judge = judge
            table.clear(columns=True)
            self._add_columns(table)
            self._rows = []
        tests = state.piece(SynthTests).tests
        if len(tests) < len(self._rows) or theme != self._theme:
            table.clear()  # a fresh run (or a replay going back), or new colours
            self._rows = []
            self._theme = theme
        # Rows already shown change in place (update_cell); new tests are appended.
        for i, t in enumerate(tests):
            pending = self.pending.get(t.test)
            shown = (f"{t.verdict}{t.steered}{pending}", repr(t.results.get(progression)))
            if i < len(self._rows):
                if self._rows[i] != shown:
                    self._rows[i] = shown
                    if judge:
                        table.update_cell(str(i), "tqc", _tqc_cell(t, colours, pending))
                    table.update_cell(str(i), "run", _result_cell(t, progression, colours))
                    table.update_cell(str(i), "test", _test_cell(t, colours, pending, state.io_pair(t.test)))
                continue
            self._rows.append(shown)
            verdict = [_tqc_cell(t, colours, pending)] if judge else []
            table.add_row(
                Text(str(i + 1)),
                *verdict,
                _result_cell(t, progression, colours),
                _test_cell(t, colours, pending, state.io_pair(t.test)),
                key=str(i),
            )
        # As the run uses them: a person's keep, drop, edit or own test counts (the
        # TQC column still shows the judge's verdict, ✎ where a person overrode it).
        counts = RunText(state).test_counts()
        summary = Text()
        if counts.designed or not counts.ran:
            most = f"/{counts.most}" if counts.most else ""
            summary.append(f"{counts.designed}{most} designed", style="bold")
        if counts.ran:
            summary.append(f"{' · ' if counts.designed else ''}{counts.ran} run", style="bold")
        if counts.kept or counts.rejected:
            summary.append(" · ")
            summary.append(f"{counts.kept} kept", style=colours.success)
            summary.append(" · ")
            summary.append(f"{counts.rejected} rejected", style=colours.error)
        run = state.sandbox_runs.get(progression)
        if run and run["purpose"] in ("self_debug", "after_debug"):
            when = "after" if run["purpose"] == "after_debug" else "before"
            summary.append(f" · p{progression} {when} the {run['step']} fix: {run['passed']}/{run['total']} pass")
        elif run:
            summary.append(f" · p{progression} at {run['step']}: {run['passed']}/{run['total']} pass")
        self.query_one("#tests-summary", Static).update(summary)
        self._show_detail()

    def _add_columns(self, table: DataTable[_Cell]) -> None:
        for label, key, width in _columns(self._judge):
            table.add_column(label, key=key, width=width)
        # As wide as the tests until the table has a width (on_resize).
        table.add_column("test", key="test", width=self._test_width or None)

    def on_resize(self) -> None:
        # The test column takes the width the others leave, so a long test ends
        # in an ellipsis (the detail below shows it whole) and the table never
        # scrolls sideways. Textual's table has no way to change a column's
        # width: it is built again with the new one, the selected row kept.
        table = self.query_one("#tests-grid", DataTable)
        widths = (width for _label, _key, width in _columns(self._judge))
        width = max(8, room_left(table, widths) - 2 * table.cell_padding)
        if width == self._test_width:
            return
        self._test_width = width
        row = table.cursor_row
        table.clear(columns=True)
        self._add_columns(table)
        self._rows = []
        if self._state is not None:
            self.update_from(self._state, self._progression)
            table.move_cursor(row=row, animate=False)

    def _show_detail(self) -> None:
        state = self._state
        if state is None:
            return
        table = self.query_one("#tests-grid", DataTable)
        i = table.cursor_row
        tests = state.piece(SynthTests).tests
        t = tests[i] if 0 <= i < len(tests) else None
        pending = self.pending.get(t.test) if t is not None else None
        self.query_one("#tests-detail-body", Static).update(
            render_detail(
                t,
                i,
                self._progression,
                palette(self.app),
                pending,
                self._judge,
                state.io_pair(t.test) if t is not None else None,
            )
        )

    @on(DataTable.RowHighlighted, "#tests-grid")
    def _show_selected_test(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()
