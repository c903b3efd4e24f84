"""CodeTree's Thinker (Li et al., 3.1): proposes strategies for a problem, and
reflections on a program that was not good enough; it writes no code."""

from __future__ import annotations

import re

from ...agents.shown import tests_text
from ...context import RunContext

AGENT = "thinker"
PROMPTS = "codetree/thinker"


def tagged(text: str, tag: str) -> list[str]:
    """The non-empty bodies of ``<tag>...</tag>``; an unclosed last tag counts
    (a model cut short by max_tokens), and with no tag at all the whole answer
    is one item (a model that ignored the format still said something)."""
    bodies = [b.strip() for b in re.findall(rf"<{tag}>(.*?)(?:</{tag}>|$)", text, flags=re.S | re.I)]
    bodies = [b for b in bodies if b]
    if bodies:
        return bodies
    whole = text.strip()
    return [whole] if whole else []


def strategies_prompt(ctx: RunContext, width: int | None) -> tuple[str, str]:
    """The Thinker decides how many strategies (section 3.1); ``width`` bounds
    them only in the BFS/DFS ablations (Table 3)."""
    name = "strategies" if width is None else "strategies_bounded"
    return ctx.prompts.get(PROMPTS, name).render(
        statement=ctx.problem.statement,
        tests=tests_text(ctx),
        entry_point=ctx.problem.entry_point,
        width=str(width or ""),
    )


def reflect_prompt(ctx: RunContext, strategy: str, program: str, feedback: str, width: int | None) -> tuple[str, str]:
    name = "reflect" if width is None else "reflect_bounded"
    return ctx.prompts.get(PROMPTS, name).render(
        statement=ctx.problem.statement, strategy=strategy, program=program, feedback=feedback, width=str(width or "")
    )


async def propose_strategies(ctx: RunContext, width: int | None, *, step: str) -> list[str]:
    """The strategies the Thinker proposes (at most ``width`` when one is given)."""
    text = await ctx.call(ctx.request(AGENT, strategies_prompt(ctx, width), progression=0), step=step)
    return tagged(text, "strategy")[:width]


async def reflect(
    ctx: RunContext, strategy: str, program: str, feedback: str, width: int | None, *, step: str, node: str, depth: int
) -> list[str]:
    """Reflections on ``program`` given its collective feedback (at most ``width`` when one is given)."""
    request = ctx.request(AGENT, reflect_prompt(ctx, strategy, program, feedback, width), progression=0, epoch=depth)
    request.node = node
    text = await ctx.call(request, step=step)
    return tagged(text, "reflection")[:width]
