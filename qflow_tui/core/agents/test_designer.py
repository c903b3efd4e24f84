"""Test Designer (QualityFlow 3.2): synthesizes common-case unit tests in rounds
(Appendix A: 5 rounds of 10 at temperature 0.1, at most 50), de-duplicated."""

from __future__ import annotations

from ..asserts import find_call
from ..context import RunContext
from ..events import Notice, TestsDesigned
from ..extract import extract_asserts, normalize_assert
from ..llm import LLMError
from .program_generator import tests_text

AGENT = "test_designer"


def design_prompt(ctx: RunContext, designed: list[str]) -> tuple[str, str]:
    """One round's prompt: common-case tests (section 3.2), different from the
    visible tests and from ``designed``, the tests of earlier rounds."""
    previous_note = ""
    if designed:
        previous_note = "\n\nMake them different from these tests, designed already:\n" + "\n".join(designed)
    return ctx.prompts.get(AGENT, "common_cases").render(
        statement=ctx.problem.statement,
        tests=tests_text(ctx),
        entry_point=ctx.problem.entry_point,
        count=str(ctx.config.tests_per_round),
        previous_note=previous_note,
    )


def agentcoder_test_prompt(ctx: RunContext) -> tuple[str, str]:
    return ctx.prompts.get(AGENT, "agentcoder").render(
        statement=ctx.problem.statement,
        tests=tests_text(ctx),
        entry_point=ctx.problem.entry_point,
        count=str(ctx.config.max_tests),
    )


async def design_tests(ctx: RunContext, *, step: str = "test_designer") -> list[str]:
    cfg = ctx.config
    entry = ctx.problem.entry_point
    seen = {normalize_assert(t) for t in ctx.problem.test_sources}  # never hand back a visible test
    tests: list[str] = []
    for round_no in range(1, cfg.test_rounds + 1):
        if len(tests) >= cfg.max_tests:
            break
        rendered = design_prompt(ctx, tests)
        req = ctx.request(AGENT, rendered, temperature=cfg.test_designer_temperature, attempt=round_no)
        try:
            text = await ctx.call(req, step=step)
        except LLMError as exc:
            if exc.fatal:
                raise
            # Tests are a help for the debugger, not a must: go on with what we have.
            ctx.event(
                Notice(
                    step=step,
                    agent=AGENT,
                    level="warning",
                    message=f"test design stopped after {len(tests)} tests: {exc}",
                )
            )
            break
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
    tests = tests[: cfg.max_tests]
    ctx.event(TestsDesigned(step=step, agent=AGENT, round=1, tests=tests, total=len(tests)))
    return tests
