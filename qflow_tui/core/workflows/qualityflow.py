"""QualityFlow (Algorithm 1), with Diversified Prompting.

Progressions (one per program-generator prompt) advance stage by stage: all
active progressions run a stage concurrently, then the Quality Checker's
verdicts are read; the first stage that accepts a program ends the run, the
lowest progression index winning, so later stages spend no tokens.

Stages: program_generator -> [test_designer -> test_quality_checker] ->
self_debug:1..E -> clarifier:1..C -> revert.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..agents.clarifier import clarify
from ..agents.code_quality_checker import CheckResult, check_program
from ..agents.program_generator import generate_clarified_program, generate_program
from ..agents.self_debugger import debug, run_synthesized_tests
from ..agents.test_designer import design_tests
from ..agents.test_executor import execution_feedback
from ..agents.test_quality_checker import filter_tests
from ..context import RunContext, gather_all
from ..events import Decision, Notice
from ..llm import LLMError
from .base import WorkflowResult


@dataclass
class Progression:
    """One parallel line of the workflow, started by one generator prompt."""

    index: int
    generated: str = ""
    """GeneratedCode: the first program, the one a revert returns to."""
    current: str = ""
    check: CheckResult | None = None
    trajectory: list[str] = field(default_factory=list)
    debug_exhausted: bool = False
    """No failing synthesized test is left to debug against."""
    report: Any = None
    """The kept tests' results on ``current``, when already run."""
    failed: str | None = None
    """Why a model failure stopped this progression (the others go on)."""


def live(progs: list[Progression]) -> list[Progression]:
    return [p for p in progs if p.failed is None]


async def _each(
    ctx: RunContext,
    progs: list[Progression],
    step: str,
    agent: str,
    work: Callable[[Progression], Awaitable[None]],
    *,
    everyone: list[Progression] | None = None,
) -> list[Progression]:
    """Run ``work`` for every live progression concurrently. A failed model call
    ends that progression only (Diversified Prompting keeps the others going);
    when none is left, the run fails with the first failure. A fatal failure
    (see :class:`LLMError`) ends the run at once."""

    async def guarded(p: Progression) -> None:
        try:
            await work(p)
        except LLMError as exc:
            if exc.fatal:
                raise
            p.failed = str(exc)
            ctx.step_finished(step, "failed", agent, p.index, detail=str(exc))
            ctx.event(
                Notice(
                    step=step,
                    agent=agent,
                    progression=p.index,
                    level="warning",
                    message=f"progression {p.index} stopped: {exc}",
                )
            )

    await gather_all(guarded(p) for p in live(progs))
    # ``everyone``: the whole run's progressions, when ``progs`` is only some of them.
    if not live(everyone if everyone is not None else progs):
        raise LLMError(next(p.failed for p in progs if p.failed))
    return live(progs)


async def _check_stage(
    ctx: RunContext, progs: list[Progression], step: str, everyone: list[Progression] | None = None
) -> list[Progression]:
    """Quality-check the current program of each live progression in ``progs``
    (``everyone``: all of the run's); return the accepted ones."""
    await ctx.checkpoint(f"quality_check:{step}")

    async def one(p: Progression) -> None:
        ctx.step_started(step, "code_quality_checker", p.index, detail=ctx.config.checker)
        p.check = await check_program(ctx, p.current, progression=p.index, step=step)
        ctx.step_finished(step, "accepted" if p.check.accepted else "rejected", "code_quality_checker", p.index)

    if not live(progs):
        return []
    checked = await _each(ctx, progs, step, "code_quality_checker", one, everyone=everyone)
    return [p for p in checked if p.check and p.check.accepted]


def _decide(ctx: RunContext, progs: list[Progression], step: str, next_decision: str, reason: str) -> None:
    for p in live(progs):
        accepted = bool(p.check and p.check.accepted)
        ctx.event(
            Decision(
                step=step,
                agent="code_quality_checker",
                progression=p.index,
                decision="accept" if accepted else next_decision,
                reason="all visible tests pass the quality check" if accepted else reason,
            )
        )


def _no_more_steps(cfg) -> tuple[str, str]:
    """The decision when a rejected program has no step left to go to."""
    if cfg.revert and cfg.checker != "none":
        return "revert", "rejected: revert to the first generated program"
    return "continue", "rejected: no step left; the last program stands"


def _winner(ctx: RunContext, accepted: list[Progression], step: str, first_program: str) -> WorkflowResult | None:
    if not accepted:
        return None
    best = min(accepted, key=lambda p: p.index)
    return WorkflowResult(best.current, "accepted", step, best.index, first_program)


