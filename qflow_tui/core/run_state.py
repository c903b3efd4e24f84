"""The one projection of a run: what it looks like so far, rebuilt from its events alone.

:class:`RunState` is a pure reducer: ``apply(event)`` folds one event into plain
data. Every reader of a run reads it: the app's widgets (through ``ui/state.py``,
which cleans text for the terminal first), ``qflow solve``'s progress and log, the
bench's trace of each problem, and a session's summary and Markdown transcript;
so the programs, verdicts, decisions, tokens and failures are counted once, the
same way everywhere. It never reads a clock, so a live run and a replay of the
same events up to step *n* produce the same state.

It holds what every run shares (agents, steps, calls, programs, verdicts,
tokens); what only some workflows build is a piece of its own
(:mod:`qflow_tui.core.pieces`), folded here after the shared state, and the
words a screen shows for it come from :mod:`qflow_tui.core.run_text`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from . import events as ev
from .iojudge import parse_io_source
from .pieces import PIECES, StatePiece
from .problem import io_source
from .summary import RunSummary, Tokens, TokenTally, count_event, count_stop, tokens_from_dict, tokens_to_dict, total
from .workflows.base import Agent, Column, Pane, PlannedStep
from .workflows.described import describe_started

#: A run's agents and plan as its ``run_started`` event describes them: the very
#: types the workflows declare them with (read back from the event's dicts).
AgentInfo = Agent
PlanStep = PlannedStep


def _agent_of(data: object) -> AgentInfo | None:
    if not isinstance(data, dict) or not data.get("role"):
        return None
    role = str(data["role"])
    return AgentInfo(role, str(data.get("label") or role), str(data.get("short") or role))


def _step_of_plan(data: object) -> PlanStep | None:
    if not isinstance(data, dict) or not data.get("step"):
        return None
    step = str(data["step"])
    raw = data.get("agents")
    agents: list[object] = raw if isinstance(raw, list) else []
    label = str(data.get("label") or step)
    return PlanStep(
        step, label, tuple(str(a) for a in agents), str(data.get("short") or label), bool(data.get("shared"))
    )


def _pane_of(data: object) -> Pane | None:
    """A pane as a run's first event declares it (None for anything else: a
    session's text is never trusted to be well formed)."""
    if not isinstance(data, dict):
        return None
    pid, title, record = data.get("id"), data.get("title"), data.get("record")
    if not (isinstance(pid, str) and pid and isinstance(title, str) and isinstance(record, str) and record):
        return None
    columns: list[Column | str] = []
    for c in data.get("columns") or []:
        if isinstance(c, dict) and isinstance(c.get("field"), str) and c["field"]:
            width = c.get("width")
            width = width if isinstance(width, int) and not isinstance(width, bool) and 0 <= width <= 200 else 0
            columns.append(Column(c["field"], str(c.get("title") or ""), width))
        elif isinstance(c, str) and c:
            columns.append(c)
    widget, empty = data.get("widget"), data.get("empty")
    return Pane(
        pid,
        title or pid,
        record,
        tuple(columns),
        widget if isinstance(widget, str) else "",
        empty if isinstance(empty, str) else "",
    )


def _words_of(data: object) -> dict[str, str]:
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def find_plan_step(plan: list[PlanStep], step: str) -> PlanStep:
    """The planned step ``step``; a numbered repeat of a step planned once
    (``solver:3`` for ``solver``) is labelled after it; any other is its own label."""
    for s in plan:
        if s.step == step:
            return s
    name, sep, n = step.rpartition(":")
    if sep:
        for s in plan:
            if s.step == name:
                return PlanStep(step, f"{s.label} {n}", s.agents, f"{s.short} {n}", s.shared)
    return PlanStep(step, step, short=step)


@dataclass
class RunShape:
    """What a run's first event says about the workflow: who works and in which
    steps, which tabs show it, and which roles judge, check and decide."""

    agents: list[AgentInfo]
    plan: list[PlanStep]
    progressions: int
    summary: str
    tabs: tuple[str, ...] = ()
    checker: str = ""
    test_judge: str = ""
    decided: tuple[str, ...] = ()
    panes: tuple[Pane, ...] = ()
    """The workflow's own panes (tabs after the built-in ones)."""
    stage_words: dict[str, str] = dataclasses.field(default_factory=dict)
    step_words: dict[str, str] = dataclasses.field(default_factory=dict)


