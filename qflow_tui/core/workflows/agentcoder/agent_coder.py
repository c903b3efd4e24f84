"""AgentCoder (Huang et al.), one of the peer workflows QualityFlow is compared
with: the programmer writes the program, the test designer writes basic, edge
and large-scale tests from the requirements, and the test executor (a script,
here the sandbox) runs them; failures go back to the programmer until every
test passes or the iteration budget (5 in the paper's RQ3; each iteration is one
refinement, as its Table 3 counts them) is spent. No quality checker: the
program is reported even if its tests still fail.

With ``regenerate_tests`` (the default) the test designer designs a fresh set
for each refinement (section 5: the executor's feedback goes to "the
programmer and test designer"; its authors' code calls the test designer again
every round, from the requirements alone): it is shown its last tests and
their failures, never the program. ``agents`` runs the paper's ablations: Table 2's agent
combinations and Table 6's single agent."""

from __future__ import annotations

from ...agents.test_executor import execute_tests, execution_feedback
from ...context import RunContext
from ...events import Decision, DecisionWord
from ...sandbox.report import SandboxReport
from ...steps import step
from ..base import WorkflowResult
from ..settings import ITERATIONS
from . import AGENTS, REGENERATE_TESTS
from .programmer import Written, refine_program, review_program, write_program
from .test_designer import design_basic_edge_large_tests, design_own_tests


def _decide(ctx: RunContext, step_name: str, decision: DecisionWord, reason: str) -> None:
    ctx.event(Decision(step=step_name, agent="test_executor", progression=0, decision=decision, reason=reason))


async def run_agentcoder(ctx: RunContext) -> WorkflowResult:
    cfg = ctx.config
    agents = AGENTS.of(cfg)
    iterations = ITERATIONS.of(cfg)
    async with step(ctx, "programmer", "programmer", progression=0) as s:
        written = await write_program(ctx, step=s.name)
    program = first = written.program
    if agents == "programmer":  # Table 2: the programmer agent only
        return WorkflowResult(program, "unchecked", None, 0, first, detail="programmer agent only (agents=programmer)")

    executor_tests = agents == "programmer+test_executor"  # Table 2: the prompt's tests, no test designer
    redesign = REGENERATE_TESTS.of(cfg) and not executor_tests
    rounds = iterations + 1 if redesign else 1

    async def design(written: Written, round: int, last: tuple[list[str], SandboxReport] | None = None) -> list[str]:
        designer = "programmer" if agents == "single_agent" else "test_designer"
        async with step(ctx, "test_designer", designer, epoch=None if round == 1 else round) as s:
            if agents == "single_agent":  # Table 6: the same conversation writes the tests
                found = await design_own_tests(
                    ctx, written.conversation, written.system, step=s.name, round=round, rounds=rounds
                )
            else:
                found = await design_basic_edge_large_tests(ctx, step=s.name, round=round, rounds=rounds, last=last)
            s.detail = f"{len(found)} tests" + (f", round {round}" if rounds > 1 else "")
        return found

    if executor_tests:
        tests = list(ctx.problem.test_sources)
    else:
        tests = await design(written, 1)
    if not tests:
        return WorkflowResult(program, "unchecked", None, 0, first)

    if agents == "programmer+test_designer":
        # Section 4.3: the function and the designed tests go back to the
        # programmer, which decides whether to refine it; nothing runs, so
        # nothing is accepted or rejected.
        async with step(ctx, "programmer", "programmer", epoch=1, progression=0) as s:
            program = (await review_program(ctx, program, tests, iteration=1, step=s.name)).program
        detail = "programmer + test designer: reviewed against the designed tests, none run (agents)"
        return WorkflowResult(program, "unchecked", None, 0, first, detail=detail)

    # Table 3 of the AgentCoder paper counts one refinement per iteration:
    # iterations=N runs the tests after the first program and after each of N
    # refinements, and reports the last program if the tests still fail.
    for iteration in range(iterations + 1):
        async with step(ctx, "test_executor", "test_executor", epoch=iteration + 1, progression=0) as s:
            report = await execute_tests(
                ctx, program, tests, purpose="agentcoder", agent="test_executor", step=s.name, progression=0
            )
            passed = report.load_error is None and report.passed == report.total
            s.outcome = "accepted" if passed else "rejected"
            s.detail = f"{report.passed}/{report.total} pass"
        which = "visible" if executor_tests else "designed"
        if passed:
            _decide(ctx, s.name, "accept", f"every {which} test passes")
            return WorkflowResult(program, "accepted", s.name, 0, first)
        if iteration == iterations:
            _decide(ctx, s.name, "continue", f"{iterations} refinements spent: the last program stands")
            break
        _decide(ctx, s.name, "continue", f"{report.passed}/{report.total} pass: back to the programmer")
        refinement = iteration + 1
        async with step(ctx, "programmer", "programmer", epoch=refinement, progression=0) as s:
            written = await refine_program(
                ctx, program, execution_feedback(report, ctx.problem), iteration=refinement, step=s.name
            )
        program = written.program
        if redesign:  # a fresh set; when none is usable, the last set stands
            tests = await design(written, refinement + 1, (tests, report)) or tests
    return WorkflowResult(program, "rejected", None, 0, first)
