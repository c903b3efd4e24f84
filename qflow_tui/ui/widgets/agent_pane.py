"""One pane per agent role, its model calls streaming in as the model writes,
for the selected progression (run-wide agents show their calls in every one)."""

from __future__ import annotations

from rich.text import Text
from textual.containers import Grid, Vertical, VerticalScroll
from textual.widgets import Static

from ..palette import Palette, palette
from ..state import AgentInfo, CallRecord, RunState


def call_header(call: CallRecord, colours: Palette) -> Text:
    run_wide = call.progression is None
    bits = [call.step or ""]
    if call.epoch:
        bits.append(f"epoch {call.epoch}")
    if call.attempt and not call.test:
        # A run-wide agent's attempts are rounds (test design); a progression's are retries.
        bits.append(f"round {call.attempt}" if run_wide else f"attempt {call.attempt}")
    if call.turn > 1:
        bits.append(f"turn {call.turn}")
    if call.test and not run_wide:
        # The test a progression's call is about; a run-wide call's test is its whole output.
        bits.append(call.test.replace("\n", " ")[:60])
    status = {"streaming": "…" if call.text else "waiting for first token", "done": "", "failed": "failed"}.get(
        call.status, call.status
    )
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
        if call.cut:
            out.append(f"\n✂ {call.cut}", style=colours.error)
        if call.status == "failed" and call.error:
            out.append(f"\n{call.error}", style=colours.error)
        out.append("\n")
    out.rstrip()
    return out


class CallView(Static):
    """One model call: its header and its text. Re-rendered only when that call
    changed, so a pane costs what streamed since the last paint, not its history."""

    def __init__(self, call_id: str) -> None:
        super().__init__(classes="agent-call", markup=False)
        self.call_id = call_id
        self._shown: tuple[object, ...] = ()

    def show(self, call: CallRecord, colours: Palette, theme: str) -> None:
        fingerprint = (len(call.text), call.status, call.error, call.cut, theme, call.text[-1:] if call.text else "")
        if fingerprint == self._shown:
            return
        self._shown = fingerprint
        self.update(render_call(call, colours))


def render_call(call: CallRecord, colours: Palette) -> Text:
    out = call_header(call, colours)
    out.append("\n")
    if call.text:
        out.append(call.text.rstrip("\n"))
    elif call.status == "streaming":
        out.append("waiting for the first token…", style=colours.muted)
    if call.cut:
        out.append(f"\n✂ {call.cut}", style=colours.error)
    if call.status == "failed" and call.error:
        out.append(f"\n{call.error}", style=colours.error)
    return out


class AgentPane(VerticalScroll, can_focus=True):
    """The streamed output of one agent. Follows the tail unless scrolled up.

    A widget per model call: new calls are appended, a streaming call repaints
    itself alone, finished calls are left as they are."""

    ALLOW_MAXIMIZE = True
    """A pane the user can zoom (z, or the palette's Maximize); Textual's scroll
    containers refuse by default."""

    def __init__(self, agent: str, label: str = "", **kwargs) -> None:
        super().__init__(id=f"pane-{agent}", classes="agent-pane", **kwargs)
        self.agent = agent
        self.border_title = agent
        self.tooltip = label or agent
        self._progression: int | None = None
        self._ids: list[str] = []
        self._dropped = -1
        self._header: tuple[object, ...] = ()
        self._pending: tuple[RunState, int] | None = None
        self._ready = False

    def compose(self):
        with Vertical(classes="agent-body"):
            yield Static(Text("no calls yet"), classes="agent-empty")

    def on_mount(self) -> None:
        # Follow the stream at the bottom until the user scrolls up (Textual's anchor).
        self.anchor()
        self._ready = True
        if self._pending is not None:
            self.update_from(*self._pending)

    def update_from(self, state: RunState, progression: int) -> None:
        if not self._ready:
            self._pending = (state, progression)  # a pane added mid-run paints once it is there
            return
        self._pending = None
        calls = state.calls_for(self.agent, progression)
        dropped = state.dropped_for(self.agent, progression)
        colours = palette(self.app)
        theme = self.app.theme
        body = self.query_one(".agent-body", Vertical)
        ids = [c.call_id for c in calls]
        if progression != self._progression or dropped != self._dropped or ids[: len(self._ids)] != self._ids:
            # Another progression, or calls summarised away: start the list again.
            body.remove_children(CallView)
            self._ids = []
            self._progression = progression
            self._dropped = dropped
        views = {v.call_id: v for v in body.query(CallView)}
        fresh: list[CallView] = []
        for call in calls[len(self._ids) :]:
            view = CallView(call.call_id)
            view.show(call, colours, theme)
            fresh.append(view)
            self._ids.append(call.call_id)
        for call in calls:
            known = views.get(call.call_id)
            if known is not None:
                known.show(call, colours, theme)  # a no-op unless this call changed
        if fresh:
            body.mount_all(fresh)
        empty = body.query_one(".agent-empty", Static)
        if calls and dropped:
            empty.update(Text(f"({dropped} earlier calls not shown)", style=colours.muted))
        elif not calls:
            empty.update(Text("no calls yet", style=colours.muted))
        empty.display = not calls or bool(dropped)
        self.set_class(not calls, "-empty")
        streaming = sum(1 for c in calls if c.status == "streaming")
        waiting = sum(1 for c in calls if c.status == "streaming" and not c.text)
        header = (
            progression,
            streaming,
            waiting,
            len(calls),
            bool(calls) and all(c.progression is None for c in calls),
        )
        if header != self._header:
            self._header = header
            run_wide = bool(calls) and all(c.progression is None for c in calls)
            self.border_title = f"{self.agent} · all" if run_wide else f"{self.agent} · p{progression}"
            if waiting and waiting == streaming:
                subtitle = "waiting for first token"
            elif streaming:
                subtitle = f"{streaming} streaming"
            else:
                subtitle = f"{len(calls)} call{'s' if len(calls) != 1 else ''}" if calls else ""
            self.border_subtitle = subtitle
            self.set_class(bool(streaming), "-streaming")


class AgentPanes(Grid):
    """One pane per agent the run declares (and any other that speaks), a grid
    that reflows with the terminal's width and the number of agents."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._roles: list[str] = []

    def update_from(self, state: RunState, progression: int) -> None:
        roles = [a.role for a in state.agents]
        if roles != self._roles:
            self._set_agents(state.agents)
        for pane in self.query(AgentPane):
            pane.update_from(state, progression)

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
