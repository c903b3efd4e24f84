"""The whole display of one run, live or replayed: progress line, timeline, agent
panes, imagined-execution trace, synthesized tests, program, status bar.

Events are the only input: :meth:`RunView.apply` folds one event into a
:class:`~qflow_tui.ui.state.RunState` and schedules a repaint (at most
``REFRESH_INTERVAL`` apart, so token floods cost a few paints per second);
:meth:`RunView.apply_many` folds many and paints once. A replay calls
``reset()`` then ``apply_many(events[:n])`` and sees exactly what the live run
showed after event *n*.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Unpack

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import AwaitMount, Widget
from textual.widgets import Static, TabbedContent, TabPane, Tabs

from ...core import events as ev
from ...core.events import Event
from ...core.safe_text import one_line
from ...core.workflows.base import Pane
from ..clipboard import clipboard_blocked
from ..messages import SaveRequested
from ..state import RunState, RunText, is_imagining
from ..widget_options import WidgetOptions
from .agent_pane import AgentPanes
from .program_view import shown_program
from .run_tabs import (
    MOST_NUMBERED,
    PANE_TAB,
    RUN_TABS,
    TAB_BY_ID,
    TabContent,
    numbered_tabs,
    pane_widget,
    shown_tabs,
    tabs_of,
)
from .status_bar import StatusBar
from .tests_table import TestsTable
from .timeline import Timeline

_ALL_TABS = frozenset(t.id for t in RUN_TABS)

#: The panes z zooms: each tab's content, the timeline band and an agent's pane.
_ZOOMABLE = frozenset({"timeline-band", *(t.content for t in RUN_TABS)})

#: Seconds between repaints while events stream in. Each repaint is one slice
#: of the event loop that the streams' chunks wait behind: at 12 a second a
#: 6-stream run took 1.05-1.08x its time headless, at 10 a second 1.02x
#: (80x24, measured side by side with bench/ui_streaming.py).
REFRESH_INTERVAL = 1 / 10


def no_tab_reason(workflow: str, recorded: Mapping[str, object], tab: str) -> str:
    """Why a run has no ``tab`` (a tab a workflow declares), in words: the
    setting of the run's whose other value would have it (QualityFlow's
    checker), else that the workflow does not use one."""
    from ...core.workflows import WORKFLOWS
    from ...core.workflows.values import config_from_record

    spec = WORKFLOWS.get(workflow) if workflow else None
    if spec is None:
        return "its workflow does not use one"
    why = spec.why_no_tab(config_from_record(recorded, workflow, strict=False), tab)
    return why or "its workflow does not use one"


def _show(tabs: TabbedContent, tab: str, shown: bool) -> None:
    """Show or hide a workflow pane's tab; one still being added is left as it
    comes (its adding looks again whether it is wanted)."""
    try:
        (tabs.show_tab if shown else tabs.hide_tab)(tab)
    except Tabs.TabError:
        pass


def _displayed(widget: Widget) -> bool:
    """Whether ``widget`` and every container above it are displayed."""
    return all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))


class RunView(Widget):
    """Live-run display fed by core events (see the module docstring)."""

    BINDINGS = [
        # One footer entry for both keys ("[ ] Progression"): "[ Prev ] Next" read like buttons.
        Binding(
            "left_square_bracket",
            "progression(-1)",
            "Previous progression",
            key_display="[",
            show=False,
            tooltip="Show the previous progression",
        ),
        Binding(
            "right_square_bracket",
            "progression(1)",
            "Progression",
            key_display="[ ]",
            tooltip="Show the next progression ([ for the previous one)",
        ),
        # The digits number the tabs this run has: the help (?) says which is
        # which for the run shown (help_keys); the keys reference says this.
        Binding(
            "1",
            "show_nth(1)",
            "Tabs",
            show=False,
            tooltip="1 to 9 show the run's tabs, numbered in the order it has them (? lists them)",
        ),
        *(Binding(str(n), f"show_nth({n})", "", show=False) for n in range(2, MOST_NUMBERED + 1)),
        Binding("z", "zoom", "Zoom", tooltip="Maximize the focused pane (again to restore)"),
        Binding("y", "copy_program", "Copy", tooltip="Copy the program to the clipboard"),
        Binding("s", "save_program", "Save", tooltip="Save the program to a file"),
    ]

    progression: reactive[int] = reactive(0, init=False)
    """The progression the agent panes, trace, tests and program show."""

    gate_status: reactive[str] = reactive("", init=False)
    """Set by a live run screen: where the step gate holds the run, if anywhere."""

    def __init__(
        self, *, live: bool = False, clock: Callable[[], float] | None = None, **kwargs: Unpack[WidgetOptions]
    ) -> None:
        super().__init__(**kwargs)
        self.state = RunState()
        self.live = live
        """Live runs show wall-clock elapsed time; replays derive it from event times."""
        self._clock = clock or time.monotonic
        self._clock_start: float | None = None
        self._clock_stop: float | None = None
        self._dirty: set[str] = set()
        self._offered: tuple[bool, bool] | None = None
        self._progress_shown: str | None = None
        self._stale_tabs: set[str] = set(_ALL_TABS)
        self._band_stale = True
        self._repaint_timer: Timer | None = None
        self._tick: Timer | None = None
        self._shown_tabs: frozenset[str] = _ALL_TABS
        """The tabs offered: every run's and those its workflow declares (all, before the run says)."""
        self._retry_clock: dict[str, float] = {}
        """Live runs: when each waiting retry's wait began (the app's clock), by call id."""
        self.recorded_elapsed: float | None = None
        """Set by a replay: the recorded run time at the shown step (idle gate time left out)."""
        self._content: dict[str, Widget] = {}
        """Each tab's widget, from when its mount starts (see RunTab.make); the agents' is composed."""
        self._mounting: dict[str, AwaitMount] = {}
        self._pending_tests: dict[str, str] = {}
        """Edits to the synthesized tests a live run has not taken yet (see show_pending_tests)."""
        self._panes: tuple[Pane, ...] = ()
        """The workflow's own panes that have tabs (after the built-in ones)."""
        self._made_panes: dict[str, Pane] = {}
        """Every pane tab made, by TabPane id (hidden when the run shown has it not)."""

    def compose(self) -> ComposeResult:
        yield Static("starting…", id="run-progress", markup=False)
        with Vertical(id="run-main"):
            yield Timeline(id="timeline-band", side_by_side=True)
            with TabbedContent(id="run-tabs", initial="tab-agents"):
                for tab in RUN_TABS:
                    with TabPane(tab.title, id=tab.id):
                        if tab.id == "tab-agents":
                            yield AgentPanes(id="agent-panes")
                        elif tab.id == "tab-timeline":
                            yield Timeline(id="timeline-tab")
        yield StatusBar(id="run-status")

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self.repaint(everything=True)
        if self.live:
            self._tick = self.set_interval(1.0, self.tick)
        self.call_after_refresh(self._mount_next_tab)

    # -- the tabs' contents, mounted after the first paint -----------------------------------

    def _mount_next_tab(self, _mounted: str = "") -> None:
        """Mount the first tab content not mounted yet, and the next once it is
        (the loop handles what else waits in between: keys, events, paints)."""
        for tab in RUN_TABS:
            if tab.make is not None and tab.id not in self._mounting:
                self._once_mounted(tab.id, self._mount_next_tab)
                return

    def _mount_tab(self, tab: str) -> AwaitMount:
        """Mount a tab's content unless it is mounted or on its way; what to await."""
        if tab not in self._mounting:
            make = TAB_BY_ID[tab].make
            assert make is not None, tab  # the composed tabs are always ready
            widget = make()
            self._content[tab] = widget
            self._mounting[tab] = self.query_one(f"#{tab}", TabPane).mount(widget)
        return self._mounting[tab]

    def _all_tabs(self) -> set[str]:
        return set(_ALL_TABS) | {PANE_TAB + p.id for p in self._panes}

    def _sync_panes(self, tabs: TabbedContent) -> None:
        """Give the run's own panes their tabs (after the built-in ones), and
        hide those the run shown now does not have. A tab once made stays (a
        replay goes back before the run's first event and forward again):
        removing it and making it anew raced its removal (the same id twice)."""
        wanted = {PANE_TAB + p.id: p for p in self.state.panes}
        for pane in self._panes:
            tab = PANE_TAB + pane.id
            if tab not in wanted:
                if tabs.active == tab:
                    tabs.active = "tab-agents"
                _show(tabs, tab, False)
        self._panes = self.state.panes
        for tab, pane in wanted.items():
            self._stale_tabs.add(tab)
            made = self._made_panes.get(tab)
            if made == pane:
                _show(tabs, tab, True)
                continue
            if made is not None:  # the same id, another declaration: its tab anew, once the old one is gone
                self._content.pop(tab, None)
                removed: object = tabs.remove_pane(tab)
            else:
                removed = None
            self._made_panes[tab] = pane
            widget, why = pane_widget(pane)
            self._content[tab] = widget
            if why:
                self.notify(why, severity="warning")

            async def add(
                tab: str = tab, pane: Pane = pane, widget: Widget = widget, removed: object = removed
            ) -> None:
                if removed is not None:
                    await removed  # type: ignore[misc]
                await tabs.add_pane(TabPane(Content(one_line(pane.title, 30)), widget, id=tab))
                if all(PANE_TAB + p.id != tab for p in self._panes):  # no longer wanted meanwhile
                    _show(tabs, tab, False)
                elif tabs.active == tab:
                    self._paint_tab(tab)

            self.call_next(add)

    def numbered(self) -> list[tuple[str, str]]:
        """The tabs this run has, in the order the digits number them: (id, title)."""
        return numbered_tabs(self._shown_tabs, self._panes)

    def help_keys(self) -> list[tuple[str, str]]:
        """The digits as the help (``?``) lists them: the tabs this run has."""
        return [(str(n), f"{title} tab") for n, (_tab, title) in enumerate(self.numbered()[:MOST_NUMBERED], 1)]

    def palette_commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        """The tabs this run has, as the command palette offers them."""
        return [
            (title, f"Show the {title} tab ({n})", partial(self.action_show_tab, tab))
            for n, (tab, title) in enumerate(self.numbered(), 1)
        ]

    def _ready(self, tab: str) -> Widget | None:
        """A tab's content if it is mounted (the agents' and the timeline's always are)."""
        if tab == "tab-agents":
            return self.query_one(AgentPanes)
        if tab == "tab-timeline":
            return self.query_one("#timeline-tab", Timeline)
        widget = self._content.get(tab)
        return widget if widget is not None and widget.is_mounted else None

    def _once_mounted(self, tab: str, then: Callable[[str], object]) -> None:
        """Mount a tab's content now, and call ``then(tab)`` once it is."""
        mounting = self._mount_tab(tab)

        async def go_on() -> None:
            await mounting
            then(tab)

        self.call_next(go_on)

    # -- the API -----------------------------------------------------------------------

    def reset(self) -> None:
        """Forget every event: back to an empty run."""
        self.state.reset()
        self._retry_clock.clear()
        self._clock_start = self._clock_stop = None
        self.gate_status = ""
        self.repaint(everything=True)

    def apply(self, event: Event) -> None:
        """Fold one core event in; the screen catches up within REFRESH_INTERVAL."""
        self._fold(event)
        if self._repaint_timer is None and self.is_mounted:
            self._repaint_timer = self.set_timer(REFRESH_INTERVAL, self._timed_repaint)

    def apply_many(self, events: Iterable[Event]) -> None:
        """Fold many events in and repaint once (replay's fast path)."""
        for event in events:
            self._fold(event)
        self.flush()

    def flush(self) -> None:
        """Repaint now whatever events changed since the last paint."""
        if self._repaint_timer is not None:
            self._repaint_timer.stop()
            self._repaint_timer = None
        self.repaint()

    @property
    def elapsed(self) -> float:
        if not self.live:
            if self.recorded_elapsed is not None:
                return self.recorded_elapsed
            return self.state.elapsed_from_events()
        if self._clock_start is None:
            return 0.0
        end = self._clock_stop if self._clock_stop is not None else self._clock()
        return max(0.0, end - self._clock_start)

    def program_text(self) -> str:
        """The program the Program tab shows (final, or the current one)."""
        return shown_program(self.state, self.progression)[0]

    # -- folding and painting ------------------------------------------------------------

    def _fold(self, event: Event) -> None:
        self.state.apply(event)
        tabs = tabs_of(type(event))
        match event:
            case ev.RunStarted() if self.live and self._clock_start is None:
                self._clock_start = self._clock()
            case ev.RunFinished() | ev.RunFailed():
                if self.live:
                    self._clock_stop = self._clock()
                if isinstance(event, ev.RunFinished) and event.progression is not None:
                    self.set_reactive(RunView.progression, event.progression)
            case ev.LLMCallRetry(call_id=call_id) if self.live:
                self._retry_clock[call_id] = self._clock()
            case ev.TextDelta(call_id=call_id):
                call = self.state.calls.get(call_id)
                if call is not None and is_imagining(call):
                    tabs = tabs | {"tab-imagined"}
            case ev.Record(record=record):
                tabs = frozenset(PANE_TAB + p.id for p in self._panes if p.record == record)
        self._dirty.update(tabs)

    def _timed_repaint(self) -> None:
        self._repaint_timer = None
        self.repaint()

    def repaint(self, everything: bool = False) -> None:
        if not self.is_mounted:
            return
        # Only the tabs the new events touched are stale: a token does not redraw
        # the timeline, the tests table or the program.
        if everything:
            self._stale_tabs = self._all_tabs()
            self._band_stale = True
        else:
            self._stale_tabs |= self._dirty
            self._band_stale = self._band_stale or "tab-timeline" in self._dirty
        self._dirty.clear()
        # The footer is rebuilt whenever bindings are refreshed: only when what
        # check_action reads has changed, not on every token.
        offered = (self.state.done and bool(self.program_text()), self.state.progressions > 1)
        if offered != self._offered:
            self._offered = offered
            self.refresh_bindings()
        state, p = self.state, self.progression
        self._paint_progress()
        self._paint_status()
        side = self.query_one("#timeline-band", Timeline)
        if side.display and self._band_stale:
            self._band_stale = False
            side.update_from(state, p)
        tabs = self.query_one("#run-tabs", TabbedContent)
        if state.panes != self._panes:
            self._sync_panes(tabs)
        # Before the run's first event says which tabs it uses, every tab but the
        # search tree's is offered (the one a run seldom has).
        shown = shown_tabs(state) if state.started else _ALL_TABS - {"tab-tree"}
        if shown != self._shown_tabs:
            for tab in RUN_TABS:
                if (tab.id in shown) != (tab.id in self._shown_tabs):
                    (tabs.show_tab if tab.id in shown else tabs.hide_tab)(tab.id)
            self._shown_tabs = shown
            if tabs.active not in shown:
                tabs.active = "tab-agents"
        self._paint_tab(tabs.active)

    def _paint_tab(self, tab: str) -> None:
        if tab not in self._stale_tabs:
            return
        content = self._ready(tab)
        if content is None and tab.startswith(PANE_TAB):
            return  # a workflow's pane on its way: painted once it is mounted
        if content is None:  # wanted before its turn: mounted now, painted once it is
            self._once_mounted(tab, self._paint_tab)
            return
        self._stale_tabs.discard(tab)
        if isinstance(content, AgentPanes):
            content.countdown = self.retry_countdown()
        elif isinstance(content, TestsTable):
            content.pending = self._pending_tests
        painter: TabContent = content  # type: ignore[assignment]
        painter.update_from(self.state, self.progression)

    def _paint_progress(self) -> None:
        text = RunText(self.state).progress()
        if self.state.progressions > 1:
            text = f"showing p{self.progression} of p0–p{self.state.progressions - 1} · {text}"
        if self.gate_status:
            text = f"{self.gate_status} │ {text}"
        bar = self.query_one("#run-progress", Static)
        bar.set_class(bool(self.gate_status), "-paused")
        if text != self._progress_shown:
            self._progress_shown = text
            bar.update(text, layout=False)  # one line, always: no reflow of the screen

    def show_pending_tests(self, pending: dict[str, str]) -> None:
        """Mark the synthesized tests a person kept, dropped, deleted or edited at
        a stop, until the run takes the edits (``{test: "keep"}``, see
        TestsTable.pending)."""
        if pending == self._pending_tests:
            return
        self._pending_tests = dict(pending)
        self._stale_tabs.add("tab-tests")
        if self.is_mounted:
            self._paint_tab(self.query_one("#run-tabs", TabbedContent).active)

    def paint_status(self) -> None:
        """Repaint the status bar alone (elapsed time, calls, tokens)."""
        if self.is_mounted:
            final = not self.live or self._clock_stop is not None
            self.query_one(StatusBar).update_from(self.state, self.elapsed, precise=final, recorded=not self.live)

    _paint_status = paint_status

    def retry_countdown(self) -> dict[str, float]:
        """Live runs: seconds left before each waiting retry, by the failed
        attempt's call id (a replay shows the recorded waits instead)."""
        if not self.live:
            return {}
        now = self._clock()
        out: dict[str, float] = {}
        for call_id in self.state.retries_waiting:
            call = self.state.calls.get(call_id)
            began = self._retry_clock.get(call_id)
            if call is not None and began is not None:
                out[call_id] = max(0.0, call.retry_wait - (now - began))
        return out

    def tick(self) -> None:
        """Once a second in a live run: the elapsed time, and the countdown of
        any waiting retry."""
        self.paint_status()
        if self.is_mounted and self.state.retries_waiting:
            self._stale_tabs.add("tab-agents")
            self._paint_tab(self.query_one("#run-tabs", TabbedContent).active)

    def _theme_changed(self, _theme: object) -> None:
        self.repaint(everything=True)

    def watch_progression(self) -> None:
        self.repaint(everything=True)

    def watch_gate_status(self) -> None:
        if self.is_mounted:
            self._paint_progress()

    def on_resize(self) -> None:
        self.repaint(everything=True)

    @on(TabbedContent.TabActivated, "#run-tabs")
    def _paint_activated_tab(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id:
            self._paint_tab(event.pane.id)

    # -- actions ---------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("copy_program", "save_program"):
            # Offered once the run has ended (the footer is short at 80 columns).
            return self.state.done and bool(self.program_text())
        if action == "progression":
            return self.state.progressions > 1
        return True

    def action_progression(self, delta: int) -> None:
        n = max(1, self.state.progressions)
        self.progression = (self.progression + delta) % n

    def action_show_nth(self, n: int) -> None:
        """Show the run's ``n``-th tab (from 1), as the digits number them."""
        tabs = self.numbered()
        if not 1 <= n <= len(tabs):
            said = ", ".join(f"{i} {title}" for i, (_tab, title) in enumerate(tabs, 1))
            self.notify(f"This run has {len(tabs)} tabs: {said}.", severity="warning")
            return
        self.action_show_tab(tabs[n - 1][0])

    def action_show_tab(self, tab: str) -> None:
        """Show a tab and focus what is in it, so arrows and PageUp/Down work at once."""
        if tab.startswith(PANE_TAB):
            if tab in dict(self.numbered()):
                self.query_one("#run-tabs", TabbedContent).active = tab
                self._paint_tab(tab)
                content = self._content.get(tab)
                if content is not None and content.focusable:
                    content.focus()
            return
        if tab not in self._shown_tabs:
            what = TAB_BY_ID[tab].title
            why = no_tab_reason(self.state.workflow, self.state.config, TAB_BY_ID[tab].declared)
            self.notify(f"This run has no {what} tab: {why}.", severity="warning")
            return
        if self._ready(tab) is None:  # shown once it is mounted and painted
            self._once_mounted(tab, self.action_show_tab)
            return
        self._paint_tab(tab)  # drawn before it shows: no empty first frame
        self.query_one("#run-tabs", TabbedContent).active = tab
        self.focus_shown_tab()

    def focus_shown_tab(self) -> None:
        """Focus what the shown tab holds (its first pane), so its keys and the
        view's work at once."""
        tab = TAB_BY_ID.get(self.query_one("#run-tabs", TabbedContent).active)
        shown = [w for w in self.query(tab.focus) if _displayed(w)] if tab else []
        if shown:
            shown[0].focus()
        elif tab:
            # Nothing of the tab shows yet (a short terminal's Agents tab before any
            # agent has spoken): the tab row, never a hidden pane, has the focus.
            self.query_one("#run-tabs", TabbedContent).query_one(Tabs).focus()

    def action_zoom(self) -> None:
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
            return
        widget = screen.focused
        while widget is not None and widget is not self:
            # A hidden pane (the timeline band at 80x24 may hold the focus) is never
            # zoomed: maximizing it left every row a hatch until z again.
            if (widget.id in _ZOOMABLE or "agent-pane" in widget.classes) and _displayed(widget):
                screen.maximize(widget, container=False)
                return
            widget = widget.parent  # type: ignore[assignment]
        # Nothing zoomable has the focus (the tab row, or a hidden pane): zoom what
        # the shown tab holds, the pane a person is looking at.
        tab = TAB_BY_ID.get(self.query_one("#run-tabs", TabbedContent).active)
        content = self._ready(tab.id) if tab else None
        if content is not None and _displayed(content):
            agents = isinstance(content, AgentPanes)
            panes = [p for p in content.query(".agent-pane") if _displayed(p)] if agents else []
            if panes:
                pane = panes[0]
                pane.focus()
                screen.maximize(pane, container=False)
                return
            if agents:  # a short terminal before any agent has spoken: one line shows
                self.notify("Nothing to zoom yet: no agent has spoken.", severity="information")
                return
            content.focus()
            screen.maximize(content, container=False)
            return
        self.notify("Focus a pane first (Tab), then press z to zoom it.", severity="warning")

    def action_copy_program(self) -> None:
        program = self.program_text()
        if not program:
            self.notify("No program yet.", severity="warning")
            return
        self.app.copy_to_clipboard(program)
        lines = f"{len(program.splitlines())} lines"
        blocked = clipboard_blocked(os.environ)
        if blocked:
            # Kept inside qflow (its fields paste it), but not in the system clipboard.
            self.notify(f"Not copied to the clipboard: {blocked}. s saves the program ({lines}) to a file.")
        else:
            self.notify(f"Program copied ({lines}).")

    def action_save_program(self) -> None:
        program = self.program_text()
        if not program:
            self.notify("No program yet.", severity="warning")
            return
        name = f"{one_line(str(self.state.problem.get('entry_point') or 'solution'), 80)}.py"
        self.post_message(SaveRequested(program, "Save the program to a file", name, "Program saved"))
