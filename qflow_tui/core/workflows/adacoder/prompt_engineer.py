"""AdaCoder's Prompt Engineer (Zhu et al., IV-E): a step-by-step plan from the
task and the Code Evaluator's error feedback on the debugged program."""

from __future__ import annotations

import re

from ...context import RunContext

AGENT = "prompt_engineer"
PROMPTS = "adacoder/prompt_engineer"


def plan_prompt(ctx: RunContext, feedback: str) -> tuple[str, str]:
    return ctx.prompts.get(PROMPTS, "plan").render(statement=ctx.problem.statement, feedback=feedback)


def extract_plan(text: str) -> str:
    """The body of ``<plan>`` (an unclosed tag counts); the whole answer without tags."""
    found = re.search(r"<plan>(.*?)(?:</plan>|$)", text, flags=re.S | re.I)
    return (found.group(1) if found else text).strip()


async def make_plan(ctx: RunContext, feedback: str, *, step: str, iteration: int) -> str:
    text = await ctx.call(ctx.request(AGENT, plan_prompt(ctx, feedback), progression=0, attempt=iteration), step=step)
    return extract_plan(text)
