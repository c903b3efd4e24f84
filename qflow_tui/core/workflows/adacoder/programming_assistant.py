"""AdaCoder's Programming Assistant (Zhu et al., IV-B): writes the program from
the task alone in Phase 1 (no plan), and from the task and the Prompt
Engineer's plan in Phase 2."""

from __future__ import annotations

from ...agents.shown import tests_text
from ...context import RunContext
from ...events import ProgramCandidate
from ...extract import extract_program

AGENT = "programming_assistant"
PROMPTS = "adacoder/programming_assistant"


def assistant_prompt(ctx: RunContext, plan: str | None) -> tuple[str, str]:
    values = {"statement": ctx.problem.statement, "tests": tests_text(ctx), "entry_point": ctx.problem.entry_point}
    if plan is None:
        return ctx.prompts.get(PROMPTS, "generate").render(**values)
    return ctx.prompts.get(PROMPTS, "with_plan").render(plan=plan, **values)


async def write_code(ctx: RunContext, plan: str | None, *, step: str, iteration: int | None = None) -> str:
    request = ctx.request(AGENT, assistant_prompt(ctx, plan), progression=0, attempt=iteration)
    text = await ctx.call(request, step=step)
    program = extract_program(text, ctx.problem.entry_point)
    ctx.event(ProgramCandidate(step=step, agent=AGENT, progression=0, program=program))
    return program
