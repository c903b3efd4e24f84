"""AgentCoder (Huang et al.), one of the peer workflows QualityFlow is compared
with: the programmer writes the program, the test designer writes basic, edge
and large-scale tests from the requirements, and the test executor (a script,
here the sandbox) runs them; failures go back to the programmer until every
test passes or the iteration budget (5 in the paper's RQ3; each iteration is one
refinement, as its Table 3 counts them) is spent. No quality checker: the
program is reported even if its tests still fail."""

from __future__ import annotations

from ...agents.test_executor import execute_tests, execution_feedback
from ...context import RunContext
from ...events import Decision, DecisionWord
from ...steps import step
from ..base import WorkflowResult
from ..settings import ITERATIONS
from .programmer import refine_program, write_program
from .test_designer import design_basic_edge_large_tests


def _decide(ctx: RunContext, step_name: str, decision: DecisionWord, reason: str) -> None:
    ctx.event(Decision(step=step_name, agent="test_executor", progression=0, decision=decision, reason=reason))


async def run_agentcoder(ctx: RunContext) -> WorkflowResult:
    cfg = ctx.config
    async with step(ctx, "programmer", "programmer", progression=0) as s:
        program = first = await write_program(ctx, step=s.name)

    async with step(ctx, "test_designer", "test_designer") as s:
        tests = await design_basic_edge_large_tests(ctx, step=s.name)
        s.detail = f"{len(tests)} tests"
    if not tests:
        return WorkflowResult(program, "unchecked", None, 0, first)

    # Table 3 of the AgentCoder paper counts one refinement per iteration:
    # iterations=N runs the tests after the first program and after each of N
    # refinements, and reports the last program if the tests still fail.
    for iteration in range(ITERATIONS.of(cfg) + 1):
        async with step(ctx, "test_executor", "test_executor", epoch=iteration + 1, progression=0) as s:
            report = await execute_tests(
                ctx, program, tests, purpose="agentcoder", agent="test_executor", step=s.name, progression=0
            )
            passed = report.load_error is None and report.passed == report.total
            s.outcome = "accepted" if passed else "rejected"
            s.detail = f"{report.passed}/{report.total} pass"
        if passed:
            _decide(ctx, s.name, "accept", "every designed test passes")
            return WorkflowResult(program, "accepted", s.name, 0, first)
        if iteration == ITERATIONS.of(cfg):
            _decide(ctx, s.name, "continue", f"{ITERATIONS.of(cfg)} refinements spent: the last program stands")
            break
        _decide(ctx, s.name, "continue", f"{report.passed}/{report.total} pass: back to the programmer")
        refinement = iteration + 1
        async with step(ctx, "programmer", "programmer", epoch=refinement, progression=0) as s:
            program = await refine_program(ctx, program, execution_feedback(report), iteration=refinement, step=s.name)
    return WorkflowResult(program, "rejected", None, 0, first)
