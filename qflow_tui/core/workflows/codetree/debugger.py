"""CodeTree's Debugger (Li et al., 3.1, Eq. 6): revises a program following one
of the Thinker's reflections and the program's collective feedback."""

from __future__ import annotations

from ...context import RunContext
from ...events import ProgramCandidate
from ...extract import extract_program

AGENT = "debugger"
PROMPTS = "codetree/debugger"


def debugger_prompt(ctx: RunContext, program: str, feedback: str, reflection: str) -> tuple[str, str]:
    return ctx.prompts.get(PROMPTS, "refine").render(
        statement=ctx.problem.statement,
        program=program,
        feedback=feedback,
        reflection=reflection,
        entry_point=ctx.problem.entry_point,
    )


async def refine(
    ctx: RunContext, program: str, feedback: str, reflection: str, *, step: str, node: str, depth: int
) -> str:
    request = ctx.request(AGENT, debugger_prompt(ctx, program, feedback, reflection), progression=0, epoch=depth)
    request.node = node
    text = await ctx.call(request, step=step)
    fixed = extract_program(text, ctx.problem.entry_point)
    ctx.event(ProgramCandidate(step=step, agent=AGENT, progression=0, program=fixed))
    return fixed
