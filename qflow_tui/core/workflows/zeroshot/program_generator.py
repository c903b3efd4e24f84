"""Zero-shot's program generator: one program from one prompt, the first of
QualityFlow's generator prompts (the zero-shot column of its tables), kept as
this workflow's own file so the baseline never depends on another workflow."""

from __future__ import annotations

from ...agents.shown import tests_text
from ...context import RunContext
from ...events import ProgramCandidate
from ...extract import extract_program

AGENT = "program_generator"
PROMPTS = "zeroshot/program_generator"


async def generate_program(ctx: RunContext, *, step: str) -> str:
    rendered = ctx.prompts.get(PROMPTS, "direct").render(
        statement=ctx.problem.statement, tests=tests_text(ctx), entry_point=ctx.problem.entry_point
    )
    text = await ctx.call(ctx.request(AGENT, rendered, progression=0), step=step)
    program = extract_program(text, ctx.problem.entry_point)
    ctx.event(ProgramCandidate(step=step, agent=AGENT, progression=0, program=program))
    return program
