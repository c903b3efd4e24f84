"""Test Designer (AgentCoder, Huang et al. 3.2): basic, edge and large-scale
tests from the requirements alone, in one call."""

from __future__ import annotations

from ...agents.shown import tests_text
from ...asserts import find_call
from ...context import RunContext
from ...events import TestsDesigned
from ...extract import extract_asserts, normalize_assert
from . import MAX_TESTS

AGENT = "test_designer"
PROMPTS = "agentcoder/test_designer"


def agentcoder_test_prompt(ctx: RunContext) -> tuple[str, str]:
    return ctx.prompts.get(PROMPTS, "agentcoder").render(
        statement=ctx.problem.statement,
        tests=tests_text(ctx),
        entry_point=ctx.problem.entry_point,
        count=str(MAX_TESTS.of(ctx.config)),
    )


async def design_basic_edge_large_tests(ctx: RunContext, *, step: str = "test_designer") -> list[str]:
    """AgentCoder's test designer (Huang et al., 3.2): one call for basic, edge and
    large-scale tests, from the requirements alone."""
    cfg = ctx.config
    entry = ctx.problem.entry_point
    rendered = agentcoder_test_prompt(ctx)
    text = await ctx.call(ctx.request(AGENT, rendered), step=step)
    seen = {normalize_assert(t) for t in ctx.problem.test_sources}
    tests: list[str] = []
    for t in extract_asserts(text):
        key = normalize_assert(t)
        if key in seen or find_call(t, entry) is None:
            continue
        seen.add(key)
        tests.append(t)
    tests = tests[: MAX_TESTS.of(cfg)]
    ctx.event(
        TestsDesigned(step=step, agent=AGENT, round=1, tests=tests, total=len(tests), rounds=1, most=MAX_TESTS.of(cfg))
    )
    return tests
