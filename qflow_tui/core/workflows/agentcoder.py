"""AgentCoder (Huang et al.), one of the peer workflows QualityFlow is compared
with: the programmer writes the program, the test designer writes basic, edge
and large-scale tests from the requirements, and the test executor (a script,
here the sandbox) runs them; failures go back to the programmer until every
test passes or the iteration budget (5 in the paper's RQ3; each iteration is one
refinement, as its Table 3 counts them) is spent. No quality checker: the
program is reported even if its tests still fail."""

from __future__ import annotations

from ..agents.programmer import refine_program, write_program
from ..agents.test_designer import design_basic_edge_large_tests
from ..agents.test_executor import execute_tests, execution_feedback
from ..context import RunContext
from ..events import Decision
from .base import WorkflowResult


async def run_agentcoder(ctx: RunContext) -> WorkflowResult:
    cfg = ctx.config
    step = "programmer"
    await ctx.checkpoint(step)
    ctx.step_started(step, "programmer", 0)
    program = first = await write_program(ctx, step=step)
    ctx.step_finished(step, "done", "programmer", 0)

    step = "test_designer"
    await ctx.checkpoint(step)
    ctx.step_started(step, "test_designer")
    tests = await design_basic_edge_large_tests(ctx, step=step)
    ctx.step_finished(step, "done", "test_designer", detail=f"{len(tests)} tests")
    if not tests:
        return WorkflowResult(program, "unchecked", None, 0, first)

    # Table 3 of the AgentCoder paper counts one refinement per iteration:
    # iterations=N runs the tests after the first program and after each of N
    # refinements, and reports the last program if the tests still fail.
    for iteration in range(cfg.iterations + 1):
        step = f"test_executor:{iteration + 1}"
        await ctx.checkpoint(step)
        ctx.step_started(step, "test_executor", 0)
        report = await execute_tests(
            ctx, program, tests, purpose="agentcoder", agent="test_executor", step=step, progression=0
        )
        passed = report.load_error is None and report.passed == report.total
        ctx.step_finished(
            step,
            "accepted" if passed else "rejected",
            "test_executor",
            0,
            detail=f"{report.passed}/{report.total} pass",
        )
        if passed:
            ctx.event(
                Decision(
                    step=step,
                    agent="test_executor",
                    progression=0,
                    decision="accept",
                    reason="every designed test passes",
                )
            )
            return WorkflowResult(program, "accepted", step, 0, first)
        if iteration == cfg.iterations:
            ctx.event(
                Decision(
                    step=step,
                    agent="test_executor",
                    progression=0,
                    decision="continue",
                    reason=f"{cfg.iterations} refinements spent: the last program stands",
                )
            )
            break
        ctx.event(
            Decision(
                step=step,
                agent="test_executor",
                progression=0,
                decision="continue",
                reason=f"{report.passed}/{report.total} pass: back to the programmer",
            )
        )
        refinement = iteration + 1
        step = f"programmer:{refinement}"
        await ctx.checkpoint(step)
        ctx.step_started(step, "programmer", 0)
        program = await refine_program(ctx, program, execution_feedback(report), iteration=refinement, step=step)
        ctx.step_finished(step, "done", "programmer", 0)
    return WorkflowResult(program, "rejected", None, 0, first)
