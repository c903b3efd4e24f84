"""One pane per agent role, its model calls streaming in as the model writes,
for the selected progression (run-wide agents show their calls in every one)."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Mapping
from functools import partial
from typing import Unpack

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from ...core.safe_text import one_line
from ..palette import Palette, palette
from ..state import AgentInfo, CallRecord, RunState, StageCell
from ..widget_options import WidgetOptions
from .search_line import matches


def step_words(state: RunState, call: CallRecord) -> str:
    """A call's step as its header says it: the plan's words for the step
    (``generate``, ``self-debug 1``), after "on" when the call's agent is not
    the one whose step it is (the checker's calls on the generator's step read
    as the generator's otherwise)."""
    if not call.step:
        return ""
    planned = state.plan_step(call.step)
    if planned.agents and call.agent != planned.agents[0]:
        return f"on {planned.label}"
    return planned.label


def call_header(call: CallRecord, colours: Palette, where: str | None = None) -> Text:
    """``where``: the step in words (see :func:`step_words`); the step's name when not given."""
    run_wide = call.progression is None
    bits = [call.step or "" if where is None else where]
    if call.epoch:
        bits.append(f"epoch {call.epoch}")
    if call.attempt and not call.test:
        # A run-wide agent's attempts are rounds (test design); a progression's are retries.
        bits.append(f"round {call.attempt}" if run_wide else f"attempt {call.attempt}")
    if call.turn > 1:
        bits.append(f"turn {call.turn}")
    if call.test and not run_wide:
        # The test a progression's call is about; a run-wide call's test is its whole output.
        bits.append(one_line(call.test, 60))
    # A call waiting for its first token says so in its body (render_call): said
    # in the header too, a narrow pane wrapped it onto a line of its own above
    # the same words.
    status = {"streaming": "…" if call.text else "", "done": "", "failed": "failed"}.get(call.status, call.status)
    text = Text()
    text.append(f"── {call.call_id} ", style=colours.muted)
    text.append(" · ".join(b for b in bits if b), style=f"bold {colours.primary}")
    if status:
        text.append(f" {status}", style=colours.outcome("failed" if call.status == "failed" else "streaming"))
    return text


def retry_line(call: CallRecord, left: float | None = None) -> str:
    """What became of a failed attempt's retry, in words; ``left`` is the live
    countdown in seconds (a replay shows the recorded wait)."""
    of = f"attempt {call.retry_attempt} of {call.retry_attempts}"
    if call.retry == "waiting":
        when = f"in {math.ceil(left)} s" if left is not None else f"in {call.retry_wait:.1f} s"
        return f"↻ retrying: {of} {when}"
    if call.retry == "retried":
        return f"↻ retried: {of}"
    if call.retry == "given_up":
        return f"✗ retry given up by the user ({of} not made)"
    if call.retry == "stopped":
        return f"↻ retry not made ({of}): the run ended"
    return ""


def render_call(call: CallRecord, colours: Palette, left: float | None = None, where: str | None = None) -> Text:
    out = call_header(call, colours, where)
    out.append("\n")
    if call.text:
        out.append(call.text.rstrip("\n"))
    elif call.status == "streaming":
        out.append("waiting for the first token…", style=colours.muted)
    if call.cut:
        out.append(f"\n✂ {call.cut}", style=colours.error)
    if call.status == "failed" and call.error:
        out.append(f"\n{call.error}", style=colours.error)
    if call.retry:
        out.append(f"\n{retry_line(call, left)}", style=colours.error)
    return out


def render_step(stage: str, cell: StageCell, colours: Palette) -> Text:
    """A step of an agent that calls no model: what it did, and with what outcome."""
    out = Text()
    out.append(f"── {stage} ", style=colours.muted)
    out.append(cell.status, style=colours.outcome(cell.status))
    if cell.decision:
        out.append(f" · {cell.decision}", style=f"bold {colours.primary}")
    for line in (cell.detail, cell.reason):
        if line:
            out.append(f"\n{line}")
    return out


class _Block:
    """One model call (or the pane's note) wrapped to the pane's width."""

    __slots__ = ("fingerprint", "key", "strips")

    def __init__(self, key: str) -> None:
        self.key = key
        self.fingerprint: tuple[object, ...] = ()
        self.strips: list[Strip] = []


class AgentPane(ScrollView, can_focus=True):
    """The streamed output of one agent. Follows the tail unless scrolled up.

    The pane draws its lines itself (Textual's line API): each call is wrapped
    once, a streaming call is re-wrapped alone when it grows, and only the
    lines on screen are painted. Growing changes the pane's scrollable height,
    never its size on screen, so a token never reflows the screen's layout
    (a reflow costs tens of milliseconds with six panes streaming)."""

    ALLOW_MAXIMIZE = True
    """A pane the user can zoom (z, or the palette's Maximize); Textual's scroll
    containers refuse by default."""

    BINDINGS = [
        Binding("slash", "search", "Search", key_display="/", show=False, tooltip="Find words in this agent's output")
    ]

    class SearchRequested(Message):
        """The pane asks its screen for the words to find (a widget opens no screen)."""

        def __init__(self, pane: AgentPane) -> None:
            super().__init__()
            self.pane = pane

    searched = ""
    """The words last looked for in this pane."""
    found_line: int | None = None
    """The line the last search found (shown highlighted), if any."""

    def action_search(self) -> None:
        self.post_message(self.SearchRequested(self))

    def find(self, words: str) -> bool:
        """Scroll to the next line holding every one of ``words`` (case does not
        matter), after the one found last (or the top line shown), wrapping
        round; False when no line holds them."""
        lines = [strip.text for block in self._blocks for strip in block.strips]
        if not words.strip() or not lines:
            return False
        again = _same_words(words, self.searched) and self.found_line is not None
        start = (self.found_line + 1) if again and self.found_line is not None else int(self.scroll_y)
        self.searched = words
        for offset in range(len(lines)):
            index = (start + offset) % len(lines)
            if matches(lines[index], words):
                self.found_line = index
                self._following = False
                self._moving = True
                try:
                    self.scroll_to(y=max(0, index - 1), animate=False, immediate=True, force=True)
                finally:
                    self._moving = False
                self.refresh()
                return True
        self.found_line = None
        self.refresh()
        return False

    def __init__(self, agent: str, label: str = "", *, name: str | None = None, disabled: bool = False) -> None:
        super().__init__(id=f"pane-{agent}", classes="agent-pane", name=name, disabled=disabled)
        self.agent = agent
        self.border_title = agent
        self.tooltip = label or agent
        self._blocks: list[_Block] = []
        self._starts: list[int] = []
        """The first line of each block."""
        self._lines = 0
        self._width = 0
        self._header: tuple[object, ...] = ()
        self._last: tuple[RunState, int] | None = None
        self._countdown: Mapping[str, float] = {}
        """Seconds left before each waiting retry (live runs), by the failed attempt's call id."""
        self._following = True
        """Whether the pane keeps its last line in view (until the user scrolls up)."""
        self._moving = False
        self._paint: tuple[Style, int] | None = None

    def on_resize(self) -> None:
        if self._last is not None:
            self.update_from(*self._last)

    def update_from(self, state: RunState, progression: int, countdown: Mapping[str, float] | None = None) -> None:
        """Show ``progression``'s calls; ``countdown`` holds the seconds left before
        each waiting retry (live runs), by the failed attempt's call id."""
        self._last = (state, progression)
        if countdown is not None:
            self._countdown = countdown
        if not self.is_mounted:
            return  # painted once it is there (on_resize)
        calls = state.calls_for(self.agent, progression)
        dropped = state.dropped_for(self.agent, progression)
        colours = palette(self.app)
        theme = self.app.theme
        steps = [] if calls else state.steps_of(self.agent, progression)
        self._paint_header(calls, progression, empty=not state.has_spoken(self.agent, progression))
        width = self.scrollable_content_region.width
        if width <= 0:
            return  # hidden (a short terminal hides panes without calls): painted on resize
        rewrap = width != self._width
        self._width = width
        if calls:
            note = f"({dropped} earlier calls not shown)" if dropped else ""
        elif steps:
            note = "no model calls: this agent's steps"
        else:
            note = "no calls yet"
        wanted: list[tuple[str, tuple[object, ...], Callable[[], Text]]] = []
        if note:
            wanted.append(("", (note, theme), lambda: Text(note, style=colours.muted)))
        for call in calls:
            left = self._countdown.get(call.call_id)
            wanted.append(
                (
                    call.call_id,
                    _fingerprint(call, theme, left),
                    partial(render_call, call, colours, left, step_words(state, call)),
                )
            )
        for stage, cell in steps:
            seen = (cell.status, cell.decision, cell.detail, cell.reason, theme)
            wanted.append((f"step {stage}", seen, partial(render_step, stage, cell, colours)))
        known = {b.key: b for b in self._blocks}
        blocks: list[_Block] = []
        changed = len(wanted) != len(self._blocks)
        for key, fingerprint, render in wanted:
            block = known.get(key) or _Block(key)
            if rewrap or block.fingerprint != fingerprint:
                block.fingerprint = fingerprint
                block.strips = self._wrap(render(), width)
                changed = True
            blocks.append(block)
        if changed or [b.key for b in blocks] != [b.key for b in self._blocks]:
            self._set_blocks(blocks, width)
            if self.scrollable_content_region.width != width:
                # The text's height showed or hid the scrollbar, which moved the
                # wrap width: wrap again at the width the lines now have.
                self.update_from(state, progression)
                return
        self._follow_tail()  # also when the pane was resized: a shorter pane scrolls further

    def _paint_header(self, calls: list[CallRecord], progression: int, *, empty: bool) -> None:
        self.set_class(empty, "-empty")
        streaming = sum(1 for c in calls if c.status == "streaming")
        waiting = sum(1 for c in calls if c.status == "streaming" and not c.text)
        run_wide = bool(calls) and all(c.progression is None for c in calls)
        header = (progression, streaming, waiting, len(calls), run_wide)
        if header != self._header:
            self._header = header
            self.border_title = f"{self.agent} · all" if run_wide else f"{self.agent} · p{progression}"
            if waiting and waiting == streaming:
                subtitle = "waiting for first token"
            elif streaming:
                subtitle = f"{streaming} streaming"
            else:
                subtitle = f"{len(calls)} call{'s' if len(calls) != 1 else ''}" if calls else ""
            self.border_subtitle = subtitle
            self.set_class(bool(streaming), "-streaming")

    def _wrap(self, text: Text, width: int) -> list[Strip]:
        console = self.app.console
        lines = list(Segment.split_lines(console.render(text, console.options.update_width(width))))
        strips = Strip.from_lines(lines) if lines else [Strip.blank(width)]
        for strip in strips:
            strip.adjust_cell_length(width)
        return strips

    def _set_blocks(self, blocks: list[_Block], width: int) -> None:
        self._blocks = blocks
        self._starts = []
        total = 0
        for block in blocks:
            self._starts.append(total)
            total += len(block.strips)
        self._lines = total
        size = Size(width, total)
        if size != self.virtual_size:
            # The pane's own size is set by the grid: only the scroll range and
            # the scrollbar change, so no layout of the screen is asked for.
            self.set_reactive(Widget.virtual_size, size)
            self._scroll_update(size)
        self.refresh()

    def _follow_tail(self) -> None:
        if self._following and self.scroll_y != self.max_scroll_y:
            self._moving = True
            try:
                self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True, force=True)
            finally:
                self._moving = False

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if not self._moving:
            # The user scrolled: stop following unless they went back to the end.
            self._following = new_value >= self.max_scroll_y

    def render_lines(self, crop: Region) -> list[Strip]:
        # The pane's style and width are the same for every line of one paint:
        # look them up once (rich_style costs a style-sheet walk).
        self._paint = (self.rich_style, self.scrollable_content_region.width)
        try:
            return super().render_lines(crop)
        finally:
            self._paint = None

    def render_line(self, y: int) -> Strip:
        style, width = self._paint or (self.rich_style, self.scrollable_content_region.width)
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        if index >= self._lines or not self._blocks:
            return Strip.blank(width, style)
        block = bisect_right(self._starts, index) - 1
        strip = self._blocks[block].strips[index - self._starts[block]]
        strip = strip.crop_extend(scroll_x, scroll_x + width, style).apply_style(style)
        if index == self.found_line:
            strip = strip.apply_style(Style(reverse=True))  # the line the search found
        return strip

    def text(self) -> str:
        """What the pane shows, as plain text (every line, not only those on screen)."""
        return "\n".join(strip.text.rstrip() for block in self._blocks for strip in block.strips)


