"""QualityFlow (Algorithm 1), with Diversified Prompting.

Each progression (one per program-generator prompt) runs Algorithm 1 on its
own, as fast as its calls return: program_generator -> self_debug:1..E ->
clarifier:1..C, each stage ending in a quality check. The synthesized tests
(test designer, then the Test Quality Checker) are made once, when the first
progression needs them, and shared.

The rule that picks the result among progressions is ours, not the paper's
(section 3.6 relies on the quality check "to pick up the correct solution" and
says no more): the accepted program of the earliest stage wins, lowest
progression index first. A progression's acceptance wins as soon as no
other progression can beat it any more (every lower-index progression has
finished that stage without acceptance, every higher-index one the stage
before); the work still running elsewhere is then cancelled, so no later call
is paid for. Nothing waits on a stage barrier the rule does not need.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field

from ...agents.test_executor import execution_feedback
from ...config import RunConfig
from ...context import RunContext
from ...events import Decision, DecisionWord, Notice
from ...llm import LLMError
from ...sandbox.report import SandboxReport
from ...steer.edits import has_program, steered_program, steered_statement, steered_tests, steered_verdict
from ...steps import StepId, StepOutcome
from ...steps import step as enter_step
from ..base import WorkflowResult
from . import CHECKER, CLARIFY, EPOCHS, REVERT, SPEC, TQC
from .clarifier import clarify
from .code_quality_checker import CheckResult, check_program
from .program_generator import generate_clarified_program, generate_program
from .self_debugger import debug, run_synthesized_tests
from .test_designer import design_tests
from .test_quality_checker import filter_tests

#: A stage a progression will never be accepted at (it stopped or ran out of steps).
_NEVER = 1 << 30


@dataclass
class Progression:
    """One parallel line of the workflow, started by one generator prompt."""

    index: int
    generated: str = ""
    """GeneratedCode: the first program, the one a revert returns to."""
    current: str = ""
    check: CheckResult | None = None
    trajectory: list[str] = field(default_factory=list)
    debugged: bool = False
    """The self-debugger revised the program at least once."""
    debug_exhausted: bool = False
    """No failing synthesized test is left to debug against."""
    report: SandboxReport | None = None
    """The kept tests' results on ``current``, when already run."""
    report_for: list[str] | None = None
    """The kept tests ``report`` ran (a person's edit to the tests makes it stale)."""
    debug_result: str = ""
    """DebuggedCode: what self-debugging ended with; every clarifier attempt starts from it."""
    debug_check: CheckResult | None = None
    """The quality check of ``debug_result``."""
    failed: str | None = None
    """Why a model failure stopped this progression (the others go on)."""
    at: str = ""
    """The step it is in, for the notice when the run ends around it."""


@dataclass
class TestSet:
    """The synthesized tests every progression debugs against."""

    kept: list[str]
    rejected: list[str]
    why_none: str = ""
    """Why no test is left to debug against, in words for the timeline."""


class Referee:
    """The winner rule (ours: the paper names none), applied as progressions
    report: the accepted program of the earliest stage wins, lowest progression
    index first."""

    def __init__(self, progressions: int) -> None:
        self.cleared = [-1] * progressions
        """Per progression: the last stage it finished without acceptance."""
        self.accepted: dict[int, int] = {}
        """Progression -> the stage whose check accepted its program."""
        self.changed = asyncio.Event()

    def cleared_stage(self, p: int, stage: int) -> None:
        self.cleared[p] = max(self.cleared[p], stage)
        self.changed.set()

    def accept(self, p: int, stage: int) -> None:
        self.accepted[p] = stage
        self.cleared[p] = max(self.cleared[p], stage - 1)
        self.changed.set()

    def stopped(self, p: int) -> None:
        """``p`` will accept nothing any more (it failed, or ran out of steps)."""
        if p not in self.accepted:
            self.cleared[p] = _NEVER
        self.changed.set()

    def out_of_the_race(self, p: int) -> bool:
        """Nothing ``p`` can still do will be reported: an accepted program at an
        earlier stage, or at the same stage from a lower index, beats it."""
        if p in self.accepted or not self.accepted:
            return False
        best = min((s, q) for q, s in self.accepted.items())
        return best < (self.cleared[p] + 1, p)

    def winner(self) -> tuple[int, int] | None:
        """``(stage, progression)`` once no other progression can beat it."""
        if not self.accepted:
            return None
        stage, best = min((s, p) for p, s in self.accepted.items())
        for other, cleared in enumerate(self.cleared):
            if other == best:
                continue
            # A lower index wins a tie at this stage; anyone wins with an earlier stage.
            if cleared < (stage if other < best else stage - 1):
                return None
        return stage, best


