"""AgentCoder's programmer agent (Huang et al., 3.1): writes the program with a
four-step chain of thought, then refines it from the test executor's feedback."""

from __future__ import annotations

from ...agents.shown import tests_text
from ...context import RunContext
from ...events import ProgramCandidate
from ...extract import extract_program

AGENT = "programmer"
PROMPTS = "agentcoder/programmer"


def write_prompt(ctx: RunContext) -> tuple[str, str]:
    return ctx.prompts.get(PROMPTS, "generate").render(
        statement=ctx.problem.statement, tests=tests_text(ctx), entry_point=ctx.problem.entry_point
    )


def refine_prompt(ctx: RunContext, program: str, feedback: str) -> tuple[str, str]:
    return ctx.prompts.get(PROMPTS, "refine").render(
        statement=ctx.problem.statement, program=program, feedback=feedback
    )


async def write_program(ctx: RunContext, *, step: str) -> str:
    rendered = write_prompt(ctx)
    text = await ctx.call(ctx.request(AGENT, rendered, progression=0), step=step)
    program = extract_program(text, ctx.problem.entry_point)
    ctx.event(ProgramCandidate(step=step, agent=AGENT, progression=0, program=program))
    return program


async def refine_program(ctx: RunContext, program: str, feedback: str, *, iteration: int, step: str) -> str:
    rendered = refine_prompt(ctx, program, feedback)
    text = await ctx.call(ctx.request(AGENT, rendered, progression=0, epoch=iteration), step=step)
    fixed = extract_program(text, ctx.problem.entry_point)
    ctx.event(ProgramCandidate(step=step, agent=AGENT, progression=0, program=fixed))
    return fixed
