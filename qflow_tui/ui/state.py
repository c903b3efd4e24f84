"""What a run looks like so far, rebuilt from its events alone.

:class:`RunState` is a pure reducer: ``apply(event)`` folds one core event into
plain data the widgets render. It never reads a clock, so a live run and a replay
of the same events up to step *n* produce the same state (and the same screen).
No Textual import here: the state can be tested without an app.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..core import events as ev
from ..core.safe_text import scrub
from ..core.summary import Tokens, TokenTally, count_call, tokens_from_dict, total

#: The agents that get a pane, in the order the workflow calls them (paper's names).
AGENTS: tuple[str, ...] = (
    "program_generator",
    "test_designer",
    "test_quality_checker",
    "self_debugger",
    "code_quality_checker",
    "clarifier",
)

#: Short labels for narrow places (status bar, headers).
AGENT_SHORT: dict[str, str] = {
    "program_generator": "PG",
    "test_designer": "TD",
    "test_quality_checker": "TQC",
    "self_debugger": "SD",
    "code_quality_checker": "CQC",
    "clarifier": "CL",
    "yesno_checker": "YN",
}

#: Steps the whole run shares (not per progression).
SHARED_STEPS = ("test_designer", "test_quality_checker")

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
    decision: str | None = None
    """``accept``, ``continue``, ``clarify`` or ``revert`` once the checker decided."""
    reason: str = ""


@dataclass
class ImaginedRecord:
    """One visible test checked by imagined execution (live or finished)."""

    step: str | None
    progression: int | None
    test: str
    reasoning: str = ""
    answer: str = ""
    value: str | None = None
    verdict: str | None = None
    """``pass``, ``fail``, or None while the model is still answering."""
    detail: str = ""
    function_call: str = ""


@dataclass
class SynthTest:
    """One synthesized test, its Test Quality Checker verdict and last results."""

    test: str
    round: int
    verdict: str | None = None
    """``kept``, ``rejected`` or None before the TQC judged it."""
    reasoning: str = ""
    value: str | None = None
    detail: str = ""
    results: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Last execution result against each progression's program, keyed by progression."""


def _stage_of(step: str | None) -> str | None:
    """``quality_check:self_debug:1`` (a gate label) and ``self_debug:1`` share a stage."""
    if step is None:
        return None
    return step.removeprefix("quality_check:")


