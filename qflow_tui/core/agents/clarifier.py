"""Problem Clarifier (QualityFlow 3.5): explains the statement using everything
the run learned (synthesized tests, TQC verdicts, the debugging trajectory, why
the check failed) so the generator gets a second, better-informed chance."""

from __future__ import annotations

from ..context import RunContext
from ..extract import extract_clarified
from .program_generator import tests_text

AGENT = "clarifier"


async def clarify(
    ctx: RunContext,
    progression: int,
    attempt: int,
    *,
    program: str,
    kept_tests: list[str],
    rejected_tests: list[str],
    trajectory: str,
    check_feedback: str,
    step: str,
) -> str:
    rendered = ctx.prompts.get(AGENT, "default").render(
        statement=ctx.problem.statement,
        tests=tests_text(ctx),
        kept_tests="\n".join(kept_tests) or "(none)",
        rejected_tests="\n".join(rejected_tests) or "(none)",
        trajectory=trajectory or "(no self-debugging was done)",
        program=program,
        check_feedback=check_feedback or "(no details)",
    )
    text = await ctx.call(ctx.request(AGENT, rendered, progression=progression, attempt=attempt), step=step)
    return extract_clarified(text)
