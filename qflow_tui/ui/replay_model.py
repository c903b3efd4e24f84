"""A replay's steps and its clock, without Textual: where each workflow step of a
recorded run begins and ends, when each event is shown at 1x, and the recorded
time at any point (idle time at a step-mode gate left out)."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.events import (
    Decision,
    Event,
    GateStop,
    LLMCallFailed,
    LLMCallFinished,
    LLMCallStarted,
    RunStarted,
    StepStarted,
    TextDelta,
)
from .state import AgentInfo, PlanStep, find_plan_step, run_shape

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
#: A gap before a step start longer than this, with no model call in flight, is
#: time the run waited at a step-mode gate for a key.
GATE_ALLOWANCE = 0.25


@dataclass
class ReplayStep:
    """One workflow step of a replay: the events ``[start, end)``."""

    number: int
    """From 0 (the run's start); what the user sees."""
    step: str | None
    """The workflow step (``self_debug:1``); None for the start."""
    phase: str
    """``work`` (the step's own agent) or ``check`` (a later agent checking that work)."""
    start: int
    end: int
    label: str = "start"
    """Short, for the timeline chips."""
    title: str = "the run starts"
    """Longer, for the step list and the status line."""


class _Names:
    """Labels for steps and agents, from the run's ``run_started`` event."""

    def __init__(self, events: list[Event]) -> None:
        first = next((e for e in events if isinstance(e, RunStarted)), None)
        self.agents: dict[str, AgentInfo] = {}
        self.plan: dict[str, PlanStep] = {}
        self.progressions = 1
        if first is not None:
            shape = run_shape(first)
            self.progressions = shape.progressions
            self.agents = {a.role: a for a in shape.agents}
            self.plan = {s.step: s for s in shape.plan}

    def step(self, step: str) -> PlanStep:
        return find_plan_step(list(self.plan.values()), step)

    def work(self, step: str) -> tuple[str, str]:
        label = self.step(step).label
        return label, f"{step}: {label}" if label != step else step

    def check_by_agent(self, step: str, agent: str | None) -> tuple[str, str]:
        who = self.agents[agent].label if agent in self.agents else (agent or "check")
        return f"check {self.step(step).short}", f"{who} after {step}"

    def stop(self, e: GateStop) -> tuple[str, str, str]:
        """A gate stop -> (phase, chip label, title): a step's own work, or its
        checker checking it."""
        step = e.step or ""
        if e.check:
            return ("check", *self.check_by_agent(step, e.agent))
        return ("work", *self.work(step))


def short_step(step: str) -> str:
    """A step name in words for narrow columns, the same for every workflow:
    ``self_debug:1`` -> ``self debug 1`` (no workflow's names are spelled here)."""
    name, _, n = step.partition(":")
    return f"{name.replace('_', ' ')} {n}".strip()


def replay_steps(events: list[Event]) -> list[ReplayStep]:
    """Cut a run's events into the steps a live run's step gate stops at.

    A session with ``gate_stop`` events has one step per stop (where the live
    gate stops, once per progression, stepping or not). Each such step starts
    at its stop and ends where its own work is done (:func:`_step_close`): a
    check ends at its verdicts and its decision, not at the next stop, which
    with progressions running side by side often comes first. The steps are
    numbered in the order they end, so stepping forward never goes back in
    the recording. An older session is cut where a step starts: each step's
    first agent's work, then a later agent in the same step checking it. Step
    0 is the run's start; the last step runs to the end of the file."""
    names = _Names(events)
    steps: list[ReplayStep] = [ReplayStep(0, None, "work", 0, len(events))]
    if any(isinstance(e, GateStop) for e in events):
        cut: list[ReplayStep] = []
        for i, e in enumerate(events):
            if not isinstance(e, GateStop) or not e.step:
                continue
            # One replay step per stop, as the live gate stops once per progression.
            phase, label, title = names.stop(e)
            if e.progression is not None and names.progressions > 1:
                label, title = f"{label} p{e.progression}", f"{title} (progression {e.progression})"
            if not cut:
                steps[0].end = i
            cut.append(ReplayStep(0, e.step, phase, i, _step_close(events, i) + 1, label, title))
        # In the order the steps end (a stop's position breaks a tie).
        cut.sort(key=lambda s: (s.end, s.start))
        if cut:
            cut[-1].end = len(events)
        for n, s in enumerate(cut, start=1):
            s.number = n
        steps.extend(cut)
    else:
        first_agent: dict[str, str | None] = {}
        current: tuple[str | None, str] = (None, "work")
        for i, e in enumerate(events):
            if not isinstance(e, StepStarted) or e.step is None:
                continue
            planned = names.step(e.step).agents
            owner = first_agent.setdefault(e.step, planned[0] if planned else e.agent)
            phase = "work" if e.agent == owner else "check"
            key = (e.step, phase)
            if key == current:
                continue
            label, title = names.work(e.step) if phase == "work" else names.check_by_agent(e.step, e.agent)
            steps[-1].end = i
            steps.append(ReplayStep(len(steps), key[0], key[1], i, len(events), label, title))
            current = key
    if len(steps) > 1 and steps[0].end == 0:
        steps.pop(0)
        for n, s in enumerate(steps):
            s.number = n
    return steps


def _step_close(events: list[Event], stop: int) -> int:
    """The index of the last event of the step whose gate stop is at ``stop``:
    its ``step_finished`` and the checker's ``decision`` after it (a check's
    verdicts come before both). A step never entered (the run ended at the
    gate) closes at its stop."""
    at = events[stop]
    progression = at.progression
    started: StepStarted | None = None
    close = stop
    for j in range(stop + 1, len(events)):
        e = events[j]
        if e.progression != progression:
            continue
        if isinstance(e, GateStop):
            break  # this progression's next stop: the step is over
        if started is None:
            if isinstance(e, StepStarted) and (at.agent is None or e.agent == at.agent):
                started, close = e, j
            continue
        if isinstance(e, StepStarted) and (e.step, e.agent) == (started.step, started.agent):
            break  # the same step entered again has a stop of its own
        if e.step == started.step and (e.agent == started.agent or isinstance(e, Decision)):
            close = j
    return close


def idle_gaps(events: list[Event]) -> list[float]:
    """Seconds of each event's gap (since the event before) that the run spent
    idle at a step-mode gate: a gap that ends where a step starts while no model
    call is in flight. A free run goes from one step to the next at once."""
    idle: list[float] = []
    in_flight: set[str] = set()
    previous = events[0].ts if events else 0.0
    for e in events:
        gap = max(0.0, (e.ts or previous) - previous)
        previous = e.ts or previous
        quiet = isinstance(e, StepStarted) and not in_flight
        idle.append(max(0.0, gap - GATE_ALLOWANCE) if quiet else 0.0)
        match e:
            case LLMCallStarted(call_id=call) if call:
                in_flight.add(call)
            case LLMCallFinished(call_id=call) | LLMCallFailed(call_id=call) if call:
                in_flight.discard(call)
    return idle


def recorded_elapsed(events: list[Event]) -> list[float]:
    """The run's own clock after each event: recorded time since the first event,
    without the idle time at the gate (what the live run's status bar showed,
    less the waiting for a key)."""
    idle = idle_gaps(events)
    out: list[float] = []
    first = events[0].ts if events else 0.0
    skipped = 0.0
    for e, wait in zip(events, idle, strict=True):
        skipped += wait
        out.append(max(0.0, (e.ts or first) - first - skipped))
    return out


def play_times(events: list[Event], steps: list[ReplayStep]) -> list[float]:
    """When each event is shown at 1x, in seconds from the start: the recorded
    gaps, bounded by MIN_GAP..MAX_GAP, plus a pause where a step begins; idle
    time at a step-mode gate is skipped. Streamed text keeps its pace, so
    answers are seen being written."""
    starts = {s.start for s in steps if s.start > 0}
    idle = idle_gaps(events)
    times: list[float] = []
    t = 0.0
    previous = events[0].ts if events else 0.0
    for i, e in enumerate(events):
        gap = (e.ts or previous) - previous - idle[i]
        previous = e.ts or previous
        low = MIN_GAP * 0.6 if isinstance(e, TextDelta) else MIN_GAP
        t += min(MAX_GAP, max(low, gap))
        if i in starts:
            t += STEP_PAUSE
        times.append(t)
    return times


class ReplayCursor:
    """Which events of a recording are shown, and the playback clock.

    ``position`` events are shown (``events[:position]``); ``step_target`` says
    where a step forward or back lands; ``advance`` moves the playback clock."""

    def __init__(self, events: list[Event]) -> None:
        self.events = events
        self.steps = replay_steps(events)
        self.times = play_times(events, self.steps)
        self.recorded = recorded_elapsed(events)
        self.position = 0
        self.speed = DEFAULT_SPEED
        self.clock = 0.0
        """Playback seconds at 1x since the start (times[position - 1] when still)."""

    def __len__(self) -> int:
        return len(self.events)

    @property
    def at_end(self) -> bool:
        return self.position >= len(self.events)

    @property
    def current_step(self) -> int:
        """The step the shown events belong to: the first not yet over (the one
        that ends exactly here, at a step's end)."""
        for step in self.steps:
            if step.end >= self.position:
                return step.number
        return self.steps[-1].number if self.steps else 0

    @property
    def finished_steps(self) -> int:
        return sum(1 for s in self.steps if s.end <= self.position)

    @property
    def elapsed(self) -> float:
        """The recorded run time at the shown position."""
        return self.recorded[self.position - 1] if self.position else 0.0

    def clamp(self, position: int) -> int:
        return max(0, min(len(self.events), position))

    def moved_to(self, position: int) -> None:
        self.position = self.clamp(position)
        self.clock = self.times[self.position - 1] if self.position else 0.0

    def step_target(self, delta: int) -> int:
        """Where one workflow step forward (delta > 0) or back lands."""
        ends = [s.end for s in self.steps]
        if delta > 0:
            later = [e for e in ends if e > self.position]
            return later[0] if later else len(self.events)
        earlier = [e for e in ends if e < self.position]
        return earlier[-1] if earlier else 0

    def step_end(self, number: int) -> int:
        """The position at the end of step ``number`` (clamped)."""
        number = max(0, min(len(self.steps) - 1, number))
        return self.steps[number].end

    def advance(self, seconds: float) -> int:
        """Move the playback clock on by ``seconds`` of wall time at the current
        speed; return the position playback has reached (not yet applied)."""
        self.clock += seconds * self.speed
        position = self.position
        while position < len(self.events) and self.times[position] <= self.clock:
            position += 1
        return position

    def change_speed(self, delta: int) -> None:
        i = min(range(len(SPEEDS)), key=lambda k: abs(SPEEDS[k] - self.speed))
        self.speed = SPEEDS[max(0, min(len(SPEEDS) - 1, i + delta))]