def run_shape(e: ev.RunStarted) -> RunShape:
    """The agents, plan, progression count and summary a run's first event declares."""
    if not e.agents or e.tabs is None or e.panes is None:
        # A stream from before RunStarted carried a whole description (the
        # session reader fills it; a stream handed over directly gets the same here).
        e = dataclasses.replace(e)
        describe_started(e)
    agents_data: list[object] = list(e.agents or [])
    plan_data: list[object] = list(e.plan or [])
    progressions = int(e.progressions or 1)
    summary = e.summary
    agents = [a for a in (_agent_of(d) for d in agents_data) if a is not None]
    plan = [s for s in (_step_of_plan(d) for d in plan_data) if s is not None]
    return RunShape(
        agents,
        plan,
        max(1, progressions),
        summary,
        tuple(str(t) for t in e.tabs or ()),
        e.checker,
        e.test_judge,
        tuple(str(r) for r in e.decided),
        tuple(p for p in (_pane_of(d) for d in e.panes or []) if p is not None),
        _words_of(e.stage_words),
        _words_of(e.step_words),
    )


P = TypeVar("P", bound=StatePiece)

#: Characters of streamed text kept per model call; older text is elided.
MAX_CALL_CHARS = 20_000
#: Model calls kept per agent and progression; older calls are summarised.
MAX_CALLS_PER_PANE = 60


@dataclass
class CallRecord:
    """One model call as it streams."""

    call_id: str
    agent: str
    step: str | None
    progression: int | None
    turn: int = 1
    epoch: int | None = None
    attempt: int | None = None
    test: str | None = None
    text: str = ""
    status: str = "streaming"
    """``streaming``, ``done`` or ``failed``."""
    input_tokens: int | None = None
    output_tokens: int | None = None
    error: str = ""
    cut: str = ""
    """Why the answer was cut short, in words (empty when it finished)."""
    seq: int = 0
    retry: str = ""
    """After a failed attempt: ``waiting`` for its retry, ``retried`` (a later call
    is that retry), ``given_up`` by the user, or ``stopped`` by the run's end."""
    retry_attempt: int = 0
    """The attempt the retry would be (from 2), of ``retry_attempts``."""
    retry_attempts: int = 0
    retry_wait: float = 0.0
    """Seconds the policy waits before the retry."""

    def append(self, text: str) -> None:
        self.text += text
        if len(self.text) > MAX_CALL_CHARS:
            self.text = "…" + self.text[-MAX_CALL_CHARS:]


@dataclass
class StageCell:
    """What happened to one progression at one workflow stage."""

    status: str = "pending"
    """``running``, ``checking``, ``done``, ``skipped``, ``failed``, ``accepted``, ``rejected``."""
    detail: str = ""
    agent: str | None = None
    """The agent that started the step; a later agent in it checks its work."""
    decision: str | None = None
    """``accept``, ``continue``, ``clarify`` or ``revert`` once the checker decided."""
    word: str = ""
    """The workflow's own word for the decision (``next plan``); empty: the core's."""
    reason: str = ""


@dataclass
class Candidate:
    """One program an agent produced, in the order the run produced them."""

    step: str | None
    progression: int | None
    agent: str | None
    program: str
    seq: int = 0


@dataclass
class Check:
    """The workflow's quality checker accepting or rejecting, at ``step``, the
    program its progression holds there."""

    step: str
    progression: int
    accepted: bool


def numbered_step(step: str) -> tuple[str, int] | None:
    """``self_debug:2`` -> (``self_debug``, 2): a step repeated by number."""
    name, sep, n = step.rpartition(":")
    return (name, int(n)) if sep and n.isdigit() else None


