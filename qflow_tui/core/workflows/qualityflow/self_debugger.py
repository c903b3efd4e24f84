"""Self-Debugger (QualityFlow 3.3): chain-of-thought debugging fed by running the
filtered synthesized tests in the sandbox (error messages and actual return
values; never the visible tests in the standard setting).

The paper's Self-Debugger reasons about why the program fails the tests and
revises it (section 3.3); it is not told the tests may be wrong, since that is
the Test Quality Checker's job (section 3.4) and telling it would shrink that
checker's ablations (Figure 3, Table 7). The setting ``tests_may_be_wrong`` adds
that instruction; it is off by default."""

from __future__ import annotations

from ...agents.test_executor import execute_tests
from ...context import RunContext
from ...events import ProgramCandidate
from ...extract import extract_program
from ...sandbox.report import SandboxReport
from . import TESTS_MAY_BE_WRONG, variant_index

AGENT = "self_debugger"
PROMPTS = "qualityflow/self_debugger"


async def run_synthesized_tests(
    ctx: RunContext, program: str, tests: list[str], *, step: str, progression: int, after_fix: bool = False
) -> SandboxReport:
    """The filtered synthesized tests on a program: ``self_debug`` feeds the
    debugger, ``after_debug`` shows what its fix achieved."""
    purpose = "after_debug" if after_fix else "self_debug"
    return await execute_tests(
        ctx, program, tests, purpose=purpose, agent="test_executor", step=step, progression=progression
    )


def debug_prompt(ctx: RunContext, epoch: int, program: str, feedback: str) -> tuple[str, str]:
    """Epoch ``e`` uses the ``e``-th debug prompt (Appendix A: a different one each
    epoch; the first every epoch without Diversified Prompting)."""
    variants = ctx.prompts.variants(PROMPTS)
    doubt = ""
    if TESTS_MAY_BE_WRONG.of(ctx.config):
        doubt = " " + ctx.prompts.get(PROMPTS, "tests_may_be_wrong").user
    return variants[variant_index(ctx.config, epoch - 1, len(variants))].render(
        statement=ctx.problem.statement,
        program=program,
        feedback=feedback,
        entry_point=ctx.problem.entry_point,
        tests_may_be_wrong=doubt,
    )


async def debug(ctx: RunContext, progression: int, epoch: int, program: str, feedback: str, *, step: str) -> str:
    rendered = debug_prompt(ctx, epoch, program, feedback)
    text = await ctx.call(ctx.request(AGENT, rendered, progression=progression, epoch=epoch), step=step)
    fixed = extract_program(text, ctx.problem.entry_point)
    ctx.event(ProgramCandidate(step=step, agent=AGENT, progression=progression, program=fixed))
    return fixed
