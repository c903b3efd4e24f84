"""The imagined-execution trace (QualityFlow Appendix G): for each visible test,
the model's step-by-step reasoning beside the assert it answered, the parsed
value and the verdict, next to the visible assert it was checked against."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from ..palette import Palette, palette
from ..state import ImaginedRecord, RunState


def _verdict(rec: ImaginedRecord, colours: Palette) -> Text:
    if rec.verdict is None:
        return Text("checking…", style=colours.accent)
    mark = "✓ pass" if rec.verdict == "pass" else "✗ fail"
    return Text(mark, style=f"bold {colours.outcome(rec.verdict)}")


def render_check(rec: ImaginedRecord, colours: Palette) -> Table:
    table = Table(box=None, expand=True, show_header=False, padding=(0, 1), show_edge=False)
    table.add_column("reasoning", ratio=3)
    table.add_column("check", ratio=2)
    check = Text()
    check.append("visible test\n", style=f"bold {colours.muted}")
    check.append(rec.test + "\n")
    check.append("answered\n", style=f"bold {colours.muted}")
    check.append((rec.answer or ("…" if rec.verdict is None else "(no answer)")) + "\n")
    check.append("value ", style=f"bold {colours.muted}")
    check.append(f"{rec.value if rec.value is not None else '—'}\n")
    check.append("verdict ", style=f"bold {colours.muted}")
    check.append_text(_verdict(rec, colours))
    if rec.detail:
        check.append(f"\n{rec.detail}", style=colours.error if rec.verdict == "fail" else colours.muted)
    reasoning = Text(rec.reasoning.strip() or ("…" if rec.verdict is None else "(no reasoning)"))
    table.add_row(reasoning, check)
    return table


def render_trace(state: RunState, progression: int, colours: Palette) -> Group | Text:
    records = state.imagined_for(progression)
    if not records:
        if state.config.get("checker", "imagined") != "imagined" and state.started:
            return Text(
                f"The checker of this run is {state.config.get('checker')!r}: no imagined execution.",
                style=colours.muted,
            )
        return Text(f"No imagined execution yet for progression {progression}.", style=colours.muted)
    order = {s: i for i, s in enumerate(state.planned_stages())}
    records.sort(key=lambda r: order.get(r.step or "", 99))
    parts: list = []
    stage = object()
    for rec in records:
        if rec.step != stage:
            stage = rec.step
            passed = [r for r in records if r.step == stage]
            ok = sum(1 for r in passed if r.verdict == "pass")
            done = sum(1 for r in passed if r.verdict is not None)
            head = Text()
            head.append(f"{stage} · progression {progression} · ", style="bold")
            head.append(
                f"{ok}/{len(passed)} pass",
                style=colours.outcome("pass" if ok == len(passed) else ("fail" if done == len(passed) else "running")),
            )
            parts.append(Text(""))
            parts.append(head)
        parts.append(Text("─" * 8, style=colours.muted))
        parts.append(render_check(rec, colours))
    return Group(*parts[1:])


class ImaginedTrace(VerticalScroll, can_focus=True):
    """Imagined execution of the visible tests, for the selected progression."""

    ALLOW_MAXIMIZE = True
    """A pane the user can zoom (z, or the palette's Maximize); Textual's scroll
    containers refuse by default."""

    def compose(self):
        yield Static(id="imagined-body")

    def update_from(self, state: RunState, progression: int) -> None:
        self.query_one("#imagined-body", Static).update(render_trace(state, progression, palette(self.app)))