class RunState:
    """Everything the run view shows, derived from events in order."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.started = False
        self.workflow = ""
        self.model = ""
        self.config: dict[str, Any] = {}
        self.problem: dict[str, Any] = {}
        self._io_labels: tuple[dict[str, Any], dict[str, tuple[str, str]]] | None = None
        """The problem's I/O tests by label (see :meth:`io_pair`), for the problem it was made from."""
        self.isolation = ""
        self.agents: list[AgentInfo] = []
        """The workflow's agents: declared by the run, then any other seen in events."""
        self.plan: list[PlanStep] = []
        self.summary = ""
        self.visible_tests = ""
        self._progressions = 1
        self.first_ts: float | None = None
        self.last_ts: float | None = None
        self.last_seq = 0
        self.current_step: str | None = None
        """The stage most recently started (highlighted in the timeline)."""
        self.stages: list[str] = []
        """Stages seen so far, in order."""
        self.cells: dict[tuple[str, int | None], StageCell] = {}
        self.calls: dict[str, CallRecord] = {}
        self.calls_by_pane: dict[tuple[str, int | None], list[str]] = {}
        self.dropped_calls: dict[tuple[str, int | None], int] = {}
        self.programs: dict[int, list[tuple[str | None, str]]] = {}
        """Program candidates per progression: (step, program), oldest first."""
        self.sandbox_runs: dict[int, dict[str, Any]] = {}
        """Last sandbox run per progression (its purpose, passed/total, load error)."""
        self.tokens: Tokens = {}
        self.llm_calls = 0
        self.notices: list[tuple[str, str]] = []
        self.steered: list[ev.Steered] = []
        """A person's edits the run took, in order (the timeline shows each under its step)."""
        self.finished: ev.RunFinished | None = None
        self.visible_run: ev.VisibleTestsRun | None = None
        """The final program on the visible tests, run after the workflow decided (information only)."""
        self.failed: ev.RunFailed | None = None
        self.streaming: set[str] = set()
        self.retries_waiting: set[str] = set()
        """Failed attempts whose retry the run is waiting to make."""
        self.checker = ""
        """The role whose accepted or rejected step is a quality verdict (the first event says)."""
        self.decided: tuple[str, ...] = ()
        """The roles whose steps end in a decision event (the run's first event says)."""
        self.tabs: tuple[str, ...] = ()
        """The tabs the run uses beyond the timeline, agents and program (the first event says)."""
        self.test_judge = ""
        """The role whose verdict each synthesized test gets (the first event says); empty: none."""
        self.panes: tuple[Pane, ...] = ()
        """The workflow's own panes, each showing one kind of its records (the first event says)."""
        self.stage_words: dict[str, str] = {}
        """The workflow's stages in words (the first event says)."""
        self.step_words: dict[str, str] = {}
        """Whole step names in words (the first event says)."""
        self.steps_started: list[str] = []
        """Steps as named, in the order each first started."""
        self.candidates: list[Candidate] = []
        """Every program an agent produced, in order."""
        self.checks: list[Check] = []
        """The quality checker's verdicts, in order."""
        self.decisions: list[ev.Decision] = []
        """The run's control-flow decisions, in order."""
        self.failures: dict[str, int] = {}
        """Failed steps and reported failures (a notice's ``cause``) by their error, word for word."""
        self.stops: dict[str, int] = {}
        """Model calls by how they ended (``finished``, ``max_tokens``, ``retried``, ...)."""
        self._pieces: dict[type[StatePiece], StatePiece] = {kind: kind() for kind in PIECES}
        """The state some workflows' events build of their own (see :mod:`qflow_tui.core.pieces`)."""
        self._folds: dict[type[ev.Event], list[StatePiece]] = {}

    # -- derived -------------------------------------------------------------------

    @property
    def progressions(self) -> int:
        return self._progressions

    def agent(self, role: str) -> AgentInfo:
        for a in self.agents:
            if a.role == role:
                return a
        return AgentInfo(role, role, role)

    def short(self, role: str) -> str:
        return self.agent(role).short

    def plan_step(self, step: str) -> PlanStep:
        return find_plan_step(self.plan, step)

    def step_label(self, step: str) -> str:
        """A step in the workflow's words: its planned label (a numbered repeat
        of a planned step after it), else its words from the run's first event
        (``step_words``, else its stage's ``stage_words`` and its number:
        ``debugging:2`` -> ``debug round 2``), else its name."""
        planned = self.plan_step(step)
        if planned.label != step:
            return planned.label
        if step in self.step_words:
            return self.step_words[step]
        stage, _, number = step.partition(":")
        if stage in self.stage_words:
            words = self.stage_words[stage]
            return f"{words} {number}" if number else words
        return step

    def is_shared(self, stage: str) -> bool:
        """A step that runs once for the whole run: so planned, or so far seen
        only without a progression."""
        if self.plan_step(stage).shared:
            return True
        keys = [p for (s, p) in self.cells if s == stage]
        return bool(keys) and all(p is None for p in keys)

    def _see_agent(self, role: str | None) -> None:
        """An agent the run did not declare still gets a pane."""
        if role and all(a.role != role for a in self.agents):
            self.agents.append(AgentInfo(role, role, role))

    @property
    def is_io(self) -> bool:
        """The run's problem reads stdin and prints stdout (its tests are input/output pairs)."""
        return self.problem.get("kind") == "io"

    def io_pair(self, label: str) -> tuple[str, str] | None:
        """An I/O test's stdin and expected stdout, by the label events name it
        with: the problem's own test (whole, though its label is cut short),
        else a synthesized test's whole label read back; None for an assert
        or a label that holds no pair."""
        if not self.is_io:
            return None
        known = self._io_labels
        if known is None or known[0] is not self.problem:
            pairs: dict[str, tuple[str, str]] = {}
            for t in self.problem.get("tests") or []:
                if isinstance(t, dict) and isinstance(t.get("input"), str) and isinstance(t.get("output"), str):
                    pairs[io_source(t["input"], t["output"])] = (t["input"], t["output"])
            known = self._io_labels = (self.problem, pairs)
        return known[1].get(label) or parse_io_source(label)

    @property
    def done(self) -> bool:
        return self.finished is not None or self.failed is not None

    def elapsed_from_events(self) -> float:
        """Seconds between the first and the last event (replay's elapsed time)."""
        if self.first_ts is None or self.last_ts is None:
            return 0.0
        return max(0.0, self.last_ts - self.first_ts)

    def planned_stages(self) -> list[str]:
        """The run's planned steps, then any step seen that the plan did not foresee.

        A step planned once but run as numbered repeats (CodeTree's ``solver``
        as ``solver:1``, ``critic:1``, ...) gives way to the repeats seen, in
        the order they ran, where the first such step was planned."""
        planned = [s.step for s in self.plan]
        extra = [s for s in self.stages if s not in planned]
        repeated = {n[0] for n in (numbered_step(s) for s in extra) if n}
        out: list[str] = []
        inserted = False
        for step in planned:
            if step in repeated:
                if not inserted:
                    out += extra
                    inserted = True
                continue
            out.append(step)
        return out if inserted else out + extra

    def calls_for(self, agent: str, progression: int | None) -> list[CallRecord]:
        """Calls of one agent for one progression, plus the agent's run-wide calls."""
        ids = list(self.calls_by_pane.get((agent, None), []))
        if progression is not None:
            ids += self.calls_by_pane.get((agent, progression), [])
        calls = [self.calls[i] for i in ids if i in self.calls]
        return sorted(calls, key=lambda c: c.seq)

    def has_spoken(self, agent: str, progression: int | None) -> bool:
        """Whether an agent's pane has anything to show for one progression: a
        call (its own or run-wide) or a finished step (:meth:`steps_of`)."""
        for key in ((agent, None), (agent, progression)):
            if any(i in self.calls for i in self.calls_by_pane.get(key, ())):
                return True
        return bool(self.steps_of(agent, progression))

    def steps_of(self, agent: str, progression: int | None) -> list[tuple[str, StageCell]]:
        """The finished steps an agent started for one progression (and run-wide),
        in plan order: what a pane shows for an agent that makes no model call (a
        test executor, a rule-based debugger). A step still running is left out:
        a model's agent has not started its call yet."""
        return [
            (stage, cell)
            for stage in self.stages
            for p in (None, progression)
            if (cell := self.cells.get((stage, p))) is not None
            and cell.agent == agent
            and cell.status not in ("pending", "running", "checking")
        ]

    def dropped_for(self, agent: str, progression: int | None) -> int:
        return self.dropped_calls.get((agent, None), 0) + self.dropped_calls.get((agent, progression), 0)

    def current_program(self, progression: int) -> tuple[str | None, str] | None:
        progs = self.programs.get(progression)
        return progs[-1] if progs else None

    def first_program(self, progression: int = 0) -> str:
        progs = self.programs.get(progression)
        return progs[0][1] if progs else ""

    def cell(self, stage: str, progression: int | None) -> StageCell:
        key = (stage, progression)
        if key not in self.cells:
            self.cells[key] = StageCell()
            if stage not in self.stages:
                self.stages.append(stage)
        return self.cells[key]

    def total_tokens(self) -> TokenTally:
        return total(self.tokens)

    def failed_again(self, reason: str) -> bool:
        """Whether failures for ``reason`` were seen before the last one."""
        return self.failures.get(reason, 0) > 1

    def result(self, session: str | None = None, warnings: Iterable[str] = ()) -> RunSummary:
        """What the run came to (the ``qflow solve --json`` shape, without its
        cost); for a run that did not finish, why, among the ``warnings``."""
        said = list(warnings)
        if self.finished is not None:
            e = self.finished
            return RunSummary(
                final_program=e.final_program,
                outcome=e.outcome,
                accepted_at=e.accepted_at,
                progression=e.progression,
                llm_calls=self.llm_calls,
                tokens=tokens_to_dict(self.tokens),
                session=session,
                duration=e.duration or 0.0,
                warnings=said,
                detail=e.detail,
                stops=dict(self.stops),
            )
        if self.failed is not None:
            outcome = "cancelled" if self.failed.cancelled else "failed"
            said.append(f"the run did not finish: {self.failed.error}")
        else:
            outcome = "incomplete"
            said.append("the session ends before the run finished (the writing process stopped)")
        return RunSummary(
            final_program="",
            outcome=outcome,
            accepted_at=None,
            progression=None,
            llm_calls=self.llm_calls,
            tokens=tokens_to_dict(self.tokens),
            session=session,
            duration=self.elapsed_from_events(),
            warnings=said,
            stops=dict(self.stops),
        )

    # -- the reducer ---------------------------------------------------------------

    def apply(self, event: ev.Event) -> None:
        """Fold one event in."""
        if event.ts:
            if self.first_ts is None:
                self.first_ts = event.ts
            self.last_ts = event.ts
        self.last_seq = max(self.last_seq, event.seq)
        kind = type(event)
        handler = _HANDLER_OF[kind] if kind in _HANDLER_OF else _handler_of(kind)
        if handler is not None:
            handler(self, event)
        for piece in self._folding(kind):
            piece.apply(self, event)

    def _folding(self, kind: type[ev.Event]) -> list[StatePiece]:
        """The pieces that fold events of class ``kind``, in registration order."""
        folds = self._folds.get(kind)
        if folds is None:
            # Which kinds of piece fold it depends only on the classes: worked
            # out once a process, not once a run (a bench makes a state a problem).
            kinds = tuple(self._pieces)
            which = _FOLDERS.get((kind, kinds))
            if which is None:
                which = _FOLDERS[(kind, kinds)] = tuple(k for k in kinds if any(issubclass(kind, c) for c in k.events))
            folds = self._folds[kind] = [self._pieces[k] for k in which]
        return folds

    def piece(self, kind: type[P]) -> P:
        """This run's piece of state ``kind`` (see :mod:`qflow_tui.core.pieces`)."""
        found = self._pieces.get(kind)
        if not isinstance(found, kind):
            raise KeyError(f"{kind.__name__} is not a registered piece of run state (register_piece)")
        return found

    def _on_run_started(self, e: ev.RunStarted) -> None:
        self.started = True
        self.workflow = e.workflow
        self.model = e.model
        self.config = dict(e.config)
        self.problem = dict(e.problem)
        self.isolation = e.isolation
        shape = run_shape(e)
        self.agents, self.plan, self._progressions, self.summary = (
            shape.agents,
            shape.plan,
            shape.progressions,
            shape.summary,
        )
        self.visible_tests = e.visible_tests
        self.tabs, self.checker, self.test_judge, self.decided = (
            shape.tabs,
            shape.checker,
            shape.test_judge,
            shape.decided,
        )
        self.panes, self.stage_words, self.step_words = shape.panes, shape.stage_words, shape.step_words

    def _on_step_started(self, e: ev.StepStarted) -> None:
        stage = e.step
        if stage is None:
            return
        if e.step and e.step not in self.steps_started:
            self.steps_started.append(e.step)
        self.current_step = stage
        self._see_agent(e.agent)
        cell = self.cell(stage, e.progression)
        if cell.agent is None:
            cell.agent = e.agent
        checking = e.agent != cell.agent  # a second agent in one step checks the first one's work
        cell.status = "checking" if checking else "running"
        if e.detail and not checking:
            cell.detail = e.detail

    def _on_step_finished(self, e: ev.StepFinished) -> None:
        stage = e.step
        if stage is None:
            return
        cell = self.cell(stage, e.progression)
        cell.status = e.outcome
        if e.detail:
            cell.detail = e.detail
        if e.outcome == "failed" and e.detail:
            self.failures[e.detail] = self.failures.get(e.detail, 0) + 1
        if e.agent and e.agent == self.checker and e.outcome in ("accepted", "rejected") and e.progression is not None:
            self.checks.append(Check(stage, e.progression, e.outcome == "accepted"))

    def _on_decision(self, e: ev.Decision) -> None:
        stage = e.step
        if stage is None:
            return
        cell = self.cell(stage, e.progression)
        cell.decision = e.decision
        cell.word = e.word
        cell.reason = e.reason
        self.decisions.append(e)

    def _on_llm_call_started(self, e: ev.LLMCallStarted) -> None:
        agent = e.agent or "model"
        self._see_agent(agent)
        rec = CallRecord(
            call_id=e.call_id,
            agent=agent,
            step=e.step,
            progression=e.progression,
            turn=e.turn,
            epoch=e.epoch,
            attempt=e.attempt,
            test=e.test,
            seq=e.seq,
        )
        self.calls[e.call_id] = rec
        self._retry_ends(e.retry_of, "retried")
        key = (agent, e.progression)
        pane = self.calls_by_pane.setdefault(key, [])
        pane.append(e.call_id)
        if len(pane) > MAX_CALLS_PER_PANE:
            old = pane.pop(0)
            self.calls.pop(old, None)
            self.dropped_calls[key] = self.dropped_calls.get(key, 0) + 1
        self.streaming.add(e.call_id)

    def _on_text_delta(self, e: ev.TextDelta) -> None:
        rec = self.calls.get(e.call_id)
        if rec is None:
            return
        rec.append(e.text)

    def _on_llm_call_finished(self, e: ev.LLMCallFinished) -> None:
        rec = self.calls.get(e.call_id)
        if rec is not None:
            rec.status = "done"
            rec.text = e.response[-MAX_CALL_CHARS:]
            rec.input_tokens = e.input_tokens
            rec.output_tokens = e.output_tokens
            if e.stop_reason != "finished":
                rec.cut = e.detail or e.stop_reason.replace("_", " ")
        self.streaming.discard(e.call_id)
        count_event(self.tokens, e)
        count_stop(self.stops, e)
        self.llm_calls += 1

    def _on_llm_call_failed(self, e: ev.LLMCallFailed) -> None:
        rec = self.calls.get(e.call_id)
        if rec is not None:
            rec.status = "failed"
            rec.error = e.error
            if e.stop_reason == "timeout":
                rec.cut = "timed out"
        self.streaming.discard(e.call_id)
        count_event(self.tokens, e)  # a cut call's counted tokens
        count_stop(self.stops, e)

    def _on_llm_call_retry(self, e: ev.LLMCallRetry) -> None:
        rec = self.calls.get(e.call_id)
        if rec is not None:
            rec.error = e.error
            rec.retry = "waiting"
            rec.retry_attempt = e.retry_attempt
            rec.retry_attempts = e.retry_attempts
            rec.retry_wait = e.wait
        self.retries_waiting.add(e.call_id)

    def _on_llm_call_given_up(self, e: ev.LLMCallGivenUp) -> None:
        rec = self.calls.get(e.call_id)
        if rec is not None:
            rec.retry = "given_up"
        self.retries_waiting.discard(e.call_id)
        count_stop(self.stops, e)

    def _retry_ends(self, call_id: str | None, how: str) -> None:
        if call_id is None:
            return
        rec = self.calls.get(call_id)
        if rec is not None and rec.retry == "waiting":
            rec.retry = how
        self.retries_waiting.discard(call_id)

    def _on_program_candidate(self, e: ev.ProgramCandidate) -> None:
        self.candidates.append(Candidate(e.step, e.progression, e.agent, e.program, e.seq))
        if e.progression is None:
            return
        self.programs.setdefault(e.progression, []).append((e.step, e.program))

    def _on_sandbox_run(self, e: ev.SandboxRun) -> None:
        if e.progression is None:
            return
        self.sandbox_runs[e.progression] = {
            "purpose": e.purpose,
            "step": e.step,
            "passed": e.passed,
            "total": e.total,
            "load_error": e.load_error,
        }

    def _on_steered(self, e: ev.Steered) -> None:
        self.steered.append(e)

    def steered_at(self, stage: str) -> list[ev.Steered]:
        """The edits taken at ``stage`` (its check included)."""
        return [e for e in self.steered if e.step == stage]

    def _on_notice(self, e: ev.Notice) -> None:
        self.notices.append((e.level, e.message))
        if e.level != "info" and e.cause:
            self.failures[e.cause] = self.failures.get(e.cause, 0) + 1

    def _end_retries(self) -> None:
        for call_id in list(self.retries_waiting):
            self._retry_ends(call_id, "stopped")

    def _on_visible_tests_run(self, e: ev.VisibleTestsRun) -> None:
        self.visible_run = e

    def _on_run_finished(self, e: ev.RunFinished) -> None:
        self.finished = e
        self.streaming.clear()
        self._end_retries()
        if e.tokens:
            # The runner's own count is authoritative at the end.
            self.tokens = tokens_from_dict(e.tokens)
            self.llm_calls = e.llm_calls
        self.current_step = e.accepted_at or self.current_step

    def _on_run_failed(self, e: ev.RunFailed) -> None:
        self.failed = e
        self.streaming.clear()
        self._end_retries()
        for rec in self.calls.values():
            if rec.status == "streaming":
                rec.status = "failed"
                rec.error = rec.error or e.error


