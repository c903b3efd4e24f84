"""Imagined Execution (QualityFlow 3.4, Appendix G): the model emulates a
program on a test input step by step, then completes the test's assert; the
verdict comes from evaluating the original assert with the function call
replaced by the model's value, in the sandbox."""

from __future__ import annotations

from dataclasses import dataclass

from .asserts import AssertSyntaxError, expected_source, find_call, question_form
from .context import RunContext
from .events import ImaginedCheck
from .extract import extract_test_case


@dataclass
class ImaginedResult:
    test: str
    function_call: str
    question: str
    reasoning: str
    answer: str
    value: str | None
    verdict: str
    """``pass`` or ``fail`` (``pending`` between asking and judging)."""
    detail: str = ""

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"


def parse_value(answer: str | None, question: str, entry_point: str) -> str | None:
    """The model's value: the expression standing where the ``?`` stood.

    Tolerant of answers that reshape the assert: when the answered assert still
    calls the function, the expected side is taken; otherwise the right-hand side
    of its last ``==``.
    """
    if not answer:
        return None
    try:
        value = expected_source(answer, entry_point)
        if value is not None:
            return value
    except AssertSyntaxError:
        pass
    # The answer is not a clean assert around our call: read it positionally.
    q_before, _, q_after = question.partition("?")
    text = answer.strip()
    if text.startswith(q_before.strip()) and q_after.strip() and text.endswith(q_after.strip()):
        inner = text[len(q_before.strip()) : len(text) - len(q_after.strip())].strip()
        return inner or None
    if q_after.strip() == "" and text.startswith(q_before.strip()):
        inner = text[len(q_before.strip()) :].strip()
        return inner or None
    if "==" in text:
        return text.rsplit("==", 1)[1].strip() or None
    return None


async def imagine(
    ctx: RunContext,
    *,
    agent: str,
    test: str,
    turn1: tuple[str, str],
    step: str,
    progression: int | None,
    two_turn: bool = True,
    **where: object,
) -> ImaginedResult:
    """Ask the model for one imagined execution; the verdict is left ``pending``
    for :func:`judge` (``fail`` already when no value can be read).

    ``turn1`` is the rendered first prompt; with ``two_turn`` the Appendix G
    follow-up asks for the completed assert; otherwise the first answer must
    already hold it (the Test Quality Checker's single-turn form).
    """
    entry = ctx.problem.entry_point
    site = find_call(test, entry)
    call_src = site.source if site else ""
    question = question_form(test, entry)
    system, user = turn1
    messages = [{"role": "user", "content": user}]
    req = ctx.request(agent, messages=messages, system=system, turn=1, progression=progression, test=test, **where)
    reasoning = await ctx.call(req, step=step)
    reply = reasoning
    if two_turn:
        _, follow_up = ctx.prompts.get("code_quality_checker", "turn2").render(question=question)
        messages2 = [*messages, {"role": "assistant", "content": reasoning}, {"role": "user", "content": follow_up}]
        req2 = ctx.request(
            agent, messages=messages2, system=system, turn=2, progression=progression, test=test, **where
        )
        reply = await ctx.call(req2, step=step)
    answer = extract_test_case(reply) or ""
    value = parse_value(answer, question, entry)
    if value is None:
        return ImaginedResult(
            test, call_src, question, reasoning, answer, None, "fail", "no value could be read from the answer"
        )
    return ImaginedResult(test, call_src, question, reasoning, answer, value, "pending")


async def judge(ctx: RunContext, results: list[ImaginedResult]) -> None:
    """Decide every pending verdict in one sandbox run: each original assert with
    the function call replaced by the model's value (one interpreter start for
    all of them, not one per test)."""
    pending = [r for r in results if r.verdict == "pending"]
    if not pending:
        return
    report = await ctx.sandbox.check_values(
        [(r.test, r.value) for r in pending], entry_point=ctx.problem.entry_point, setup=ctx.problem.setup
    )
    for i, r in enumerate(pending):
        outcome = report.results[i] if i < len(report.results) else None
        if outcome is None:
            r.verdict, r.detail = "fail", report.load_error or "no verdict"
        elif outcome.status == "pass":
            r.verdict = "pass"
        elif outcome.status == "fail":
            r.verdict, r.detail = "fail", f"the imagined value {outcome.actual or r.value} does not satisfy the assert"
        else:
            r.verdict, r.detail = "fail", f"the imagined value could not be used: {outcome.error or outcome.status}"


async def imagined_execution(
    ctx: RunContext, program: str, tests: list[str], *, step: str, progression: int | None, **where: object
) -> list[ImaginedResult]:
    """The Code Quality Checker's check of the visible tests: one two-turn
    conversation per test (concurrently), one sandbox run for the verdicts,
    one event per test."""
    from .context import gather_all

    entry = ctx.problem.entry_point
    prompt = ctx.prompts.get("code_quality_checker", "turn1")

    def turn1(test: str) -> tuple[str, str]:
        site = find_call(test, entry)
        return prompt.render(program=program, function_call=site.source if site else test)

    results = await gather_all(
        imagine(ctx, agent="code_quality_checker", test=t, turn1=turn1(t), step=step, progression=progression, **where)
        for t in tests
    )
    await judge(ctx, results)
    for result in results:
        ctx.event(
            ImaginedCheck(
                step=step,
                agent="code_quality_checker",
                progression=progression,
                test=result.test,
                function_call=result.function_call,
                reasoning=result.reasoning,
                answer=result.answer,
                value=result.value,
                verdict=result.verdict,
                detail=result.detail,
            )
        )
    return results
