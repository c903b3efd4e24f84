"""The workflow timeline: Algorithm 1's steps as rows, progressions as columns,
each cell saying how that step went and what the Quality Checker decided."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from ..palette import Palette, palette
from ..state import AGENT_SHORT, SHARED_STEPS, RunState, StageCell

#: What a cell says when the checker has decided, or the step is under way.
_DECISION_WORDS = {"accept": "ACCEPT", "continue": "continue", "clarify": "clarify", "revert": "REVERT"}
_STATUS_WORDS = {
    "running": "running…",
    "checking": "checking…",
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
        word = _DECISION_WORDS.get(cell.decision, cell.decision)
        style = colours.outcome(cell.decision)
        return Text(word, style=f"bold {style}" if cell.decision in ("accept", "revert") else style)
    return Text(_STATUS_WORDS.get(cell.status, cell.status), style=colours.outcome(cell.status))


def render_timeline(state: RunState, selected: int, colours: Palette) -> Group:
    table = Table(box=None, padding=(0, 1), expand=False, show_edge=False, header_style="bold")
    table.add_column("", no_wrap=True, width=1)
    table.add_column("step", no_wrap=True)
    n = state.progressions
    for p in range(n):
        style = f"bold underline {colours.primary}" if p == selected else ""
        table.add_column(Text(f"p{p}", style=style), no_wrap=True, min_width=8)
    finished = state.done
    for stage in state.planned_stages():
        current = stage == state.current_step and not finished
        marker = Text("▶", style=f"bold {colours.accent}") if current else Text(" ")
        name = Text(stage, style=f"bold {colours.accent}" if current else "")
        if stage in SHARED_STEPS:
            cell = state.cells.get((stage, None))
            detail = cell.detail if cell and cell.detail else ("·" if cell is None else _STATUS_WORDS.get(cell.status, cell.status))
            style = colours.outcome(cell.status) if cell and not cell.detail else (colours.muted if cell is None else "")
            table.add_row(marker, name, Text(detail, style=style), *([""] * (n - 1)))
            continue
        if stage == "revert":
            cells = [state.cells.get((stage, None)) or state.cells.get((stage, 0))]
            cells += [None] * (n - 1)
            row = [cell_text(cells[0], colours) if cells[0] else Text("·", style=colours.muted)]
            row += [Text("") for _ in range(n - 1)]
            table.add_row(marker, name, *row)
            continue
        table.add_row(marker, name, *(cell_text(state.cells.get((stage, p)), colours) for p in range(n)))
    return Group(table, Text(""), *decision_lines(state, selected, colours))


def decision_lines(state: RunState, selected: int, colours: Palette) -> list[Text]:
    """The decisions that followed each step, for the selected progression."""
    lines: list[Text] = [Text(f"Decisions for progression {selected}", style="bold")]
    any_decision = False
    for stage in state.planned_stages():
        cell = state.cells.get((stage, selected))
        if cell is None or not cell.decision:
            continue
        any_decision = True
        line = Text("  ")
        line.append(f"{stage}: ", style="bold")
        line.append(_DECISION_WORDS.get(cell.decision, cell.decision), style=colours.outcome(cell.decision))
        if cell.reason:
            line.append(f" — {cell.reason}", style=colours.muted)
        lines.append(line)
    if not any_decision:
        lines.append(Text("  none yet", style=colours.muted))
    if state.tokens:
        lines.append(Text(""))
        lines.append(Text("Tokens per agent (in / out, calls)", style="bold"))
        for agent, t in sorted(state.tokens.items()):
            lines.append(Text(f"  {AGENT_SHORT.get(agent, agent):>4} {agent:<22} {t.input:>7} / {t.output:<7} {t.calls:>3}"))
    return lines


class Timeline(VerticalScroll, can_focus=True):
    """Algorithm 1 as it runs: the current step highlighted, finished steps marked."""

    def compose(self):
        yield Static(id="timeline-body")

    def update_from(self, state: RunState, selected: int) -> None:
        self.query_one("#timeline-body", Static).update(render_timeline(state, selected, palette(self.app)))