#: The reducer's dispatch, by event class: a misspelt class is an error at import,
#: and a test checks every handler is reachable from here.
_HANDLERS: dict[type[ev.Event], Callable[[RunState, Any], None]] = {
    ev.RunStarted: RunState._on_run_started,
    ev.StepStarted: RunState._on_step_started,
    ev.StepFinished: RunState._on_step_finished,
    ev.Decision: RunState._on_decision,
    ev.LLMCallStarted: RunState._on_llm_call_started,
    ev.TextDelta: RunState._on_text_delta,
    ev.LLMCallFinished: RunState._on_llm_call_finished,
    ev.LLMCallFailed: RunState._on_llm_call_failed,
    ev.LLMCallRetry: RunState._on_llm_call_retry,
    ev.LLMCallGivenUp: RunState._on_llm_call_given_up,
    ev.ProgramCandidate: RunState._on_program_candidate,
    ev.SandboxRun: RunState._on_sandbox_run,
    ev.Notice: RunState._on_notice,
    ev.Steered: RunState._on_steered,
    ev.VisibleTestsRun: RunState._on_visible_tests_run,
    ev.RunFinished: RunState._on_run_finished,
    ev.RunFailed: RunState._on_run_failed,
}


#: Each event class's handler in :data:`_HANDLERS` (its own or its nearest
#: base's), found once a process.
_HANDLER_OF: dict[type[ev.Event], Callable[[RunState, Any], None] | None] = {}
#: For an event class and the kinds of piece a state has (in order): the kinds
#: that fold it (see :meth:`RunState._folding`).
_FOLDERS: dict[tuple[type[ev.Event], tuple[type[StatePiece], ...]], tuple[type[StatePiece], ...]] = {}


def _handler_of(kind: type[ev.Event]) -> Callable[[RunState, Any], None] | None:
    handler = next((_HANDLERS[c] for c in kind.__mro__ if c in _HANDLERS), None)
    _HANDLER_OF[kind] = handler
    return handler
