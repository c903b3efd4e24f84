"""Test Quality Checker (QualityFlow 3.4): keeps a synthesized test only when
reasoning from the problem statement alone (no program) reaches the output the
test asserts."""

from __future__ import annotations

from dataclasses import dataclass

from ..asserts import find_call, question_form
from ..context import RunContext, gather_all
from ..events import TQCVerdict
from ..imagined import imagine
from ..llm import LLMError
from .program_generator import tests_text

AGENT = "test_quality_checker"


@dataclass
class TestVerdict:
    index: int
    test: str
    kept: bool
    reasoning: str
    value: str | None
    detail: str


async def check_test(ctx: RunContext, index: int, test: str, *, step: str) -> TestVerdict:
    entry = ctx.problem.entry_point
    site = find_call(test, entry)
    rendered = ctx.prompts.get(AGENT, "default").render(
        statement=ctx.problem.statement,
        tests=tests_text(ctx),
        function_call=site.source if site else test,
        question=question_form(test, entry),
    )
    try:
        result = await imagine(
            ctx, agent=AGENT, test=test, turn1=rendered, program=None, step=step, progression=None, two_turn=False, attempt=index + 1
        )
        verdict = TestVerdict(index, test, result.passed, result.reasoning, result.value, result.detail)
    except LLMError as exc:
        if exc.fatal:
            raise
        # An unchecked test is not trusted: it is left out, and the reason shown.
        verdict = TestVerdict(index, test, False, "", None, f"not checked, so not used: {exc}")
    ctx.event(
        TQCVerdict(
            step=step,
            agent=AGENT,
            index=index,
            test=test,
            verdict="kept" if verdict.kept else "rejected",
            reasoning=verdict.reasoning,
            value=verdict.value,
            detail=verdict.detail,
        )
    )
    return verdict


async def filter_tests(ctx: RunContext, tests: list[str], *, step: str = "test_quality_checker") -> list[TestVerdict]:
    """Judge every synthesized test concurrently; the order of the input is kept."""
    return list(await gather_all(check_test(ctx, i, t, step=step) for i, t in enumerate(tests)))