def _same_words(a: str, b: str) -> bool:
    """Whether two searches look for the same words (case and spacing aside)."""
    return a.lower().split() == b.lower().split()


def _fingerprint(call: CallRecord, theme: str, left: float | None = None) -> tuple[object, ...]:
    countdown = math.ceil(left) if left is not None and call.retry == "waiting" else None
    last = call.text[-1:] if call.text else ""
    return (len(call.text), call.status, call.error, call.cut, theme, last, call.retry, countdown)


class AgentPanes(Grid):
    """One pane per agent the run declares (and any other that speaks), a grid
    that reflows with the terminal's width and the number of agents."""

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self._roles: list[str] = []
        self.countdown: Mapping[str, float] = {}
        """Live runs: seconds left before each waiting retry, by call id (set by the run view)."""

    def compose(self) -> ComposeResult:
        # A short terminal shows only the agents that have spoken; before any
        # has, this one line says so (in place of a pane per agent, each empty).
        yield Static("No agent has spoken yet: each gets a pane here when it first answers.", classes="agents-none")

    def update_from(self, state: RunState, progression: int) -> None:
        roles = [a.role for a in state.agents]
        if roles != self._roles:
            self._set_agents(state.agents)
        panes = list(self.query(AgentPane))
        for pane in panes:
            pane.update_from(state, progression, self.countdown)
        # A short terminal hides the panes of agents that have not spoken; before
        # any has, one line says so, not a blank tab.
        spoken = sum(1 for pane in panes if state.has_spoken(pane.agent, progression))
        self.set_class(not spoken, "-all-empty")
        self.set_class(spoken == 1, "-one-spoken")  # there, the one pane shown takes the width

    def _set_agents(self, agents: list[AgentInfo]) -> None:
        """Add a pane for each agent not shown yet. A run view shows one run, so
        panes are never taken away: a replay going back (even to before an agent
        spoke, or to the start) keeps them, and they show that moment's calls."""
        shown = {p.agent for p in self.query_children(AgentPane)}
        fresh = [AgentPane(a.role, a.label) for a in agents if a.role not in shown]
        if fresh:
            self.mount_all(fresh)
        self._roles = [a.role for a in agents]
        count = len(shown) + len(fresh)
        for n in range(1, 7):
            self.set_class(count == n, f"-n{n}")
