"""The replay screen: a saved session drives the very same :class:`RunView` a
live run uses, from the events in the file. Step forward and backward one
workflow step at a time, jump to any step on the replay timeline, or play at
an adjustable speed (or jump to the end at once)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalScroll, Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Label, OptionList, Static
from textual.widgets.option_list import Option

from ...core.events import Event
from ...core.safe_text import markup_safe, one_line
from ..access import qflow_app
from ..widgets.run_view import RunView

#: Playback speeds, as multiples of the paced recording (see :func:`play_times`).
SPEEDS: tuple[float, ...] = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 64.0)
DEFAULT_SPEED = 1.0
#: Playback ticks per second.
TICK = 1 / 30

#: Pacing of playback at 1x: recorded gaps between events are kept within these
#: bounds (a script model's run takes milliseconds, a real model's calls take
#: seconds), and a new workflow step gets a pause of its own.
MIN_GAP = 0.08
MAX_GAP = 1.5
STEP_PAUSE = 0.6

_WORK_LABELS = {
    "program_generator": "generate",
    "test_designer": "design tests",
    "test_quality_checker": "check tests (TQC)",
    "revert": "revert",
}


@dataclass
class ReplayStep:
    """One workflow step of a replay: the events ``[start, end)``."""

    number: int
    """From 0 (the run's start); what the user sees."""
    step: str | None
    """The workflow step (``self_debug:1``), None for the start."""
    phase: str
    """``work`` (the step's agents) or ``check`` (the Code Quality Checker after it)."""
    start: int
    end: int

    @property
    def label(self) -> str:
        """Short, for the timeline chips."""
        if self.step is None:
            return "start"
        base = _step_words(self.step)
        return f"check {short_step(self.step)}" if self.phase == "check" else base

    @property
    def title(self) -> str:
        """Longer, for the step list and the status line."""
        if self.step is None:
            return "the run starts"
        if self.phase == "check":
            return f"quality check after {self.step}"
        return f"{self.step}: {_step_words(self.step)}"


def _step_words(step: str) -> str:
    name, _, n = step.partition(":")
    if name == "self_debug":
        return f"self-debug {n}"
    if name == "clarifier":
        return f"clarify {n}"
    return _WORK_LABELS.get(step, step)


def short_step(step: str) -> str:
    name, _, n = step.partition(":")
    return {"program_generator": "gen", "self_debug": f"debug {n}", "clarifier": f"clarify {n}"}.get(name, step)


def replay_steps(events: list[Event]) -> list[ReplayStep]:
    """Cut a run's events into workflow steps, the same steps a live run's step
    gate stops at: each step's agents, then the quality check that follows it.
    Step 0 is the run's start; the last step runs to the end of the file."""
    steps: list[ReplayStep] = [ReplayStep(0, None, "work", 0, len(events))]
    current: tuple[str | None, str] = (None, "work")
    for i, e in enumerate(events):
        if e.kind != "step_started" or e.step is None:
            continue
        key = (e.step, "check" if e.agent == "code_quality_checker" else "work")
        if key == current:
            continue
        steps[-1].end = i
        steps.append(ReplayStep(len(steps), key[0], key[1], i, len(events)))
        current = key
    if len(steps) > 1 and steps[0].end == 0:
        steps.pop(0)
        for n, s in enumerate(steps):
            s.number = n
    return steps


def play_times(events: list[Event], steps: list[ReplayStep]) -> list[float]:
    """When each event is shown at 1x, in seconds from the start: the recorded
    gaps, bounded by MIN_GAP..MAX_GAP, plus a pause where a step begins.
    Streamed text keeps its pace, so answers are seen being written."""
    starts = {s.start for s in steps if s.start > 0}
    times: list[float] = []
    t = 0.0
    previous = events[0].ts if events else 0.0
    for i, e in enumerate(events):
        gap = (e.ts or previous) - previous
        previous = e.ts or previous
        low = MIN_GAP * 0.6 if e.kind == "text_delta" else MIN_GAP
        t += min(MAX_GAP, max(low, gap))
        if i in starts:
            t += STEP_PAUSE
        times.append(t)
    return times


class StepChip(Static):
    """One step on the replay timeline; click to jump there."""

    class Chosen(Message):
        def __init__(self, number: int) -> None:
            super().__init__()
            self.number = number

    def __init__(self, step: ReplayStep) -> None:
        super().__init__(f"{step.number} {step.label}", classes="replay-chip", markup=False)
        self.number = step.number
        self.tooltip = step.title

    def on_click(self) -> None:
        self.post_message(self.Chosen(self.number))


class ReplayTimeline(HorizontalScroll):
    """The run's workflow steps in a row: done, current and ahead."""

    def __init__(self, steps: list[ReplayStep], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.steps = steps

    def compose(self) -> ComposeResult:
        for step in self.steps:
            yield StepChip(step)

    def show(self, current: int, finished_steps: int) -> None:
        for chip in self.query(StepChip):
            chip.set_class(chip.number == current, "-current")
            chip.set_class(chip.number < finished_steps and chip.number != current, "-done")
        try:
            chip = self.query(StepChip)[current]
        except IndexError:
            return
        self.scroll_to_widget(chip, animate=False)


class StepPicker(ModalScreen[int | None]):
    """Choose a step to jump to (``g``)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    StepPicker { align: center middle; }
    StepPicker > Vertical { width: 64; max-width: 90%; height: auto; max-height: 80%; }
    StepPicker OptionList { height: auto; max-height: 24; }
    """

    def __init__(self, steps: list[ReplayStep], current: int) -> None:
        super().__init__()
        self.steps = steps
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Jump to a workflow step", classes="dialog-title")
            yield OptionList(
                *(Option(markup_safe(f"{s.number:>2}  {one_line(s.title)}"), id=str(s.number)) for s in self.steps),
                id="step-list",
            )
            yield Static("Enter to jump, Escape to stay", classes="dialog-hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = min(self.current, len(self.steps) - 1)
        options.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(event.option.id or 0))

    def action_cancel(self) -> None:
        self.dismiss(None)


class ReplayScreen(Screen):
    """Replay a session file in the run view (see the module docstring)."""

    BINDINGS = [
        Binding("space", "toggle_play", "Play/pause", tooltip="Play the recording (again to pause)"),
        Binding("left,comma", "step(-1)", "Step back", key_display="←", tooltip="Back to the previous workflow step"),
        Binding("right,full_stop", "step(1)", "Step", key_display="→", tooltip="On to the next workflow step"),
        Binding("shift+left", "event(-1)", "Event back", show=False, tooltip="One event back"),
        Binding("shift+right", "event(1)", "Event", show=False, tooltip="One event on"),
        Binding("home", "start", "Start", show=False, tooltip="Back to the start of the run"),
        Binding("end,i", "end", "End", key_display="i", tooltip="Jump to the end at once"),
        Binding("g", "pick_step", "Go to", tooltip="Jump to any workflow step"),
        Binding("plus,equals_sign", "speed(1)", "Faster", key_display="+", tooltip="Play faster"),
        Binding("minus", "speed(-1)", "Slower", key_display="-", tooltip="Play slower"),
        Binding("escape", "back", "Back", tooltip="Leave the replay"),
    ]

    DEFAULT_CSS = """
    ReplayScreen { layout: vertical; }
    ReplayScreen #replay-view { height: 1fr; }
    ReplayScreen #replay-banner {
        height: auto; padding: 0 1; background: $warning 20%; color: $text; display: none;
    }
    ReplayScreen #replay-banner.-shown { display: block; }
    ReplayScreen #replay-banner.-error { background: $error 25%; }
    ReplayScreen #replay-bar { height: 1; background: $panel; scrollbar-size: 0 0; }
    ReplayScreen .replay-chip { width: auto; padding: 0 1; margin-right: 1; color: $text-muted; }
    ReplayScreen .replay-chip:hover { background: $boost; color: $text; }
    ReplayScreen .replay-chip.-done { color: $text; }
    ReplayScreen .replay-chip.-current { background: $accent; color: $text; text-style: bold; }
    ReplayScreen #replay-status { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """

    def __init__(self, path: str | Path, *, step: int | None = None, play: bool = False) -> None:
        super().__init__()
        self.path = Path(path)
        self.start_step = step
        """Step to open at; None opens at the end of the run (its final state)."""
        self.autoplay = play
        """Start playing from the beginning at once (the demo does)."""
        self.events: list[Event] = []
        self.header: dict[str, Any] = {}
        self.warnings: list[str] = []
        self.error: str | None = None
        self.steps: list[ReplayStep] = []
        self.times: list[float] = []
        self.position = 0
        """Events shown: the view holds exactly ``events[:position]``."""
        self.speed = DEFAULT_SPEED
        self.playing = False
        self._clock = 0.0
        self._timer: Timer | None = None
        self._load()

    def _load(self) -> None:
        from ...core.session import SessionError, read_session

        try:
            data = read_session(self.path)
        except SessionError as exc:
            self.error = str(exc)
            return
        except Exception as exc:
            self.error = one_line(f"{self.path}: cannot be replayed ({type(exc).__name__}: {exc})")
            return
        self.events = data.events
        self.header = data.header
        self.warnings = [one_line(w) for w in data.warnings]
        self.steps = replay_steps(self.events)
        self.times = play_times(self.events, self.steps)
        self.sub_title = one_line(f"replay · {data.title}", 200)  # the title comes from the file

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="replay-banner", markup=False)
        yield RunView(live=False, id="replay-view")
        yield ReplayTimeline(self.steps, id="replay-bar")
        yield Static(id="replay-status", markup=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        banner = self.query_one("#replay-banner", Static)
        if self.error:
            banner.update(f"✖ {self.error}\nPress Escape to go back.")
            banner.add_class("-shown", "-error")
            self.notify(self.error, title="Cannot replay", severity="error", timeout=15, markup=False)
            self._paint_status()
            return
        if self.warnings:
            banner.update("⚠ " + "\n⚠ ".join(self.warnings))
            banner.add_class("-shown")
            self.notify(
                "\n".join(self.warnings),
                title="Replaying what could be read",
                severity="warning",
                timeout=10,
                markup=False,
            )
        self.query_one(RunView).query_one("#run-tabs").focus()
        # `qflow replay --step N / --play` and `qflow demo` say how to open.
        app = qflow_app(self)
        options, app.replay_options = app.replay_options, {}  # once, for the first replay only
        if self.start_step is None and not self.autoplay:
            self.start_step = options.get("step")
            self.autoplay = bool(options.get("play"))
        if self.autoplay:
            self.seek(self.steps[0].end if self.steps else 0)
            self.action_toggle_play()
        elif self.start_step is not None:
            self.go_to_step(self.start_step)
        else:
            self.seek(len(self.events))

    # -- where the replay is ---------------------------------------------------------------

    @property
    def current_step(self) -> int:
        """The step the shown events belong to."""
        for step in reversed(self.steps):
            if step.start < self.position:
                return step.number
        return 0

    def seek(self, position: int) -> None:
        """Show exactly ``events[:position]``: forward by folding the events in
        between, backward by folding the prefix into a fresh view."""
        position = max(0, min(len(self.events), position))
        view = self.query_one(RunView)
        if position >= self.position:
            view.apply_many(self.events[self.position : position])
        else:
            view.reset()
            view.apply_many(self.events[:position])
        self.position = position
        self._clock = self.times[position - 1] if position else 0.0
        self._paint_status()

    def go_to_step(self, number: int) -> None:
        """Show the state at the end of step ``number`` (clamped)."""
        if not self.steps:
            return
        number = max(0, min(len(self.steps) - 1, number))
        self.seek(self.steps[number].end)

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
        if self.position >= len(self.events) and not self.playing:
            state = "■ end"
        speed = f"{self.speed:g}×"
        status.update(
            f"step {current}/{total} · {step.title if step else ''}  │  event {self.position}/{len(self.events)}  │  "
            f"{state} {speed}  │  {self.path.name}"
        )
        finished = sum(1 for s in self.steps if s.end <= self.position)
        self.query_one(ReplayTimeline).show(current, finished)
        self.refresh_bindings()

    # -- playback ---------------------------------------------------------------------------

    def _tick(self) -> None:
        if not self.playing:
            return
        self._clock += TICK * self.speed
        view = self.query_one(RunView)
        start = self.position
        while self.position < len(self.events) and self.times[self.position] <= self._clock:
            self.position += 1
        if self.position > start:
            for event in self.events[start : self.position]:
                view.apply(event)
            self._paint_status()
        if self.position >= len(self.events):
            self._stop()
            view.flush()
            self._paint_status()

    def _stop(self) -> None:
        self.playing = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    # -- actions ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (self.error and action != "back")

    def action_toggle_play(self) -> None:
        if self.playing:
            self._stop()
            self.query_one(RunView).flush()
        else:
            if self.position >= len(self.events):
                self.seek(0)
            self.playing = True
            self._clock = self.times[self.position - 1] if self.position else 0.0
            self._timer = self.set_interval(TICK, self._tick)
        self._paint_status()

    def action_step(self, delta: int) -> None:
        self._stop()
        if not self.steps:
            return
        ends = [s.end for s in self.steps]
        if delta > 0:
            later = [e for e in ends if e > self.position]
            self.seek(later[0] if later else len(self.events))
        else:
            earlier = [e for e in ends if e < self.position]
            self.seek(earlier[-1] if earlier else 0)

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
        i = min(range(len(SPEEDS)), key=lambda k: abs(SPEEDS[k] - self.speed))
        self.speed = SPEEDS[max(0, min(len(SPEEDS) - 1, i + delta))]
        self._paint_status()

    def action_pick_step(self) -> None:
        def chosen(number: int | None) -> None:
            if number is not None:
                self._stop()
                self.go_to_step(number)

        self.app.push_screen(StepPicker(self.steps, self.current_step), chosen)

    def action_back(self) -> None:
        self._stop()
        self.app.pop_screen()

    @on(StepChip.Chosen)
    def _chip_chosen(self, message: StepChip.Chosen) -> None:
        self._stop()
        self.go_to_step(message.number)
