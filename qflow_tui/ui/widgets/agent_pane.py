"""One pane per agent role, its model calls streaming in as the model writes,
for the selected progression (run-wide agents show their calls in every one)."""

from __future__ import annotations

from rich.text import Text
from textual.containers import Grid, VerticalScroll
from textual.widgets import Static

from ..palette import Palette, palette
from ..state import AGENTS, CallRecord, RunState

#: Agents whose calls belong to the whole run, not to one progression.
RUN_WIDE = ("test_designer", "test_quality_checker")


def call_header(call: CallRecord, colours: Palette) -> Text:
    bits = [call.step or ""]
    if call.epoch:
        bits.append(f"epoch {call.epoch}")
    if call.attempt and call.agent in ("clarifier", "program_generator"):
        bits.append(f"attempt {call.attempt}")
    if call.agent == "test_designer" and call.attempt:
        bits.append(f"round {call.attempt}")
    if call.turn > 1:
        bits.append(f"turn {call.turn}")
    if call.test and call.agent != "test_quality_checker":
        bits.append(call.test.replace("\n", " ")[:60])
    status = {"streaming": "…", "done": "", "failed": "failed"}.get(call.status, call.status)
    text = Text()
    text.append(f"── {call.call_id} ", style=colours.muted)
    text.append(" · ".join(b for b in bits if b), style=f"bold {colours.primary}")
    if status:
        text.append(f" {status}", style=colours.outcome("failed" if call.status == "failed" else "streaming"))
    return text


def render_calls(calls: list[CallRecord], dropped: int, colours: Palette) -> Text:
    out = Text()
    if dropped:
        out.append(f"({dropped} earlier calls not shown)\n", style=colours.muted)
    for call in calls:
        out.append_text(call_header(call, colours))
        out.append("\n")
        out.append(call.text.rstrip("\n") or ("" if call.status != "streaming" else "…"))
        if call.status == "failed" and call.error:
            out.append(f"\n{call.error}", style=colours.error)
        out.append("\n")
    out.rstrip()
    return out


class AgentPane(VerticalScroll, can_focus=True):
    """The streamed output of one agent. Follows the tail unless scrolled up."""

    ALLOW_MAXIMIZE = True
    """A pane the user can zoom (z, or the palette's Maximize); Textual's scroll
    containers refuse by default."""

    def __init__(self, agent: str, **kwargs) -> None:
        super().__init__(id=f"pane-{agent}", classes="agent-pane", **kwargs)
        self.agent = agent
        self.border_title = agent
        self._shown: tuple = ()

    def compose(self):
        yield Static(Text("no calls yet"), classes="agent-body")

    def on_mount(self) -> None:
        # Follow the stream at the bottom until the user scrolls up (Textual's anchor).
        self.anchor()

    def update_from(self, state: RunState, progression: int) -> None:
        calls = state.calls_for(self.agent, progression)
        dropped = state.dropped_for(self.agent, progression)
        # Only re-render when something this pane shows has changed.
        fingerprint = (progression, dropped, tuple((c.call_id, len(c.text), c.status) for c in calls), self.app.theme)
        if fingerprint == self._shown:
            return
        self._shown = fingerprint
        colours = palette(self.app)
        streaming = sum(1 for c in calls if c.status == "streaming")
        title = f"{self.agent} · all" if self.agent in RUN_WIDE else f"{self.agent} · p{progression}"
        self.border_title = title
        self.border_subtitle = (
            f"{streaming} streaming"
            if streaming
            else (f"{len(calls)} call{'s' if len(calls) != 1 else ''}" if calls else "")
        )
        self.set_class(bool(streaming), "-streaming")
        body = self.query_one(".agent-body", Static)
        body.update(render_calls(calls, dropped, colours) if calls else Text("no calls yet", style=colours.muted))


class AgentPanes(Grid):
    """All agent panes, a grid that reflows with the terminal's width."""

    def compose(self):
        for agent in AGENTS:
            yield AgentPane(agent)

    def update_from(self, state: RunState, progression: int) -> None:
        for pane in self.query(AgentPane):
            pane.update_from(state, progression)
