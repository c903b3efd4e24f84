"""CodeTree's Debugger (Li et al., 3.1, Eq. 6): revises a program following one
of the Thinker's reflections, the program's collective feedback and the
strategy it implements."""

from __future__ import annotations

from ...context import RunContext
from ...events import ProgramCandidate
from ...extract import extract_program

AGENT = "debugger"
PROMPTS = "codetree/debugger"


def debugger_prompt(ctx: RunContext, program: str, feedback: str, reflection: str, strategy: str) -> tuple[str, str]:
    """Eq. 6: the reflection R, the feedback F, the program W, its strategy S and the problem D."""
    return ctx.prompts.get(PROMPTS, "refine").render(
        statement=ctx.problem.statement,
        strategy=strategy,
        program=program,
        feedback=feedback,
        reflection=reflection,
        entry_point=ctx.problem.entry_point,
    )


async def refine(
    ctx: RunContext,
    program: str,
    feedback: str,
    reflection: str,
    strategy: str,
    *,
    step: str,
    node: str,
    depth: int,
) -> str:
    rendered = debugger_prompt(ctx, program, feedback, reflection, strategy)
    request = ctx.request(AGENT, rendered, progression=0, epoch=depth)
    request.node = node
    text = await ctx.call(request, step=step)
    fixed = extract_program(text, ctx.problem.entry_point)
    ctx.event(ProgramCandidate(step=step, agent=AGENT, progression=0, program=fixed))
    return fixed
