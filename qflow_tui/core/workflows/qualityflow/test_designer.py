"""Test Designer (QualityFlow 3.2): synthesizes common-case unit tests in rounds
(Appendix A: 5 rounds of 10 at temperature 0.1, at most 50), de-duplicated."""

from __future__ import annotations

from ...agents.shown import tests_text
from ...asserts import find_call
from ...context import RunContext, gather_all
from ...events import Notice, TestsDesigned
from ...extract import extract_asserts, normalize_assert
from ...llm import LLMError

AGENT = "test_designer"
PROMPTS = "qualityflow/test_designer"


def design_prompt(ctx: RunContext) -> tuple[str, str]:
    """One round's prompt: common-case tests (section 3.2), different from the visible tests."""
    return ctx.prompts.get(PROMPTS, "common_cases").render(
        statement=ctx.problem.statement,
        tests=tests_text(ctx),
        entry_point=ctx.problem.entry_point,
        count=str(ctx.config.tests_per_round),
    )


async def _round(ctx: RunContext, round_no: int, step: str) -> str | None:
    """One round's answer, or None when its call failed (the notice says why)."""
    req = ctx.request(AGENT, design_prompt(ctx), temperature=ctx.config.test_designer_temperature, attempt=round_no)
    try:
        return await ctx.call(req, step=step)
    except LLMError as exc:
        if exc.fatal:
            raise
        # Tests are a help for the debugger, not a must: go on with the other rounds.
        ctx.event(
            Notice(
                step=step,
                agent=AGENT,
                level="warning",
                message=f"test design round {round_no} failed: {exc}",
                cause=str(exc),
            )
        )
        return None


async def design_tests(ctx: RunContext, *, step: str = "test_designer") -> list[str]:
    """Appendix A: rounds of ``tests_per_round`` tests at temperature 0.1, at most
    ``max_tests`` in all. The rounds are independent samples, so they run at
    once; their tests are de-duplicated in round order."""
    cfg = ctx.config
    entry = ctx.problem.entry_point
    rounds = min(cfg.test_rounds, -(-cfg.max_tests // cfg.tests_per_round))
    answers = await gather_all(_round(ctx, r, step) for r in range(1, rounds + 1))
    seen = {normalize_assert(t) for t in ctx.problem.test_sources}  # never hand back a visible test
    tests: list[str] = []
    for round_no, text in enumerate(answers, start=1):
        if text is None:
            continue
        new: list[str] = []
        for t in extract_asserts(text)[: cfg.tests_per_round]:
            key = normalize_assert(t)
            if key in seen or find_call(t, entry) is None:
                continue
            seen.add(key)
            new.append(t)
        new = new[: cfg.max_tests - len(tests)]
        tests.extend(new)
        ctx.event(TestsDesigned(step=step, agent=AGENT, round=round_no, tests=new, total=len(tests)))
    return tests
