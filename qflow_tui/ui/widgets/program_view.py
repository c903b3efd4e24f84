"""The program: the final one under an ACCEPTED / REVERTED banner once the run
ends (the selected progression's current one while it runs), syntax-highlighted,
with a diff against the first generated program."""

from __future__ import annotations

import difflib

from rich.console import RenderableType
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...core.visible_check import visible_line
from ..palette import Palette, palette
from ..state import RunState


def shown_program(state: RunState, progression: int) -> tuple[str, str]:
    """(program, first program) the view shows: the final result once there is one."""
    if state.finished is not None:
        first = state.finished.first_program or state.first_program(0)
        return state.finished.final_program, first
    current = state.current_program(progression)
    return (current[1] if current else ""), state.first_program(progression)


def selected_program(state: RunState, progression: int) -> tuple[str, str]:
    """(program, what it is in words) for the selected progression: the run's
    final program when that progression gave it (or once the run has ended and
    the progression wrote none), else the progression's latest program."""
    f = state.finished
    current = state.current_program(progression)
    if f is not None and f.final_program and (f.progression in (None, progression) or current is None):
        return f.final_program, f"the final program ({f.outcome})"
    if current is None:
        return "", f"p{progression} has no program yet"
    step, program = current
    return program, f"p{progression}'s program" + (f" after {step}" if step else "")


def banner(state: RunState, progression: int, colours: Palette) -> tuple[Text, str]:
    """The banner text and its CSS class (-accepted, -reverted, -running, ...).
    A finished run's banner says, on a line of its own, how the final program
    did on the visible tests when the run ran it on them (``visible_tests_run``)."""
    text, cls = _banner(state, progression)
    if state.finished is not None and state.visible_run is not None:
        text.append("\n" + visible_line(state.visible_run))
    return text, cls


def _banner(state: RunState, progression: int) -> tuple[Text, str]:
    f = state.finished
    if f is not None:
        p = f" (progression {f.progression})" if f.progression is not None else ""
        if f.outcome == "accepted":
            return Text(f"ACCEPTED at {f.accepted_at}{p}"), "-accepted"
        if f.outcome == "reverted":
            return Text("REVERTED to the first generated program: no program passed the quality checks"), "-reverted"
        if f.outcome == "unchecked":
            return Text("UNCHECKED: no quality checker ran; the last program stands"), "-unchecked"
        return Text(f"{f.outcome.upper()}: the last program, not accepted"), "-reverted"
    if state.failed is not None:
        what = "CANCELLED" if state.failed.cancelled else "FAILED"
        return Text(f"{what}: {state.failed.error}"), "-failed"
    current = state.current_program(progression)
    if current is None:
        return Text(f"No program yet for progression {progression}"), "-pending"
    return Text(f"RUNNING · progression {progression}'s program after {current[0]}"), "-running"


def render_diff(first: str, final: str, colours: Palette) -> Text:
    if not first:
        return Text("(no first program to compare with)", style=colours.muted)
    if first == final:
        return Text("identical to the first generated program", style=colours.muted)
    out = Text()
    lines = difflib.unified_diff(
        first.splitlines(), final.splitlines(), "first program", "this program", lineterm="", n=2
    )
    for line in lines:
        if line.startswith(("+++", "---")):
            out.append(line + "\n", style="bold")
        elif line.startswith("@@"):
            out.append(line + "\n", style=colours.accent)
        elif line.startswith("+"):
            out.append(line + "\n", style=colours.success)
        elif line.startswith("-"):
            out.append(line + "\n", style=colours.error)
        else:
            out.append(line + "\n")
    out.rstrip()
    return out


def render_side_by_side(first: str, final: str, colours: Palette) -> RenderableType:
    """The diff as two columns, the first program beside this one: changed
    lines paired, removed ones on the left only, added ones on the right only."""
    if not first or first == final:
        return render_diff(first, final, colours)
    a, b = first.splitlines(), final.splitlines()
    table = Table(expand=True, box=None, pad_edge=False, show_edge=False, header_style="bold")
    table.add_column("first program", ratio=1, overflow="fold")
    table.add_column("this program", ratio=1, overflow="fold")
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        left, right = a[i1:i2], b[j1:j2]
        if tag == "equal":
            for same_a, same_b in zip(left, right, strict=True):
                table.add_row(Text(same_a), Text(same_b))
            continue
        for n in range(max(len(left), len(right))):
            gone = Text("- " + left[n], style=colours.error) if n < len(left) else Text("")
            came = Text("+ " + right[n], style=colours.success) if n < len(right) else Text("")
            table.add_row(gone, came)
    return table


class ProgramView(VerticalScroll, can_focus=True):
    """Banner, program, diff against the first program (unified, or side by side: v)."""

    BINDINGS = [
        Binding(
            "v",
            "toggle_side_by_side",
            "Diff side by side",
            show=False,
            tooltip="Show the diff against the first program side by side (again: as one column)",
        )
    ]

    side_by_side = False
    """Whether the diff shows the two programs side by side."""

    ALLOW_MAXIMIZE = True
    """A pane the user can zoom (z, or the palette's Maximize); Textual's scroll
    containers refuse by default."""

    def compose(self) -> ComposeResult:
        yield Static(id="program-banner")
        yield Static(id="program-code")
        yield Static("Diff against the first generated program", id="program-diff-title")
        yield Static(id="program-diff")

    def action_toggle_side_by_side(self) -> None:
        self.side_by_side = not self.side_by_side
        if self._last is not None:
            self.update_from(*self._last)

    _last: tuple[RunState, int] | None = None

    def update_from(self, state: RunState, progression: int) -> None:
        self._last = (state, progression)
        colours = palette(self.app)
        text, cls = banner(state, progression, colours)
        b = self.query_one("#program-banner", Static)
        b.set_classes(cls)
        b.update(text)
        program, first = shown_program(state, progression)
        code = self.query_one("#program-code", Static)
        if program:
            code.update(
                Syntax(
                    program.rstrip("\n"),
                    "python",
                    theme=colours.syntax_theme,
                    background_color=colours.background,
                    word_wrap=True,
                )
            )
        else:
            code.update(Text(""))
        diff = render_side_by_side if self.side_by_side else render_diff
        self.query_one("#program-diff", Static).update(diff(first, program, colours) if program else Text(""))
        title = self.query_one("#program-diff-title", Static)
        title.display = bool(program)
        title.update(
            "Diff against the first generated program" + (" (side by side; v: one column)" if self.side_by_side else "")
        )
