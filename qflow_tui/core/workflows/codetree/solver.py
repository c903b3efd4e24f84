"""CodeTree's Solver (Li et al., 3.1): implements one strategy of the Thinker's."""

from __future__ import annotations

from ...agents.shown import tests_text
from ...context import RunContext
from ...events import ProgramCandidate
from ...extract import extract_program

AGENT = "solver"
PROMPTS = "codetree/solver"


def solver_prompt(ctx: RunContext, strategy: str) -> tuple[str, str]:
    return ctx.prompts.get(PROMPTS, "implement").render(
        statement=ctx.problem.statement, tests=tests_text(ctx), entry_point=ctx.problem.entry_point, strategy=strategy
    )


async def implement(ctx: RunContext, strategy: str, *, step: str, node: str, index: int) -> str:
    request = ctx.request(AGENT, solver_prompt(ctx, strategy), progression=0, attempt=index)
    request.node = node
    text = await ctx.call(request, step=step)
    program = extract_program(text, ctx.problem.entry_point)
    ctx.event(ProgramCandidate(step=step, agent=AGENT, progression=0, program=program))
    return program
