"""The replay screen: a saved session drives the very same :class:`RunView` a
live run uses, from the events in the file. Step forward and backward one
workflow step at a time, jump to any step on the replay timeline, or play at
an adjustable speed (or jump to the end at once).

Where the replay is and when each event shows lives in
:class:`~qflow_tui.ui.replay_model.ReplayCursor` (no Textual); this screen
turns keys into cursor moves and folds the events in between into the view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.timer import Timer
from textual.widgets import Header, Static

from ...core.events import Event, RunStarted
from ...core.safe_text import one_line
from ...core.session import SessionError, read_session
from ..access import qflow_app
from ..replay_model import TICK, ReplayCursor, ReplayStep, play_times, replay_steps
from ..state import run_shape
from ..widgets.agent_pane import AgentPane
from ..widgets.footer import AppFooter
from ..widgets.replay_timeline import ReplayTimeline, StepChip
from ..widgets.run_view import RunView
from .base import AppScreen
from .fork_dialog import ForkDialog, start_fork
from .pane_search import search_pane
from .step_picker import StepPicker
from .try_run import TRY_KEY, open_try

__all__ = ["ReplayScreen", "ReplayStep", "StepChip", "StepPicker", "play_times", "replay_steps"]


class ReplayScreen(AppScreen[None]):
    """Replay a session file in the run view (see the module docstring)."""

    BINDINGS = [
        Binding("space", "toggle_play", "Play", tooltip="Play the recording (again to pause)"),
        # Priority: the replay's arrows work on every tab, the tests table's included.
        Binding(
            "left,comma",
            "step(-1)",
            "Step back",
            key_display="←",
            priority=True,
            show=False,
            tooltip="Back to the previous workflow step",
        ),
        Binding(
            "right,full_stop",
            "step(1)",
            "Step",
            key_display="← →",
            priority=True,
            tooltip="On to the next workflow step",
        ),
        Binding("shift+left", "event(-1)", "Event back", show=False, tooltip="One event back"),
        Binding("shift+right", "event(1)", "Event", show=False, tooltip="One event on"),
        Binding("home", "start", "Start", show=False, tooltip="Back to the start of the run"),
        Binding("end,i", "end", "End", key_display="i", tooltip="Jump to the end at once"),
        Binding("f", "fork", "Fork", tooltip="Fork the session at the current step: a new run from there, with edits"),
        TRY_KEY,  # before Go to: at 80 columns the footer has room for these two, not Go to
        Binding("colon", "pick_step", "Go to", key_display=":", tooltip="Jump to any workflow step"),
        Binding("plus,equals_sign", "speed(1)", "Speed", key_display="+ -", tooltip="Play faster (- slower)"),
        Binding("minus", "speed(-1)", "Slower", key_display="-", show=False, tooltip="Play slower"),
        Binding("escape", "back", "Back", tooltip="Leave the replay"),
        Binding("q", "quit_app", "Quit", show=False, tooltip="Quit qflow"),
        Binding("h", "toggle_intro", "Intro", show=False, tooltip="Show or hide what the demo is about"),
    ]

    def __init__(self, path: str | Path, *, step: int | None = None, play: bool = False) -> None:
        super().__init__()
        self.path = Path(path)
        self.start_step = step
        """Step to open at; None opens at the end of the run (its final state)."""
        self.autoplay = play
        """Start playing from the beginning at once (the demo does)."""
        self.header: dict[str, Any] = {}
        self.warnings: list[str] = []
        self.error: str | None = None
        self.cursor = ReplayCursor([])
        self.playing = False
        self.intro = False
        """Explain what is on screen (the demo): the problem, what the agents do, the keys."""
        self._timer: Timer | None = None
        self._load()

    # The cursor's parts, under the names tests and callers know.
    @property
    def events(self) -> list[Event]:
        return self.cursor.events

    @property
    def steps(self) -> list[ReplayStep]:
        return self.cursor.steps

    @property
    def times(self) -> list[float]:
        return self.cursor.times

    @property
    def position(self) -> int:
        """Events shown: the view holds exactly ``events[:position]``."""
        return self.cursor.position

    @property
    def speed(self) -> float:
        return self.cursor.speed

    @property
    def current_step(self) -> int:
        return self.cursor.current_step

    def _load(self) -> None:

        try:
            data = read_session(self.path)
        except SessionError as exc:
            self.error = str(exc)
            return
        except Exception as exc:
            self.error = one_line(f"{self.path}: cannot be replayed ({type(exc).__name__}: {exc})")
            return
        self.cursor = ReplayCursor(data.events)
        self.header = data.header
        self.warnings = [one_line(w) for w in data.warnings]
        parent = data.header.get("parent")
        fork = ""
        if isinstance(parent, dict) and isinstance(parent.get("session"), str):
            fork = f"fork of {Path(parent['session']).name} at {parent.get('forked_at')} · "
        self.sub_title = one_line(f"replay · {fork}{data.title}", 200)  # the title comes from the file

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="replay-banner", markup=False)
        yield Static(id="replay-intro")
        yield RunView(live=False, id="replay-view")
        yield ReplayTimeline(self.steps, id="replay-bar")
        yield Static(id="replay-status", markup=False)
        yield AppFooter()

    def on_mount(self) -> None:
        banner = self.query_one("#replay-banner", Static)
        if self.error:
            banner.update(f"✖ {self.error}\nPress Escape to go back.")
            banner.add_class("-shown", "-error")
            self.notify(self.error, title="Cannot replay", severity="error", timeout=8, markup=False)
            self._paint_status()
            return
        if self.warnings:
            banner.update("⚠ " + "\n⚠ ".join(self.warnings))
            banner.add_class("-shown")
            self.notify(
                "\n".join(self.warnings),
                title="Replaying what could be read",
                severity="warning",
                timeout=8,
                markup=False,
            )
        self.query_one(RunView).query_one("#run-tabs").focus()
        # `qflow replay --step N / --play` and `qflow demo` say how to open.
        app = qflow_app(self)
        options, app.replay_options = app.replay_options, {}  # once, for the first replay only
        if self.start_step is None and not self.autoplay:
            self.start_step = options.get("step")
            self.autoplay = bool(options.get("play"))
        self.intro = self.intro or bool(options.get("intro"))
        self._paint_intro()
        if self.autoplay:
            self.seek(self.steps[0].end if self.steps else 0)
            self.action_toggle_play()
        elif self.start_step is not None:
            self.go_to_step(self.start_step)
        else:
            self.seek(len(self.events))

    def focus_fallback(self) -> None:
        self.query_one(RunView).focus_shown_tab()

    def _paint_intro(self) -> None:
        intro = self.query_one("#replay-intro", Static)
        intro.display = self.intro
        if not self.intro:
            return
        raw = self.header.get("problem")
        problem: dict[str, Any] = raw if isinstance(raw, dict) else {}
        statement = " ".join(str(problem.get("statement") or "").split())
        title = str(self.header.get("title") or "a recorded run")
        text = Text()
        text.append(" DEMO ", style="bold reverse")
        for key, what in (("space", "pause"), ("← →", "steps"), ("1-5", "tabs"), ("h", "hide this"), ("q", "quit")):
            text.append(f"  {key}", style="bold")
            text.append(f" {what}")
        text.append(f"\n{title}: " if not statement else "\nProblem: ", style="bold")
        text.append(f"{statement}\n")
        text.append(self._summary())
        intro.update(text)

    def _summary(self) -> str:
        """The workflow's own one-line summary, from the run's first event."""
        first = next((e for e in self.events if isinstance(e, RunStarted)), None)
        return run_shape(first).summary if first is not None else ""

    def action_toggle_intro(self) -> None:
        self.intro = not self.intro
        self._paint_intro()

    # -- where the replay is ---------------------------------------------------------------

    def seek(self, position: int) -> None:
        """Show exactly ``events[:position]``: forward by folding the events in
        between, backward by folding the prefix into a fresh view."""
        position = self.cursor.clamp(position)
        view = self.query_one(RunView)
        view.recorded_elapsed = None
        if position >= self.position:
            view.apply_many(self.events[self.position : position])
        else:
            view.reset()
            view.apply_many(self.events[:position])
        self.cursor.moved_to(position)
        self._show_elapsed(view)
        self._paint_status()

    def go_to_step(self, number: int) -> None:
        """Show the state at the end of step ``number`` (clamped)."""
        if self.steps:
            self.seek(self.cursor.step_end(number))

    def _show_elapsed(self, view: RunView) -> None:
        view.recorded_elapsed = self.cursor.elapsed
        view.paint_status()

    # -- painting ---------------------------------------------------------------------------

    def _paint_status(self) -> None:
        status = self.query_one("#replay-status", Static)
        if self.error:
            status.update("nothing to replay")
            return
        total = len(self.steps) - 1
        current = self.current_step
        step = self.steps[current] if self.steps else None
        state = "▶ playing" if self.playing else "‖ paused"
        if self.cursor.at_end and not self.playing:
            state = "■ end"
        speed = f"{self.speed:g}×"
        title = step.title if step else ""
        if self.size.width < 100:
            status.update(f"step {current}/{total} · {title} │ {state} {speed}")
        else:
            status.update(
                f"step {current}/{total} · {title}  │  event {self.position}/{len(self.events)}  │  "
                f"{state} {speed}  │  {self.path.name}"
            )
        self.query_one(ReplayTimeline).show(current, self.cursor.finished_steps)
        self.refresh_bindings()

    def on_resize(self) -> None:
        self._paint_status()

    # -- playback ---------------------------------------------------------------------------

    def _tick(self) -> None:
        if not self.playing:
            return
        view = self.query_one(RunView)
        start = self.position
        reached = self.cursor.advance(TICK)
        if reached > start:
            for event in self.events[start:reached]:
                view.apply(event)
            self.cursor.position = reached
            self._show_elapsed(view)
            self._paint_status()
        if self.cursor.at_end:
            self._stop()
            view.flush()
            if self.intro:
                # The demo ends on the check that accepted the program.
                view.action_show_tab("tab-imagined")
            self._paint_status()

    def _stop(self) -> None:
        self.playing = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    # -- actions ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (self.error and action not in ("back", "quit_app"))

    def action_toggle_play(self) -> None:
        if self.playing:
            self._stop()
            self.query_one(RunView).flush()
        else:
            if self.cursor.at_end:
                self.seek(0)
            self.playing = True
            self.cursor.moved_to(self.position)
            self._timer = self.set_interval(TICK, self._tick)
        self._paint_status()

    def action_step(self, delta: int) -> None:
        self._stop()
        if self.steps:
            self.seek(self.cursor.step_target(delta))

    def action_event(self, delta: int) -> None:
        self._stop()
        self.seek(self.position + delta)

    def action_start(self) -> None:
        self._stop()
        self.seek(0)

    def action_end(self) -> None:
        self._stop()
        self.seek(len(self.events))

    def action_speed(self, delta: int) -> None:
        self.cursor.change_speed(delta)
        self._paint_status()

    def action_pick_step(self) -> None:
        def chosen(number: int | None) -> None:
            if number is not None:
                self._stop()
                self.go_to_step(number)

        self.app.push_screen(StepPicker(self.steps, self.current_step), chosen)

    @on(AgentPane.SearchRequested)
    def _search_pane(self, message: AgentPane.SearchRequested) -> None:
        search_pane(self, message.pane)

    def action_try_program(self) -> None:
        """The shown progression's program (at this step) on the samples or on typed input, in the sandbox."""
        open_try(self)

    def action_fork(self) -> None:
        """Fork the session at the step the replay shows (a new run that takes
        everything before it from the recording)."""

        self._stop()
        try:
            data = read_session(self.path)
        except SessionError as exc:
            self.notify(one_line(str(exc)), title="Cannot fork", severity="error", markup=False)
            return
        step = self.steps[self.current_step] if self.steps else None
        # The progression the view shows (the dialog falls back to the first to reach the step).
        progression = self.query_one(RunView).progression
        dialog = ForkDialog(data, step=step.step if step else None, progression=progression)
        self.app.push_screen(dialog, lambda plan: start_fork(self, plan) if plan is not None else None)

    def action_back(self) -> None:
        self._stop()
        self.app.pop_screen()

    def action_quit_app(self) -> None:
        self._stop()
        qflow_app(self).quit_from(self)

    @on(StepChip.Chosen)
    def _chip_chosen(self, message: StepChip.Chosen) -> None:
        self._stop()
        self.go_to_step(message.number)
