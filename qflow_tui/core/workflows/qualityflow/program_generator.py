"""Program Generator (QualityFlow 3.1): drafts a program from the statement and
the visible tests; one prompt variant per progression (Diversified Prompting)."""

from __future__ import annotations

from ...agents.shown import tests_text
from ...context import RunContext
from ...events import ProgramCandidate
from ...extract import extract_program
from . import variant_index

AGENT = "program_generator"
PROMPTS = "qualityflow/program_generator"


def generator_prompt(ctx: RunContext, progression: int) -> tuple[str, str]:
    """Diversified Prompting: progression ``p`` uses the ``p``-th generator prompt."""
    variants = ctx.prompts.variants(PROMPTS)
    return variants[variant_index(ctx.config, progression, len(variants))].render(
        statement=ctx.problem.statement, tests=tests_text(ctx), entry_point=ctx.problem.entry_point
    )


def clarified_prompt(
    ctx: RunContext, attempt: int, clarified: str, rejected_program: str, statement: str | None = None
) -> tuple[str, str]:
    """Line 23 of Algorithm 1, one prompt variant per clarifier attempt (``statement``:
    as a person edited it, the problem's when None)."""
    variants = ctx.prompts.variants(PROMPTS, "clarified")
    return variants[variant_index(ctx.config, attempt - 1, len(variants))].render(
        statement=ctx.problem.statement if statement is None else statement,
        clarified=clarified,
        tests=tests_text(ctx),
        rejected_program=rejected_program,
        entry_point=ctx.problem.entry_point,
    )


async def generate_program(ctx: RunContext, progression: int, *, step: str = "program_generator") -> str:
    rendered = generator_prompt(ctx, progression)
    text = await ctx.call(ctx.request(AGENT, rendered, progression=progression), step=step)
    program = extract_program(text, ctx.problem.entry_point)
    ctx.event(ProgramCandidate(step=step, agent=AGENT, progression=progression, program=program))
    return program


async def generate_clarified_program(
    ctx: RunContext,
    progression: int,
    attempt: int,
    clarified: str,
    rejected_program: str,
    *,
    step: str,
    statement: str | None = None,
) -> str:
    """Line 23 of Algorithm 1: generate again from the clarified statement,
    instructed to write a different implementation."""
    rendered = clarified_prompt(ctx, attempt, clarified, rejected_program, statement)
    text = await ctx.call(ctx.request(AGENT, rendered, progression=progression, attempt=attempt), step=step)
    program = extract_program(text, ctx.problem.entry_point)
    ctx.event(ProgramCandidate(step=step, agent=AGENT, progression=progression, program=program))
    return program