_STAGE_RE = re.compile(r"^(self_debug|clarifier):(\d+)$")


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
        self.isolation = ""
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
        self.imagined: dict[tuple[str | None, int | None, str], ImaginedRecord] = {}
        self.synth: list[SynthTest] = []
        self._synth_index: dict[str, int] = {}
        self.tests_designed = 0
        self.test_round = 0
        self.programs: dict[int, list[tuple[str | None, str]]] = {}
        """Program candidates per progression: (step, program), oldest first."""
        self.sandbox_runs: dict[int, dict[str, Any]] = {}
        """Last sandbox run per progression (its purpose, passed/total, load error)."""
        self.tokens: Tokens = {}
        self.llm_calls = 0
        self.notices: list[tuple[str, str]] = []
        self.finished: ev.RunFinished | None = None
        self.failed: ev.RunFailed | None = None
        self.streaming: set[str] = set()

    # -- derived -------------------------------------------------------------------

    @property
    def progressions(self) -> int:
        return int(self.config.get("prompts", 1) or 1)

    @property
    def max_tests(self) -> int:
        return int(self.config.get("max_tests", 50) or 50)

    @property
    def done(self) -> bool:
        return self.finished is not None or self.failed is not None

    def elapsed_from_events(self) -> float:
        """Seconds between the first and the last event (replay's elapsed time)."""
        if self.first_ts is None or self.last_ts is None:
            return 0.0
        return max(0.0, self.last_ts - self.first_ts)

    def planned_stages(self) -> list[str]:
        """The stages Algorithm 1 will go through with this config, seen or not."""
        cfg = self.config
        if self.workflow and self.workflow != "qualityflow":
            return list(self.stages)
        plan = ["program_generator"]
        epochs = int(cfg.get("epochs", 3))
        if epochs:
            plan.append("test_designer")
            if cfg.get("tqc", True):
                plan.append("test_quality_checker")
        plan += [f"self_debug:{e}" for e in range(1, epochs + 1)]
        plan += [f"clarifier:{a}" for a in range(1, int(cfg.get("clarify", 3)) + 1)]
        if cfg.get("checker", "imagined") != "none" and cfg.get("revert", True):
            plan.append("revert")
        for s in self.stages:  # anything the plan did not foresee still shows
            if s not in plan:
                plan.append(s)
        return plan

    def progress_text(self) -> str:
        """One line: which step, which epoch, how many tests designed."""
        if self.failed is not None:
            return "cancelled" if self.failed.cancelled else "failed: " + self.failed.error
        if self.finished is not None:
            where = f" at {self.finished.accepted_at}" if self.finished.accepted_at else ""
            return f"finished: {self.finished.outcome}{where}"
        if not self.started:
            return "waiting to start"
        parts = [self.current_step or "starting"]
        m = _STAGE_RE.match(self.current_step or "")
        if m and m.group(1) == "self_debug":
            parts.append(f"epoch {m.group(2)}/{self.config.get('epochs', 3)}")
        elif m:
            parts.append(f"clarifier attempt {m.group(2)}/{self.config.get('clarify', 3)}")
        if self.test_round or self.current_step == "test_designer":
            parts.append(f"tests designed {self.tests_designed}/{self.max_tests}")
        if self.streaming:
            parts.append(f"{len(self.streaming)} streaming")
        return " · ".join(parts)

    def calls_for(self, agent: str, progression: int | None) -> list[CallRecord]:
        """Calls of one agent for one progression, plus the agent's run-wide calls."""
        ids = list(self.calls_by_pane.get((agent, None), []))
        if progression is not None:
            ids += self.calls_by_pane.get((agent, progression), [])
        calls = [self.calls[i] for i in ids if i in self.calls]
        return sorted(calls, key=lambda c: c.seq)

    def dropped_for(self, agent: str, progression: int | None) -> int:
        return self.dropped_calls.get((agent, None), 0) + self.dropped_calls.get((agent, progression), 0)

    def imagined_for(self, progression: int | None) -> list[ImaginedRecord]:
        return [r for r in self.imagined.values() if r.progression == progression]

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

    # -- the reducer ---------------------------------------------------------------

    def apply(self, event: ev.Event) -> str:
        """Fold one event in; return the kind of change (for selective refresh)."""
        event = scrub(event)  # model, program and file text never drives the terminal
        if event.ts:
            if self.first_ts is None:
                self.first_ts = event.ts
            self.last_ts = event.ts
        self.last_seq = max(self.last_seq, event.seq)
        handler = getattr(self, f"_on_{event.kind}", None)
        if handler is not None:
            handler(event)
        return event.kind

    def _on_run_started(self, e: ev.RunStarted) -> None:
        self.started = True
        self.workflow = e.workflow
        self.model = e.model
        self.config = dict(e.config)
        self.problem = dict(e.problem)
        self.isolation = e.isolation

    def _on_step_started(self, e: ev.StepStarted) -> None:
        stage = _stage_of(e.step)
        if stage is None:
            return
        self.current_step = stage
        cell = self.cell(stage, None if stage in SHARED_STEPS else e.progression)
        cell.status = "checking" if e.agent == "code_quality_checker" else "running"
        if e.detail and e.agent != "code_quality_checker":
            cell.detail = e.detail

    def _on_step_finished(self, e: ev.StepFinished) -> None:
        stage = _stage_of(e.step)
        if stage is None:
            return
        cell = self.cell(stage, None if stage in SHARED_STEPS else e.progression)
        cell.status = e.outcome
        if e.detail:
            cell.detail = e.detail

    def _on_decision(self, e: ev.Decision) -> None:
        stage = _stage_of(e.step)
        if stage is None:
            return
        cell = self.cell(stage, e.progression)
        cell.decision = e.decision
        cell.reason = e.reason

    def _on_llm_call_started(self, e: ev.LLMCallStarted) -> None:
        agent = e.agent or "model"
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
        key = (agent, e.progression)
        pane = self.calls_by_pane.setdefault(key, [])
        pane.append(e.call_id)
        if len(pane) > MAX_CALLS_PER_PANE:
            old = pane.pop(0)
            self.calls.pop(old, None)
            self.dropped_calls[key] = self.dropped_calls.get(key, 0) + 1
        self.streaming.add(e.call_id)
        if agent == "code_quality_checker" and e.test and e.turn == 1:
            self.imagined.setdefault(
                (_stage_of(e.step), e.progression, e.test),
                ImaginedRecord(step=_stage_of(e.step), progression=e.progression, test=e.test),
            )

    def _on_text_delta(self, e: ev.TextDelta) -> None:
        rec = self.calls.get(e.call_id)
        if rec is None:
            return
        rec.append(e.text)
        if rec.agent == "code_quality_checker" and rec.test and rec.turn == 1:
            im = self.imagined.get((_stage_of(rec.step), rec.progression, rec.test))
            if im is not None and im.verdict is None:
                im.reasoning = rec.text

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
        count_call(self.tokens, e.agent or "model", e.input_tokens, e.output_tokens)
        self.llm_calls += 1

    def _on_llm_call_failed(self, e: ev.LLMCallFailed) -> None:
        rec = self.calls.get(e.call_id)
        if rec is not None:
            rec.status = "failed"
            rec.error = e.error
            if e.stop_reason == "timeout":
                rec.cut = "timed out"
        self.streaming.discard(e.call_id)

    def _on_llm_call_retry(self, e: ev.LLMCallRetry) -> None:
        rec = self.calls.get(e.call_id)
        if rec is not None:
            rec.error = f"{e.error}\n↻ retrying: attempt {e.retry_attempt} of {e.retry_attempts} in {e.wait:.1f} s"

    def _on_program_candidate(self, e: ev.ProgramCandidate) -> None:
        if e.progression is None:
            return
        self.programs.setdefault(e.progression, []).append((_stage_of(e.step), e.program))

    def _on_sandbox_run(self, e: ev.SandboxRun) -> None:
        if e.progression is None:
            return
        self.sandbox_runs[e.progression] = {
            "purpose": e.purpose,
            "step": _stage_of(e.step),
            "passed": e.passed,
            "total": e.total,
            "load_error": e.load_error,
        }
        if e.purpose not in ("self_debug", "after_debug"):
            return
        for r in e.results:
            idx = self._synth_index.get(str(r.get("test", "")).strip())
            if idx is not None:
                result = dict(r)
                result["step"] = _stage_of(e.step)
                result["when"] = "after" if e.purpose == "after_debug" else "before"
                if e.load_error and r.get("status") != "pass":
                    result.setdefault("error", e.load_error)
                self.synth[idx].results[e.progression] = result

    def _on_imagined_check(self, e: ev.ImaginedCheck) -> None:
        key = (_stage_of(e.step), e.progression, e.test)
        rec = self.imagined.get(key)
        if rec is None:
            rec = ImaginedRecord(step=_stage_of(e.step), progression=e.progression, test=e.test)
            self.imagined[key] = rec
        rec.reasoning = e.reasoning
        rec.answer = e.answer
        rec.value = e.value
        rec.verdict = e.verdict
        rec.detail = e.detail
        rec.function_call = e.function_call

    def _on_tests_designed(self, e: ev.TestsDesigned) -> None:
        self.test_round = e.round
        self.tests_designed = e.total
        for t in e.tests:
            key = t.strip()
            if key in self._synth_index:
                continue
            self._synth_index[key] = len(self.synth)
            self.synth.append(SynthTest(test=t, round=e.round))
        cell = self.cell("test_designer", None)
        cell.detail = f"{e.total} tests, round {e.round}/{self.config.get('test_rounds', 5)}"

    def _on_tqc_verdict(self, e: ev.TQCVerdict) -> None:
        idx = self._synth_index.get(e.test.strip())
        if idx is None:
            idx = len(self.synth)
            self._synth_index[e.test.strip()] = idx
            self.synth.append(SynthTest(test=e.test, round=0))
        t = self.synth[idx]
        t.verdict = e.verdict
        t.reasoning = e.reasoning
        t.value = e.value
        t.detail = e.detail
        kept = sum(1 for s in self.synth if s.verdict == "kept")
        rejected = sum(1 for s in self.synth if s.verdict == "rejected")
        self.cell("test_quality_checker", None).detail = f"{kept} kept, {rejected} rejected"

    def _on_notice(self, e: ev.Notice) -> None:
        self.notices.append((e.level, e.message))

    def _on_run_finished(self, e: ev.RunFinished) -> None:
        self.finished = e
        self.streaming.clear()
        if e.tokens:
            # The runner's own count is authoritative at the end.
            self.tokens = tokens_from_dict(e.tokens)
            self.llm_calls = e.llm_calls
        self.current_step = e.accepted_at or self.current_step

    def _on_run_failed(self, e: ev.RunFailed) -> None:
        self.failed = e
        self.streaming.clear()
        for rec in self.calls.values():
            if rec.status == "streaming":
                rec.status = "failed"
                rec.error = rec.error or e.error
