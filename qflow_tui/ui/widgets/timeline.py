"""The workflow timeline: the steps of the run's plan as rows, progressions as columns,
each cell saying how that step went and what the Quality Checker decided."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Unpack

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static

from ...core import events as ev
from ...core.steer.edits import steered_words
from ...core.steps import decision_said
from ..palette import Palette, palette
from ..state import RunState, StageCell
from ..widget_options import WidgetOptions

#: What a cell says when the checker has decided, or the step is under way.
_DECISION_WORDS = {"accept": "ACCEPT", "continue": "continue", "clarify": "clarify", "revert": "REVERT"}
#: Each fits a progression's cell (CELL_WIDTH less the space between cells):
#: "checking…" did not, and read "checkin…" at any width.
_STATUS_WORDS = {
    "running": "running…",
    "checking": "checking",
    "done": "done",
    "accepted": "accepted",
    "rejected": "rejected",
    "skipped": "skipped",
    "failed": "failed",
    "pending": "·",
}


def cell_text(cell: StageCell | None, colours: Palette) -> Text:
    if cell is None:
        return Text("·", style=colours.muted)
    if cell.decision:
        # The workflow's own word when it has one (MapCoder's "next plan").
        word = cell.word or _DECISION_WORDS.get(cell.decision, cell.decision)
        style = colours.outcome(cell.decision)
        return Text(word, style=f"bold {style}" if cell.decision in ("accept", "revert") else style)
    return Text(_STATUS_WORDS.get(cell.status, cell.status), style=colours.outcome(cell.status))


STEP_WIDTH = 21
"""The step column's width, grown (up to MAX_STEP_WIDTH) for longer step names."""
MAX_STEP_WIDTH = 30
CELL_WIDTH = 9
#: The widest a cell grows for a workflow's own decision words.
MAX_CELL_WIDTH = 16


def _pad(text: Text, width: int) -> Text:
    text = text.copy()
    text.truncate(width - 1, overflow="ellipsis", pad=False)
    text.pad_right(width - text.cell_len)
    return text


def _steered_row(e: ev.Steered, colours: Palette) -> Text:
    row = Text("    ✎ ", style=f"bold {colours.accent}")
    row.append("steered ", style=f"bold {colours.accent}")
    if e.progression is not None:
        row.append(f"p{e.progression} ", style="bold")
    # Who first: the words run to the row's end and are cut there, once.
    row.append(f"by {e.who}: ", style=colours.muted)
    row.append(steered_words(e, limit=None))
    row.no_wrap = True
    row.overflow = "ellipsis"
    return row


def render_timeline(
    state: RunState,
    selected: int,
    colours: Palette,
    side_by_side: bool = False,
    cursor: int | None = None,
    marks: frozenset[str] = frozenset(),
) -> RenderableType:
    """Rows of fixed-width cells (a shared step's detail runs across the columns);
    under a step, a row for each edit a person made there. ``cursor``: the
    highlighted step row; ``marks``: steps with a breakpoint (●)."""
    n = state.progressions
    lines: list[Text] = []
    head = Text()
    stages = state.planned_stages()
    # Each step in the workflow's words (its plan's labels, its stage words):
    # ``self-debug 2``, MapCoder's ``debug round 2``; the name is what
    # breakpoints and ``fork --at`` take, and the Break-at field completes it.
    words = {stage: state.step_label(stage) for stage in stages}
    width = min(MAX_STEP_WIDTH, max([STEP_WIDTH, *(len(w) + 1 for w in words.values())]))
    # A workflow's own decision words ("next plan") widen the cells to fit them whole.
    cell_width = min(MAX_CELL_WIDTH, max([CELL_WIDTH, *(len(c.word) + 1 for c in state.cells.values() if c.word)]))
    head.append("  " + "step".ljust(width), style="bold")
    for p in range(n):
        style = f"bold underline {colours.primary}" if p == selected else "bold"
        head.append_text(_pad(Text(f"p{p}", style=style), cell_width))
    head.rstrip()
    lines.append(head)
    finished = state.done
    for row, stage in enumerate(stages):
        current = stage == state.current_step and not finished
        line = Text()
        if stage in marks:
            line.append("● ", style=f"bold {colours.error}")
        else:
            line.append("▶ " if current else "  ", style=f"bold {colours.accent}")
        name_style = f"bold {colours.accent}" if current else ""
        if row == cursor:
            name_style = f"{name_style} reverse".strip()
        line.append_text(_pad(Text(words[stage], style=name_style), width))
        if state.is_shared(stage):
            cell = state.cells.get((stage, None)) or state.cells.get((stage, 0))
            if cell is None:
                line.append("·", style=colours.muted)
            elif cell.decision:
                verdict, _word, rest = decision_said(cell.decision, cell.reason or "")
                if verdict:
                    line.append(f"{verdict}, so ", style=colours.outcome(verdict))
                line.append_text(cell_text(cell, colours))
                if rest:
                    line.append(f"{':' if verdict else ' '} {rest}", style=colours.muted)
            else:
                word = _STATUS_WORDS.get(cell.status, cell.status)
                line.append(cell.detail or word, style=colours.outcome(cell.status) if not cell.detail else "")
                if cell.detail and cell.status in ("running", "checking"):
                    line.append(" …", style=colours.accent)
        else:
            for p in range(n):
                line.append_text(_pad(cell_text(state.cells.get((stage, p)), colours), cell_width))
        line.rstrip()  # a last cell's padding is no content to cut with an ellipsis
        line.no_wrap = True
        line.overflow = "ellipsis"
        lines.append(line)
        lines += [_steered_row(e, colours) for e in state.steered_at(stage)]
    lines += [_steered_row(e, colours) for e in state.steered if (e.step or "") not in stages]
    decisions = decision_lines(state, selected, colours)
    if side_by_side:
        grid = Table.grid(padding=(0, 3))
        grid.add_column(no_wrap=True)
        grid.add_column(ratio=1)
        grid.add_row(Group(*lines), Group(*decisions))
        return grid
    return Group(*lines, Text(""), *decisions)


