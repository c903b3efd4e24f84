"""Zero-shot's program generator: one program from one prompt, the baseline
of the paper the ``baseline`` setting names: QualityFlow's first generator
prompt (the Zero-shot column of its tables), AgentCoder's zero-shot prompting,
CodeTree's and AdaCoder's Direct. Each is this workflow's own file, so the
baseline never depends on another workflow."""

from __future__ import annotations

from ...agents.shown import tests_text
from ...context import RunContext
from ...events import ProgramCandidate
from ...extract import extract_program
from . import BASELINE, BASELINE_PROMPTS

AGENT = "program_generator"
PROMPTS = "zeroshot/program_generator"


def baseline_prompt(ctx: RunContext) -> tuple[str, str]:
    """The prompt of the baseline the run's ``baseline`` setting names."""
    return ctx.prompts.get(PROMPTS, BASELINE_PROMPTS[BASELINE.of(ctx.config)]).render(
        statement=ctx.problem.statement, tests=tests_text(ctx), entry_point=ctx.problem.entry_point
    )


async def generate_program(ctx: RunContext, *, step: str) -> str:
    rendered = baseline_prompt(ctx)
    text = await ctx.call(ctx.request(AGENT, rendered, progression=0), step=step)
    program = extract_program(text, ctx.problem.entry_point)
    ctx.event(ProgramCandidate(step=step, agent=AGENT, progression=0, program=program))
    return program
