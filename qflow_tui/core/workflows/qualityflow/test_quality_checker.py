"""Test Quality Checker (QualityFlow 3.4): keeps a synthesized test only when
reasoning from the problem statement alone (no program) reaches the output the
test asserts."""

from __future__ import annotations

from dataclasses import dataclass

from ...agents.shown import tests_text
from ...asserts import find_call, question_form
from ...context import RunContext, gather_all
from ...events import TQCVerdict
from ...iojudge import resolve_io_tests
from ...llm import LLMError
from .imagined import ImaginedResult, imagine, io_question, judge

AGENT = "test_quality_checker"
PROMPTS = "qualityflow/test_quality_checker"


@dataclass
class TestVerdict:
    index: int
    test: str
    kept: bool
    reasoning: str
    value: str | None
    detail: str


def tqc_prompt(ctx: RunContext, test: str) -> tuple[str, str]:
    """The statement, the visible tests and the synthesized test's call: no
    program (section 3.4: the program's correctness is what is in question)."""
    entry = ctx.problem.entry_point
    if ctx.problem.is_io:
        stdin = resolve_io_tests(ctx.problem, [test])[0].input or ""
        return ctx.prompts.get(PROMPTS, "default").render(
            statement=ctx.problem.statement, tests=tests_text(ctx), function_call=stdin, question=io_question(stdin)
        )
    site = find_call(test, entry)
    return ctx.prompts.get(PROMPTS, "default").render(
        statement=ctx.problem.statement,
        tests=tests_text(ctx),
        function_call=site.source if site else test,
        question=question_form(test, entry),
    )


async def _ask(ctx: RunContext, index: int, test: str, *, step: str) -> ImaginedResult | str:
    """The model's reasoning and value for one synthesized test, or why there is none."""
    rendered = tqc_prompt(ctx, test)
    try:
        return await imagine(
            ctx, agent=AGENT, test=test, turn1=rendered, step=step, progression=None, two_turn=False, attempt=index + 1
        )
    except LLMError as exc:
        if exc.fatal:
            raise
        # An unchecked test is not trusted: it is left out, and the reason shown.
        return f"not checked, so not used: {exc}"


async def filter_tests(ctx: RunContext, tests: list[str], *, step: str = "test_quality_checker") -> list[TestVerdict]:
    """Ask about every synthesized test concurrently, then judge all the values
    in one sandbox run; the order of the input is kept."""
    answers = await gather_all(_ask(ctx, i, t, step=step) for i, t in enumerate(tests))
    await judge(ctx, [a for a in answers if isinstance(a, ImaginedResult)])
    verdicts = []
    for index, (test, a) in enumerate(zip(tests, answers, strict=True)):
        if isinstance(a, ImaginedResult):
            verdict = TestVerdict(index, test, a.passed, a.reasoning, a.value, a.detail)
        else:
            verdict = TestVerdict(index, test, False, "", None, a)
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
        verdicts.append(verdict)
    return verdicts
