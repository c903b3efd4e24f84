"""The imagined-execution trace (QualityFlow Appendix G): for each visible test,
the model's step-by-step reasoning beside the assert it answered, the parsed
value and the verdict, next to the visible assert it was checked against."""

from __future__ import annotations

from typing import Any, Unpack

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...core.safe_text import clean
from ..palette import Palette, palette
from ..state import ImaginedChecks, ImaginedRecord, RunState
from ..widget_options import WidgetOptions


def _verdict(rec: ImaginedRecord, colours: Palette) -> Text:
    if rec.verdict is None:
        return Text("checking…", style=colours.accent)
    mark = "✓ pass" if rec.verdict == "pass" else "✗ fail"
    return Text(mark, style=f"bold {colours.outcome(rec.verdict)}")


def _block(check: Text, title: str, text: str | None, colours: Palette, style: str = "") -> None:
    check.append(f"{title}\n", style=f"bold {colours.muted}")
    body = clean(text or "").rstrip("\n")
    check.append((body if body.strip() else "(nothing)") + "\n", style=style)


def render_io_check(rec: ImaginedRecord, pair: tuple[str, str] | None, colours: Palette) -> Text:
    """The check of a stdin/stdout test: the input the program reads, what the
    model imagined it prints (the answer of its second turn), the test's
    expected output, and the verdict of comparing them as the judge does."""
    check = Text()
    given = pair[0] if pair is not None else rec.function_call
    _block(check, "input", given, colours)
    if rec.value is not None:
        ok = rec.verdict == "pass"
        _block(
            check,
            "imagined output",
            rec.value,
            colours,
            colours.outcome("pass" if ok else "fail") if rec.verdict else "",
        )
    else:
        check.append("imagined output\n", style=f"bold {colours.muted}")
        check.append(("…" if rec.verdict is None else "(no output could be read from the answer)") + "\n")
    if pair is not None:
        _block(check, "expected output", pair[1], colours)
    check.append("verdict ", style=f"bold {colours.muted}")
    check.append_text(_verdict(rec, colours))
    if rec.detail:
        check.append(f"\n{clean(rec.detail)}", style=colours.error if rec.verdict == "fail" else colours.muted)
    return check


def render_check(rec: ImaginedRecord, colours: Palette, pair: tuple[str, str] | None = None, io: bool = False) -> Table:
    """One imagined execution: the reasoning beside what it was checked
    against (``io``: a stdin/stdout test, ``pair`` its input and expected output)."""
    table = Table(box=None, expand=True, show_header=False, padding=(0, 1), show_edge=False)
    table.add_column("reasoning", ratio=3)
    table.add_column("check", ratio=2)
    if io:
        reasoning = Text(clean(rec.reasoning.strip()) or ("…" if rec.verdict is None else "(no reasoning)"))
        table.add_row(reasoning, render_io_check(rec, pair, colours))
        return table
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


def trace_groups(state: RunState, progression: int, colours: Palette) -> list[tuple[str | None, Group]]:
    """The checks of one progression, one group per checked step, in plan order."""
    records = state.piece(ImaginedChecks).of(progression)
    order = {s: i for i, s in enumerate(state.planned_stages())}
    records.sort(key=lambda r: order.get(r.step or "", 99))
    groups: list[tuple[str | None, Group]] = []
    steps: list[str | None] = []
    for rec in records:
        if rec.step not in steps:
            steps.append(rec.step)
    for step in steps:
        checks = [r for r in records if r.step == step]
        ok = sum(1 for r in checks if r.verdict == "pass")
        done = sum(1 for r in checks if r.verdict is not None)
        head = Text()
        head.append(f"{step} · progression {progression} · ", style="bold")
        head.append(
            f"{ok}/{len(checks)} pass",
            style=colours.outcome("pass" if ok == len(checks) else ("fail" if done == len(checks) else "running")),
        )
        parts: list[Any] = [head]
        for rec in checks:
            parts.append(Text("─" * 8, style=colours.muted))
            parts.append(render_check(rec, colours, state.io_pair(rec.test), state.is_io))
        parts.append(Text(""))
        groups.append((step, Group(*parts)))
    return groups


def empty_trace(state: RunState, progression: int, colours: Palette) -> Text:
    if state.started and "imagined" not in state.tabs:
        return Text("This run's workflow does not imagine execution (its settings say so).", style=colours.muted)
    return Text(f"No imagined execution yet for progression {progression}.", style=colours.muted)


class ImaginedTrace(VerticalScroll, can_focus=True):
    """Imagined execution of the visible tests, for the selected progression: one
    block per checked step. When the run has been accepted, the trace opens on
    the accepting check (not on the first, failing one)."""

    ALLOW_MAXIMIZE = True
    """A pane the user can zoom (z, or the palette's Maximize); Textual's scroll
    containers refuse by default."""

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self._landed: tuple[int, str] | None = None
        self._landed_at: float | None = None
        """Where the last landing scrolled to (a person scrolling elsewhere keeps their place)."""

    def compose(self) -> ComposeResult:
        yield Static(id="imagined-body")

    def update_from(self, state: RunState, progression: int) -> None:
        colours = palette(self.app)
        groups = trace_groups(state, progression, colours)
        empty = self.query_one("#imagined-body", Static)
        empty.display = not groups
        if not groups:
            empty.update(empty_trace(state, progression, colours))
        blocks = list(self.query(".imagined-step").results(Static))
        for block in blocks[len(groups) :]:
            block.remove()
        fresh: list[Static] = []
        for i, (step, group) in enumerate(groups):
            if i < len(blocks):
                blocks[i].update(group)
                blocks[i].step = step  # type: ignore[attr-defined]
            else:
                block = Static(group, classes="imagined-step")
                block.step = step  # type: ignore[attr-defined]
                fresh.append(block)
        if fresh:
            self.mount_all(fresh)
        accepted = state.finished.accepted_at if state.finished is not None else None
        if accepted and state.finished is not None and state.finished.progression == progression:
            # Land on the accepting check, and again after a redraw that may have
            # moved it (blocks that wrap anew once the scrollbar shows), as long
            # as the person has not scrolled away from where it landed.
            if self._landed != (progression, accepted) or self.scroll_y == self._landed_at:
                self._landed = (progression, accepted)
                self.call_after_refresh(self._land_on, accepted)
        else:
            self._landed = None

    def _land_on(self, step: str, tries: int = 8) -> None:
        for block in self.query(".imagined-step").results(Static):
            if getattr(block, "step", None) == step:
                self.scroll_to_widget(block, animate=False, top=True, immediate=True)
                self._landed_at = self.scroll_y
                # The blocks may still be laid out anew (wrapped again once the
                # scrollbar shows): look once more after the next refresh.
                if tries > 1:
                    self.call_after_refresh(self._check_landing, step, block, tries - 1)
                return

    def _check_landing(self, step: str, block: Static, tries: int) -> None:
        if self.scroll_y != self._landed_at:
            return  # the person scrolled: their place is kept
        if self.scroll_y != min(block.virtual_region.y, self.max_scroll_y):
            self._land_on(step, tries)