async def run_qualityflow(ctx: RunContext) -> WorkflowResult:
    cfg = ctx.config
    progs = [Progression(i) for i in range(cfg.prompts)]

    # Line 4: GeneratedCode <- CodeGenerator(Problem, VisibleTests), one per prompt.
    step = "program_generator"
    await ctx.checkpoint(step)

    async def generate(p: Progression) -> None:
        ctx.step_started(step, "program_generator", p.index)
        p.generated = p.current = await generate_program(ctx, p.index, step=step)
        ctx.step_finished(step, "done", "program_generator", p.index)

    await _each(ctx, progs, step, "program_generator", generate)
    # The program a revert returns to: the first progression's (the lowest that
    # produced one, if a model failure stopped progression 0).
    origin = live(progs)[0]
    first_program = origin.generated

    # Line 5: CodeAccept <- CodeQualityChecker(GeneratedCode, ...)
    accepted = await _check_stage(ctx, progs, step)
    after_debug = ("clarify", "rejected: on to the clarifier") if cfg.clarify else _no_more_steps(cfg)
    if cfg.epochs:
        _decide(ctx, progs, step, "continue", "rejected: on to self-debugging")
    else:
        _decide(ctx, progs, step, *after_debug)
    if won := _winner(ctx, accepted, step, first_program):
        return won

    # Lines 9-14: synthesized tests, filtered by the Test Quality Checker.
    kept: list[str] = []
    rejected: list[str] = []
    if cfg.epochs:
        step = "test_designer"
        await ctx.checkpoint(step)
        ctx.step_started(step, "test_designer")
        synthesized = await design_tests(ctx, step=step)
        ctx.step_finished(step, "done", "test_designer", detail=f"{len(synthesized)} tests")
        if cfg.tqc and synthesized:
            step = "test_quality_checker"
            await ctx.checkpoint(step)
            ctx.step_started(step, "test_quality_checker")
            verdicts = await filter_tests(ctx, synthesized, step=step)
            kept = [v.test for v in verdicts if v.kept]
            rejected = [v.test for v in verdicts if not v.kept]
            ctx.step_finished(
                step, "done", "test_quality_checker", detail=f"{len(kept)} kept, {len(rejected)} rejected"
            )
        else:
            kept = synthesized

    # Lines 15-21: self-debugging epochs, each with its own debug prompt.
    for epoch in range(1, cfg.epochs + 1):
        step = f"self_debug:{epoch}"
        await ctx.checkpoint(step)
        changed: list[Progression] = []

        # Loop variables are bound as defaults: the closure must see this epoch's values.
        async def debug_one(
            p: Progression, step: str = step, epoch: int = epoch, changed: list[Progression] = changed
        ) -> None:
            ctx.step_started(step, "self_debugger", p.index)
            if p.debug_exhausted or not kept:
                p.debug_exhausted = True
                why = (
                    "no synthesized tests survived the test quality checker"
                    if not kept
                    else "all synthesized tests pass"
                )
                ctx.step_finished(step, "skipped", "self_debugger", p.index, detail=why)
                return
            report = p.report
            if report is None:
                report = await run_synthesized_tests(ctx, p.current, kept, step=step, progression=p.index)
            if report.load_error is None and report.passed == report.total:
                p.debug_exhausted = True
                p.trajectory.append(f"epoch {epoch}: all {report.total} synthesized tests pass; nothing to debug")
                ctx.step_finished(step, "skipped", "self_debugger", p.index, detail="all synthesized tests pass")
                return
            feedback = execution_feedback(report)
            p.current = await debug(ctx, p.index, epoch, p.current, feedback, step=step)
            p.trajectory.append(f"epoch {epoch}: {report.passed}/{report.total} synthesized tests passed:\n{feedback}")
            # Run the kept tests on the fixed program at once: the user sees what
            # the fix achieved, and the next epoch starts from this report.
            p.report = await run_synthesized_tests(ctx, p.current, kept, step=step, progression=p.index, after_fix=True)
            changed.append(p)
            ctx.step_finished(
                step,
                "done",
                "self_debugger",
                p.index,
                detail=f"{report.passed}/{report.total} passed before, {p.report.passed}/{p.report.total} after",
            )

        await _each(ctx, progs, step, "self_debugger", debug_one)
        changed = sorted((p for p in changed if p.failed is None), key=lambda p: p.index)
        # Line 17: only programs the debugger changed need a new check.
        accepted = await _check_stage(ctx, changed, step, everyone=progs) if changed else []
        last = epoch == cfg.epochs
        if last:
            _decide(ctx, progs, step, *after_debug)
        else:
            _decide(ctx, changed, step, "continue", "rejected: debug again")
        if won := _winner(ctx, accepted, step, first_program):
            return won

    # Lines 22-26: the Problem Clarifier, then generate again and check once more.
    for attempt in range(1, cfg.clarify + 1):
        step = f"clarifier:{attempt}"
        await ctx.checkpoint(step)

        async def clarify_one(p: Progression, step: str = step, attempt: int = attempt) -> None:
            ctx.step_started(step, "clarifier", p.index)
            clarified = await clarify(
                ctx,
                p.index,
                attempt,
                program=p.current,
                kept_tests=kept,
                rejected_tests=rejected,
                trajectory="\n\n".join(p.trajectory),
                check_feedback=p.check.feedback if p.check else "",
                step=step,
            )
            rejected_program = p.current
            p.report = None
            p.current = await generate_clarified_program(ctx, p.index, attempt, clarified, rejected_program, step=step)
            p.trajectory.append(f"clarifier attempt {attempt}: generated a new program from the clarified statement")
            ctx.step_finished(step, "done", "clarifier", p.index)

        await _each(ctx, progs, step, "clarifier", clarify_one)
        accepted = await _check_stage(ctx, progs, step)
        last = attempt == cfg.clarify
        if last:
            _decide(ctx, progs, step, *_no_more_steps(cfg))
        else:
            _decide(ctx, progs, step, "clarify", "rejected: clarify again")
        if won := _winner(ctx, accepted, step, first_program):
            return won

    if cfg.checker == "none":
        # No checker, no termination condition: every step ran; the last program stands.
        return WorkflowResult(origin.current, "unchecked", None, origin.index, first_program)
    if not cfg.revert:
        return WorkflowResult(origin.current, "rejected", None, origin.index, first_program)
    # Line 28: revert to the first generated program.
    step = "revert"
    await ctx.checkpoint(step)
    ctx.step_started(step, None, None)
    ctx.event(
        Decision(
            step=step,
            agent="code_quality_checker",
            progression=origin.index,
            decision="revert",
            reason="no program passed the quality checks",
        )
    )
    ctx.step_finished(step, "done", None, None, detail="reverted to the first generated program")
    return WorkflowResult(first_program, "reverted", None, origin.index, first_program)
