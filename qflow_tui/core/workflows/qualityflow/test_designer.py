"""Test Designer (QualityFlow 3.2): synthesizes common-case unit tests in rounds
(Appendix A: 5 rounds of 10 at temperature 0.1, at most 50), de-duplicated.

Appendix A does not say whether the rounds see each other: "batches of 10 tests
per query for 5 rounds", at temperature 0.1 "to encourage diversity in the tests
generated", reads as five copies of one query, sent at once. That reading is
``independent_test_rounds``. It is not the default: five identical prompts at
temperature 0.1 mostly return the same tests (and on Anthropic models no
temperature is sent at all), so de-duplication left far fewer than the ~49 tests
per problem its Table 6 implies. By default each round after the first is shown
the tests designed so far and asked for others, so the rounds run in sequence,
not at once."""

from __future__ import annotations

import asyncio

from ...agents.designed_io import designed_io_pairs, new_io_labels
from ...agents.shown import tests_text
from ...asserts import find_call
from ...context import RunContext
from ...events import Notice, TestsDesigned
from ...extract import extract_asserts, normalize_assert
from ...llm import LLMError
from ...problem import ProblemError
from . import INDEPENDENT_TEST_ROUNDS, MAX_TESTS, TEST_DESIGNER_TEMPERATURE, TEST_ROUNDS, TESTS_PER_ROUND

AGENT = "test_designer"
PROMPTS = "qualityflow/test_designer"


def design_prompt(ctx: RunContext, designed: list[str] | None = None) -> tuple[str, str]:
    """One round's prompt: common-case tests (section 3.2), different from the
    visible tests and from ``designed``, the earlier rounds' tests."""
    values = {
        "statement": ctx.problem.statement,
        "tests": tests_text(ctx),
        "entry_point": ctx.problem.entry_point,
        "count": str(TESTS_PER_ROUND.of(ctx.config)),
    }
    if not designed:
        return ctx.prompts.get(PROMPTS, "common_cases").render(**values)
    return ctx.prompts.get(PROMPTS, "more_cases").render(**values, designed="\n".join(designed))


async def _round(ctx: RunContext, round_no: int, step: str, designed: list[str]) -> str | None:
    """One round's answer, or None when its call failed (the notice says why)."""
    req = ctx.request(
        AGENT, design_prompt(ctx, designed), temperature=TEST_DESIGNER_TEMPERATURE.of(ctx.config), attempt=round_no
    )
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


async def _independent_answers(ctx: RunContext, step: str, rounds: int) -> dict[int, str | None]:
    """``independent_test_rounds``: every round the first round's query, all sent
    at once; each round's answer by its number (None: its call failed)."""
    tasks = [asyncio.ensure_future(_round(ctx, n, step, [])) for n in range(1, rounds + 1)]
    try:
        found = await asyncio.gather(*tasks)
    except BaseException:  # a fatal error or a stop: no round goes on alone
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    return dict(enumerate(found, start=1))


async def design_tests(ctx: RunContext, *, step: str = "test_designer") -> list[str]:
    """Appendix A: rounds of ``tests_per_round`` tests at temperature 0.1, at most
    ``max_tests`` in all. Each round is told the tests it already has (so the
    rounds run one after another), or, with ``independent_test_rounds``, every
    round is the same first-round query and all are sent at once; their tests
    are de-duplicated in round order either way."""
    cfg = ctx.config
    most, per_round = MAX_TESTS.of(cfg), TESTS_PER_ROUND.of(cfg)
    entry = ctx.problem.entry_point
    rounds = min(TEST_ROUNDS.of(cfg), -(-most // per_round))
    answers = await _independent_answers(ctx, step, rounds) if INDEPENDENT_TEST_ROUNDS.of(cfg) else {}
    if ctx.problem.is_io:
        return await _design_io_tests(ctx, step, rounds, per_round, most, answers)
    seen = {normalize_assert(t) for t in ctx.problem.test_sources}  # never hand back a visible test
    tests: list[str] = []
    for round_no in range(1, rounds + 1):
        if len(tests) >= most:
            break
        text = answers[round_no] if answers else await _round(ctx, round_no, step, tests)
        if text is None:
            continue
        new: list[str] = []
        for t in extract_asserts(text)[:per_round]:
            key = normalize_assert(t)
            if key in seen or find_call(t, entry) is None:
                continue
            seen.add(key)
            new.append(t)
        new = new[: most - len(tests)]
        tests.extend(new)
        ctx.event(
            TestsDesigned(step=step, agent=AGENT, round=round_no, tests=new, total=len(tests), rounds=rounds, most=most)
        )
    return tests


async def _design_io_tests(
    ctx: RunContext, step: str, rounds: int, per_round: int, most: int, answers: dict[int, str | None]
) -> list[str]:
    """An I/O problem's rounds: each answer's Input/Output blocks (the paste
    format) become tests, labelled whole so that they read back as pairs.
    ``answers``: the independent rounds' answers, when they were sent at once."""
    seen = {(t.input or "", t.output or "") for t in ctx.problem.tests}  # never hand back a visible test
    tests: list[str] = []
    for round_no in range(1, rounds + 1):
        if len(tests) >= most:
            break
        text = answers[round_no] if answers else await _round(ctx, round_no, step, tests)
        if text is None:
            continue
        try:
            pairs = designed_io_pairs(text)
        except ProblemError as exc:
            ctx.event(
                Notice(
                    step=step,
                    agent=AGENT,
                    level="warning",
                    message=f"test design round {round_no}: no Input/Output tests could be read ({exc})",
                    cause=str(exc),
                )
            )
            continue
        new = new_io_labels(pairs[:per_round], seen, most - len(tests))
        tests.extend(new)
        ctx.event(
            TestsDesigned(step=step, agent=AGENT, round=round_no, tests=new, total=len(tests), rounds=rounds, most=most)
        )
    return tests