def decision_lines(state: RunState, selected: int, colours: Palette) -> list[RenderableType]:
    """The decisions that followed each step, for the selected progression (for
    a workflow whose steps end in decisions), then the tokens per agent."""
    lines: list[RenderableType] = []
    if state.decided:
        lines.append(Text(f"Decisions for progression {selected}", style="bold"))
        any_decision = False
        for stage in state.planned_stages():
            cell = state.cells.get((stage, selected))
            if cell is None or not cell.decision:
                continue
            any_decision = True
            line = Text()
            line.append(f"{state.step_label(stage)}: ", style="bold")
            verdict, word, rest = decision_said(cell.word or cell.decision, cell.reason or "")
            if verdict:  # "rejected, so continue: on to self-debugging"
                line.append(f"{verdict}, so ", style=colours.outcome(verdict))
            line.append(_DECISION_WORDS.get(word, word), style=colours.outcome(cell.decision))
            if rest:
                line.append(f"{':' if verdict else ' '} {rest}", style=colours.muted)
            # Indented as a whole: a reason that wraps (80 columns) goes on under
            # the decision it belongs to, not at the edge under the heading.
            indented = Table.grid()
            indented.add_column(width=2)
            indented.add_column(ratio=1)
            indented.add_row("", line)
            lines.append(indented)
        if not any_decision:
            lines.append(Text("  none yet", style=colours.muted))
    if state.tokens:
        if lines:
            lines.append(Text(""))
        lines.append(Text("Tokens per agent (in / out, calls)", style="bold"))
        width = max([4, *(len(state.short(agent)) for agent in state.tokens)])
        for agent, t in sorted(state.tokens.items()):
            short = state.short(agent)
            lines.append(Text(f"  {short:>{width}} {agent:<22} {t.input:>7} / {t.output:<7} {t.calls:>3}"))
    return lines


class Timeline(VerticalScroll, can_focus=True):
    """The workflow's plan as it runs: the current step highlighted, finished steps marked.
    As a band across a wide screen, the decisions sit beside the steps.

    A live run's screen gives it a ``cursor``: up and down then move a highlight
    over the step rows (to set a breakpoint there) instead of scrolling."""

    ALLOW_MAXIMIZE = True
    """A pane the user can zoom (z, or the palette's Maximize); Textual's scroll
    containers refuse by default."""

    BINDINGS = [
        Binding("up,k", "move_cursor(-1)", "Previous step", show=False),
        Binding("down,j", "move_cursor(1)", "Next step", show=False),
        Binding("g", "move_to(0)", "First step", show=False),
        Binding("G", "move_to(-1)", "Last step", show=False),
    ]

    @dataclass
    class Highlighted(Message):
        """The step row under the cursor changed."""

        timeline: Timeline
        step: str

    def __init__(self, *, side_by_side: bool = False, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.side_by_side = side_by_side
        self.cursor: int | None = None
        """The highlighted step row; None: no cursor (up and down scroll)."""
        self.marks: frozenset[str] = frozenset()
        """Steps with a breakpoint, marked ●."""
        self._state: RunState | None = None
        self._selected = 0

    def compose(self) -> ComposeResult:
        yield Static(id="timeline-body")

    @property
    def highlighted(self) -> str | None:
        """The step under the cursor."""
        stages = self._state.planned_stages() if self._state is not None else []
        if self.cursor is None or not stages:
            return None
        return stages[min(self.cursor, len(stages) - 1)]

    def update_from(self, state: RunState, selected: int) -> None:
        self._state, self._selected = state, selected
        self.query_one("#timeline-body", Static).update(
            render_timeline(
                state,
                selected,
                palette(self.app),
                self.side_by_side,
                # The highlight shows where b would set a breakpoint: only while the keys reach it.
                self.cursor if self.has_focus else None,
                self.marks,
            )
        )

    def _repaint(self) -> None:
        if self._state is not None and self.cursor is not None:
            self.update_from(self._state, self._selected)

    def watch_has_focus(self, has_focus: bool) -> None:
        # Here, not in on_focus: a Focus event reaches this class's handler before
        # Widget's sets has_focus, and the cursor was drawn as if unfocused (no
        # highlight after pressing 1 until some later repaint).
        super().watch_has_focus(has_focus)
        self._repaint()

    def action_move_to(self, row: int) -> None:
        """The first step (0) or the last (-1)."""
        stages = self._state.planned_stages() if self._state is not None else []
        if self.cursor is None or not stages:
            (self.scroll_home if row == 0 else self.scroll_end)(animate=False)
            return
        self.action_move_cursor((0 if row == 0 else len(stages) - 1) - self.cursor)

    def action_move_cursor(self, delta: int) -> None:
        stages = self._state.planned_stages() if self._state is not None else []
        if self.cursor is None or not stages:
            # No cursor (a replay, the run's end): the keys scroll, as they always did.
            (self.scroll_up if delta < 0 else self.scroll_down)()
            return
        self.cursor = max(0, min(len(stages) - 1, self.cursor + delta))
        self.update_from(self._state or RunState(), self._selected)
        step = self.highlighted
        if step is not None:
            self.post_message(self.Highlighted(self, step))
