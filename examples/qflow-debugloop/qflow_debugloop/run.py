"""Debug-loop's run: write, then check and fix in a loop.

Each program is checked by the executor at the step that wrote it (``write``,
``fix:1`` ...): the visible tests run in qflow's sandbox, never here. A person
may stop the run before a step and give the program it carries on with, or
decide the executor's verdict; the run takes each edit itself, once, where it
applies (``steered_program``, ``steered_verdict``)."""

from __future__ import annotations

from pathlib import Path

from qflow_tui.core.agents.shown import tests_text
from qflow_tui.core.agents.test_executor import execute_tests, execution_feedback
from qflow_tui.core.context import RunContext
from qflow_tui.core.events import Decision, DecisionWord, ProgramCandidate
from qflow_tui.core.extract import extract_program
from qflow_tui.core.prompts import PromptLibrary
from qflow_tui.core.steer import steered_program, steered_verdict
from qflow_tui.core.steps import step
from qflow_tui.core.workflows import WorkflowResult

from . import FIXES, RUN_VISIBLE

PROMPTS = PromptLibrary(Path(__file__).with_name("prompts"))


async def run_debugloop(ctx: RunContext) -> WorkflowResult:
    problem = ctx.problem
    # A problem that reads stdin gets the prompts of prompts/<agent>/io/.
    prompts = PROMPTS.for_kind(problem.kind)
    async with step(ctx, "write", "writer", progression=0) as s:
        # A person's program for this step stands in for the writer's answer.
        program = steered_program(ctx, s.name, 0, "", "writer")
        if program is None:
            prompt = prompts.get("writer", "generate").render(
                statement=problem.statement, tests=tests_text(ctx), entry_point=problem.entry_point
            )
            answer = await ctx.call(ctx.request("writer", prompt, progression=0), step=s.name)
            program = extract_program(answer, problem.entry_point)
            ctx.event(ProgramCandidate(step=s.name, agent="writer", progression=0, program=program))
    first = program
    if not RUN_VISIBLE.of(ctx.config):
        return WorkflowResult(program, "unchecked", None, 0, first)

    at, producer = "write", "writer"
    for fix in range(FIXES.of(ctx.config) + 1):
        # The executor checks the program the step wrote: the same step name,
        # check=True, so a stop here is "before checking fix 1".
        async with step(ctx, at, "executor", progression=0, check=True) as s:
            program = steered_program(ctx, s.name, 0, program, producer) or program
            verdict = steered_verdict(ctx, s.name, 0, "executor")
            if verdict is None:
                report = await execute_tests(
                    ctx, program, problem.test_sources, purpose="visible", agent="executor", step=s.name, progression=0
                )
                passed = report.all_passed
                feedback = execution_feedback(report, problem)
                s.detail = f"{report.passed}/{report.total} pass"
            else:
                passed = verdict
                feedback = "A reviewer rejected the program: read the statement again and fix it."
                s.detail = "a person decided"
            s.outcome = "accepted" if passed else "rejected"
        if passed:
            _decide(ctx, at, "accept", s.detail)
            return WorkflowResult(program, "accepted", at, 0, first)
        if fix == FIXES.of(ctx.config):
            _decide(ctx, at, "continue", f"{fix} fixes spent: the last program stands")
            break
        _decide(ctx, at, "continue", "back to the debugger")
        at, producer = f"fix:{fix + 1}", "debugger"
        async with step(ctx, "fix", "debugger", epoch=fix + 1, progression=0) as s:
            edited = steered_program(ctx, s.name, 0, program, "debugger")
            if edited is None:
                prompt = prompts.get("debugger", "fix").render(
                    statement=problem.statement, program=program, feedback=feedback, entry_point=problem.entry_point
                )
                answer = await ctx.call(ctx.request("debugger", prompt, progression=0, epoch=fix + 1), step=s.name)
                edited = extract_program(answer, problem.entry_point)
                ctx.event(ProgramCandidate(step=s.name, agent="debugger", progression=0, program=edited))
            program = edited
    return WorkflowResult(program, "rejected", None, 0, first)


def _decide(ctx: RunContext, at: str, decision: DecisionWord, reason: str) -> None:
    """The executor's decision after its check: the app's Decisions and a
    headless log say it (the spec lists the executor in ``decided``)."""
    ctx.event(Decision(step=at, agent="executor", progression=0, decision=decision, reason=reason))