def _stages(cfg: RunConfig) -> list[str]:
    return [
        "program_generator",
        *(f"self_debug:{e}" for e in range(1, EPOCHS.of(cfg) + 1)),
        *(f"clarifier:{a}" for a in range(1, CLARIFY.of(cfg) + 1)),
    ]


#: The agent whose answer a person's program stands in for, by stage.
_PRODUCER = {"program_generator": "program_generator", "self_debug": "self_debugger", "clarifier": "program_generator"}

#: Why a progression's step was cancelled: another progression's acceptance decided the run.
_STOPPED = "stopped: the rule no longer needs its result"


def _step(
    ctx: RunContext, sid: StepId, agent: str | None, detail: str = "", *, check: bool = False
) -> AbstractAsyncContextManager[StepOutcome]:
    return enter_step(ctx, sid, agent, detail=detail, check=check, stopped=_STOPPED)


class _SharedTests:
    """Lines 9-14 of Algorithm 1, done once for all progressions: started by the
    first progression whose program was rejected, awaited by every one."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.task: asyncio.Task[TestSet] | None = None

    async def get(self) -> TestSet:
        if self.task is None:
            self.task = asyncio.create_task(self._make())
        # shield: a progression cancelled while waiting must not cancel the others' tests.
        return await asyncio.shield(self.task)

    async def _make(self) -> TestSet:
        ctx, cfg = self.ctx, self.ctx.config
        async with _step(ctx, StepId("test_designer"), "test_designer") as s:
            synthesized = await design_tests(ctx, step=s.name)
            s.detail = f"{len(synthesized)} tests"
        if not synthesized:
            return TestSet([], [], "the test designer produced no usable test")
        if not TQC.of(cfg):
            return TestSet(synthesized, [])
        async with _step(ctx, StepId("test_quality_checker"), "test_quality_checker") as s:
            verdicts = await filter_tests(ctx, synthesized, step=s.name)
            kept = [v.test for v in verdicts if v.kept]
            rejected = [v.test for v in verdicts if not v.kept]
            s.detail = f"{len(kept)} kept, {len(rejected)} rejected"
        return TestSet(kept, rejected, "" if kept else "no synthesized test survived the test quality checker")

    async def close(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
        if self.task is not None:
            await asyncio.gather(self.task, return_exceptions=True)


def _after_debug(cfg: RunConfig) -> tuple[DecisionWord, str]:
    return ("clarify", "rejected: on to the clarifier") if CLARIFY.of(cfg) else _no_more_steps(cfg)


def _no_more_steps(cfg: RunConfig) -> tuple[DecisionWord, str]:
    """The decision when a rejected program has no step left to go to."""
    if REVERT.of(cfg) and CHECKER.of(cfg) != "none":
        return "revert", "rejected: revert to the first generated program"
    return "continue", "rejected: no step left; the last program stands"


class _Run:
    """One QualityFlow run: the progressions, the shared tests and the referee."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.cfg = ctx.config
        count = SPEC.progressions(self.cfg)
        self.progs = [Progression(i) for i in range(count)]
        self.stages = _stages(self.cfg)
        self.referee = Referee(count)
        self.tests = _SharedTests(ctx)
        self.cancelled: set[int] = set()
        self.stopped_early: list[str] = []
        self._tasks: list[asyncio.Task[None]] = []
        """Each progression's task, once the run has started them."""
        """``progression (step)`` of work cancelled because the rule could no longer report it."""
        self.statement = ctx.problem.statement
        """The statement the clarifier path reads (a person may edit it)."""

    # -- one progression -----------------------------------------------------------

    def _decide(self, p: Progression, step: str, accepted: bool, decision: DecisionWord, reason: str) -> None:
        if accepted:
            reason = "all visible tests pass the quality check"
        if p.check is not None and p.check.steered:
            # A person's verdict at a stop: the checker was never asked, so its words would mislead.
            reason = (
                "accepted by a person (steered): the checker was not asked"
                if accepted
                else "rejected by a person (steered): " + reason.removeprefix("rejected: ")
            )
        self.ctx.event(
            Decision(
                step=step,
                agent="code_quality_checker",
                progression=p.index,
                decision="accept" if accepted else decision,
                reason=reason,
            )
        )

    async def _check(self, p: Progression, sid: StepId) -> bool:
        """The Code Quality Checker on ``p``'s current program (lines 5, 17, 24)."""
        if CHECKER.of(self.cfg) == "none":
            p.check = CheckResult(False, "no quality checker (checker=none)")
            return False
        async with _step(self.ctx, sid, "code_quality_checker", detail=CHECKER.of(self.cfg), check=True) as s:
            # A person's program for this step, given once the step had answered: it is what gets checked.
            edited = steered_program(self.ctx, s.name, p.index, p.current, _PRODUCER.get(sid.stage, sid.stage))
            if edited is not None:
                p.current, p.report = edited, None
                if sid.stage == "program_generator":
                    p.generated = edited
            verdict = steered_verdict(self.ctx, s.name, p.index, "code_quality_checker")
            if verdict is None:
                p.check = await check_program(self.ctx, p.current, progression=p.index, step=s.name)
            else:
                p.check = CheckResult(
                    verdict, f"{'accepted' if verdict else 'rejected'} by a person (steered)", steered=True
                )
            s.outcome = "accepted" if p.check.accepted else "rejected"
        return p.check.accepted

    async def _stage_end(
        self, p: Progression, stage: int, accepted: bool, decision: tuple[DecisionWord, str] | None
    ) -> bool:
        """Report a stage's end to the referee (and its decision); True when ``p`` is done."""
        step = self.stages[stage]
        if accepted:
            self._decide(p, step, True, "accept", "")
            self.referee.accept(p.index, stage)
            # At once, before any other progression runs on: one whose next step
            # can no longer be reported must not start it (the run's loop would
            # see the acceptance only after the ready progressions had gone on).
            self._stop_the_beaten()
            return True
        if decision is not None and not self.referee.out_of_the_race(p.index):
            if CHECKER.of(self.cfg) == "none":
                last = stage == len(self.stages) - 1
                decision = (
                    "continue",
                    "no quality checker: " + ("the last program stands" if last else "every step runs"),
                )
            self._decide(p, step, False, *decision)
        self.referee.cleared_stage(p.index, stage)
        # Nothing more to do once another progression's acceptance beats anything this one could still do.
        return self.referee.out_of_the_race(p.index)

    def _take_test_edits(self, tests: TestSet, step: str) -> None:
        """A person's pending edits to the synthesized tests, taken into the set every
        progression shares (so their events belong to the whole run, not to a progression)."""
        edit = steered_tests(
            self.ctx, tests.kept, tests.rejected, step, None, designer="test_designer", judge="test_quality_checker"
        )
        if edit.changed:
            # New lists, not changed in place: a sandbox run of the old ones may be under way.
            tests.kept, tests.rejected = edit.kept, edit.rejected
            tests.why_none = "" if tests.kept else "a person left no synthesized test to debug against"

    async def _debug_epoch(self, p: Progression, epoch: int, tests: TestSet) -> bool:
        """Line 16: one self-debug epoch; True when the program changed (and needs a check).
        Each epoch debugs the previous epoch's program (section 3.3, "iteratively
        improves a program"), not line 16's literal ``GeneratedCode``."""
        ctx = self.ctx
        async with _step(ctx, StepId("self_debug", epoch=epoch, progression=p.index), "self_debugger") as s:
            step = s.name
            self._take_test_edits(tests, step)
            if p.report_for is not tests.kept:
                # The tests changed since the last run (or never ran): run them again.
                p.report, p.debug_exhausted = None, False
            if has_program(ctx, step, p.index):
                # A person's program ends this epoch in place of the debugger's answer.
                p.current = steered_program(ctx, step, p.index, p.current, "self_debugger") or p.current
                p.debugged, p.debug_exhausted = True, False
                p.trajectory.append(f"epoch {epoch}: a person replaced the program")
                p.report, p.report_for = None, None
                if tests.kept:
                    kept = tests.kept
                    p.report = await run_synthesized_tests(
                        ctx, p.current, kept, step=step, progression=p.index, after_fix=True
                    )
                    p.report_for = kept
                    s.detail = f"program edited by a person: {p.report.passed}/{p.report.total} pass"
                else:
                    s.detail = "program edited by a person"
                return True
            if p.debug_exhausted or not tests.kept:
                p.debug_exhausted = True
                s.outcome, s.detail = "skipped", tests.why_none or "all synthesized tests pass"
                return False
            report = p.report
            kept = tests.kept
            if report is None:
                report = await run_synthesized_tests(ctx, p.current, kept, step=step, progression=p.index)
            p.report, p.report_for = report, kept
            if report.load_error is None and report.passed == report.total:
                p.debug_exhausted = True
                p.trajectory.append(f"epoch {epoch}: all {report.total} synthesized tests pass; nothing to debug")
                s.outcome, s.detail = "skipped", "all synthesized tests pass"
                return False
            feedback = execution_feedback(report, ctx.problem)
            p.current = await debug(ctx, p.index, epoch, p.current, feedback, step=step)
            p.debugged = True
            p.trajectory.append(f"epoch {epoch}: {report.passed}/{report.total} synthesized tests passed:\n{feedback}")
            # Run the kept tests on the fixed program at once: the user sees what
            # the fix achieved, and the next epoch starts from this report.
            p.report = await run_synthesized_tests(ctx, p.current, kept, step=step, progression=p.index, after_fix=True)
            p.report_for = kept
            s.detail = f"{report.passed}/{report.total} passed before, {p.report.passed}/{p.report.total} after"
        return True

    async def _algorithm_1(self, p: Progression) -> None:
        ctx, cfg = self.ctx, self.cfg
        # Line 4: GeneratedCode <- CodeGenerator(Problem, VisibleTests).
        sid = StepId("program_generator", progression=p.index)
        p.at = sid.name
        async with _step(ctx, sid, "program_generator"):
            edited = steered_program(ctx, sid.name, p.index, "", "program_generator")
            p.generated = p.current = (
                edited if edited is not None else await generate_program(ctx, p.index, step=sid.name)
            )
        # Line 5: CodeAccept <- CodeQualityChecker(GeneratedCode, ...).
        next_step: tuple[DecisionWord, str] = (
            ("continue", "rejected: on to self-debugging") if EPOCHS.of(cfg) else _after_debug(cfg)
        )
        if await self._stage_end(p, 0, await self._check(p, sid), next_step):
            return

        # Lines 9-21: self-debugging against the synthesized tests (made once, shared).
        if EPOCHS.of(cfg):
            tests = await self.tests.get()
            for epoch in range(1, EPOCHS.of(cfg) + 1):
                sid = StepId("self_debug", epoch=epoch, progression=p.index)
                p.at = sid.name
                changed = await self._debug_epoch(p, epoch, tests)
                # Line 17: only a program the debugger changed needs a new check.
                accepted = changed and await self._check(p, sid)
                last = epoch == EPOCHS.of(cfg)
                decision = _after_debug(cfg) if last else ("continue", "rejected: debug again") if changed else None
                if await self._stage_end(p, epoch, accepted, decision):
                    return
        p.debug_result, p.debug_check = p.current, p.check

        # Lines 22-26: each Clarifier attempt starts from the self-debugging result.
        for attempt in range(1, CLARIFY.of(cfg) + 1):
            sid = StepId("clarifier", attempt=attempt, progression=p.index)
            p.at = step = sid.name
            async with _step(ctx, sid, "clarifier"):
                if self.tests.task is not None and self.tests.task.done() and not self.tests.task.cancelled():
                    self._take_test_edits(self.tests.task.result(), step)
                edited = steered_program(ctx, step, p.index, p.debug_result, "program_generator")
                p.current = edited if edited is not None else await self._clarify(p, attempt, step)
            p.report = None
            last = attempt == CLARIFY.of(cfg)
            decision = _no_more_steps(cfg) if last else ("clarify", "rejected: clarify again")
            if await self._stage_end(p, EPOCHS.of(cfg) + attempt, await self._check(p, sid), decision):
                return

    async def _clarify(self, p: Progression, attempt: int, step: str) -> str:
        """Lines 22-23: clarify the problem, then generate again from the clarified statement."""
        ctx = self.ctx
        edited = steered_statement(ctx, step, p.index, self.statement, "clarifier")
        if edited is not None:
            self.statement = edited
        clarified = await clarify(
            ctx,
            p.index,
            attempt,
            statement=self.statement,
            program=p.debug_result,
            kept_tests=self.tests_kept,
            rejected_tests=self.tests_rejected,
            trajectory="\n\n".join(p.trajectory),
            check_feedback=p.debug_check.feedback if p.debug_check else "",
            debugged=p.debugged,
            step=step,
        )
        return await generate_clarified_program(
            ctx, p.index, attempt, clarified, p.debug_result, step=step, statement=self.statement
        )

    @property
    def tests_kept(self) -> list[str]:
        task = self.tests.task
        return task.result().kept if task is not None and task.done() and not task.cancelled() else []

    @property
    def tests_rejected(self) -> list[str]:
        task = self.tests.task
        return task.result().rejected if task is not None and task.done() and not task.cancelled() else []

    async def _progression(self, p: Progression) -> None:
        try:
            await self._algorithm_1(p)
        except LLMError as exc:
            if exc.fatal:
                raise
            # Diversified Prompting keeps the other progressions going.
            p.failed = str(exc)
            self.ctx.event(
                Notice(
                    step=p.at or None,
                    agent=None,
                    progression=p.index,
                    level="warning",
                    message=f"progression {p.index} stopped: {exc}",
                    cause=str(exc),
                )
            )
        finally:
            if p.index not in self.cancelled:
                self.referee.stopped(p.index)
                p.at = ""

    # -- the run --------------------------------------------------------------------

    def _stop_the_beaten(self) -> None:
        """Stop every progression still running whose result the rule can no longer report."""
        for q, task in zip(self.progs, self._tasks, strict=True):
            if not task.done() and self.referee.out_of_the_race(q.index):
                self._stop(q, task)

    def _stop(self, p: Progression, task: asyncio.Task[None]) -> None:
        """Cancel work whose result the rule will never report."""
        if p.index in self.cancelled:
            return
        if p.at:
            self.stopped_early.append(f"{p.index} ({p.at})")
        self.cancelled.add(p.index)
        self.ctx.stopped.add(p.index)
        task.cancel()

    async def _until_decided(self, tasks: list[asyncio.Task[None]]) -> None:
        """Wait until the rule has its result or every progression is done; the
        first failure that ends the run is raised."""
        pending = set(tasks)
        while pending:
            self.referee.changed.clear()
            if self.referee.winner() is not None:
                return
            self._stop_the_beaten()
            changed: asyncio.Task[bool] = asyncio.ensure_future(self.referee.changed.wait())
            done, _ = await asyncio.wait({*pending, changed}, return_when=asyncio.FIRST_COMPLETED)
            changed.cancel()
            for task in tasks:
                if task in done and task in pending:
                    pending.discard(task)
                    error = None if task.cancelled() else task.exception()
                    if error is not None:
                        raise error

    async def run(self) -> WorkflowResult:
        ctx, cfg = self.ctx, self.cfg
        for note in SPEC.setting_notes(cfg):  # the bench report says the same beside the settings
            ctx.event(Notice(level="info", message=note))
        tasks = self._tasks = [asyncio.create_task(self._progression(p)) for p in self.progs]
        try:
            await self._until_decided(tasks)
        finally:
            for p, task in zip(self.progs, tasks, strict=True):
                if not task.done():
                    self._stop(p, task)
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.tests.close()
            decided = self.referee.winner()
            if decided is not None:
                stage, best = decided
                # Why this one: the others accepted too (at the same stage or later)
                # read as rivals in a log where they may be said first.
                also = sorted(p for p, s in self.referee.accepted.items() if p != best)
                if also or self.stopped_early:
                    words = [
                        f"progression {best} wins, accepted at {self.stages[stage]}: the earliest stage's "
                        "accepted program wins, the lowest progression first"
                    ]
                    if also:
                        where = ", ".join(f"{p} at {self.stages[self.referee.accepted[p]]}" for p in also)
                        words.append(f"also accepted: progression {where}")
                    if self.stopped_early:
                        words.append(
                            "stopped, as the rule would not report their result: progression "
                            + ", ".join(self.stopped_early)
                        )
                    ctx.event(Notice(level="info", message="; ".join(words)))
        made = [p for p in self.progs if p.generated]
        if not made or all(p.failed for p in self.progs):
            raise LLMError(next(p.failed for p in self.progs if p.failed))
        origin = made[0]
        first_program = origin.generated
        decided = self.referee.winner()
        if decided is not None:
            stage, best = decided
            winner = self.progs[best]
            return WorkflowResult(winner.current, "accepted", self.stages[stage], best, first_program)
        if CHECKER.of(cfg) == "none":
            # No checker, no termination condition: every step ran; the last program stands.
            return WorkflowResult(origin.current, "unchecked", None, origin.index, first_program)
        if not REVERT.of(cfg):
            return WorkflowResult(origin.current, "rejected", None, origin.index, first_program)
        # Line 28: revert to the first generated program.
        async with _step(ctx, StepId("revert"), None) as s:
            ctx.event(
                Decision(
                    step=s.name,
                    agent="code_quality_checker",
                    progression=origin.index,
                    decision="revert",
                    reason="no program passed the quality checks",
                )
            )
            s.detail = "reverted to the first generated program"
        return WorkflowResult(first_program, "reverted", None, origin.index, first_program)


async def run_qualityflow(ctx: RunContext) -> WorkflowResult:
    return await _Run(ctx).run()
