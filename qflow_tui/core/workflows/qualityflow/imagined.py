"""Imagined Execution (QualityFlow 3.4, Appendix G): the model emulates a
program on a test input step by step, then completes the test's assert; the
verdict comes from evaluating the original assert with the function call
replaced by the model's value, in the sandbox."""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Unpack

from ...asserts import AssertSyntaxError, find_call, question_form, replace_call, value_from_assert
from ...context import gather_all
from ...events import ImaginedCheck
from ...extract import extract_test_case, extract_value_only, test_case_bodies
from ...iojudge import codecontests_match, resolve_io_tests
from ...setup_code import judging_setup, sandbox_setup, shown_setup

if TYPE_CHECKING:
    from ...context import RunContext
    from ...llm.base import CallPlace

#: How much of an unreadable reply the trace shows (the whole reply is in the call's events).
SHOWN_REPLY = 2000


@dataclass
class ImaginedResult:
    test: str
    function_call: str
    question: str
    reasoning: str
    answer: str
    """The completed assert (or bare value) read from the reply; the reply itself
    when nothing could be read from it, so the trace shows what the model said."""
    value: str | None
    verdict: str
    """``pass`` or ``fail`` (``pending`` between asking and judging)."""
    detail: str = ""
    calls: int = 0
    """Model calls this check made (0 when its verdict was reused)."""
    step: str = ""
    progression: int | None = None
    """Where the check was made (for a reused verdict: where it was first made)."""
    reused: bool = False

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"


def read_answer(reply: str, question: str, entry_point: str) -> tuple[str, str | None]:
    """``(answer, value)`` from a turn-two reply: the completed assert and the
    expression standing where the ``?`` stood; a value given without an assert
    (``<test_case>1</test_case>``, a reply that is only the value) is read too.
    When no value can be read, ``answer`` is the reply itself and value None."""
    found = extract_test_case(reply)
    if found:
        value = value_from_assert(found, question, entry_point)
        if value is not None:
            return found, value
    # The completed test case without the ``assert`` keyword: "f(1) == 2".
    for body in reversed(test_case_bodies(reply)):
        if body and not body.startswith("assert"):
            value = value_from_assert("assert " + body, question, entry_point)
            if value is not None:
                return body, value
    value = extract_value_only(reply)
    if value is not None and value != "?":
        return value, value
    text = reply.strip()
    if len(text) > SHOWN_REPLY:
        text = "…" + text[-SHOWN_REPLY:]
    return text, None


def io_question(input_text: str) -> str:
    """An I/O test's question: its input, and ``?`` where the printed output goes."""
    return f"Input\n{input_text.rstrip(chr(10))}\nOutput\n?"


def read_io_answer(reply: str) -> tuple[str, str | None]:
    """``(answer, printed)`` from an I/O test's turn-two reply: the text after
    the last ``Output`` line of the completed test case (or the whole test
    case when it has none); None when the reply holds no test case."""
    found = test_case_bodies(reply)
    if not found:
        text = reply.strip()
        return (("…" + text[-SHOWN_REPLY:]) if len(text) > SHOWN_REPLY else text), None
    body = found[-1]
    lines = body.replace("\r\n", "\n").split("\n")
    heads = [i for i, line in enumerate(lines) if line.strip().lower().rstrip(":") == "output"]
    printed = "\n".join(lines[heads[-1] + 1 :] if heads else lines).strip("\n")
    if printed.strip() == "?":
        return body, None
    return body, printed + "\n"


def _io_case(ctx: RunContext, test: str) -> Any:
    return resolve_io_tests(ctx.problem, [test])[0]


def parse_value(answer: str | None, question: str, entry_point: str) -> str | None:
    """The model's value in a reply (see :func:`read_answer`), or None."""
    if not answer:
        return None
    return read_answer(answer, question, entry_point)[1]


async def imagine(
    ctx: RunContext,
    *,
    agent: str,
    test: str,
    turn1: tuple[str, str],
    step: str,
    progression: int | None,
    two_turn: bool = True,
    **where: Unpack[CallPlace],
) -> ImaginedResult:
    """Ask the model for one imagined execution; the verdict is left ``pending``
    for :func:`judge` (``fail`` already when no value can be read).

    ``turn1`` is the rendered first prompt; with ``two_turn`` the Appendix G
    follow-up asks for the completed assert; otherwise the first answer must
    already hold it (the Test Quality Checker's single-turn form).
    """
    entry = ctx.problem.entry_point
    if ctx.problem.is_io:
        # The input alone: the expected output is what is being checked.
        call_src = _io_case(ctx, test).input
        question = io_question(call_src)
    else:
        site = find_call(test, entry)
        call_src = site.source if site else ""
        question = question_form(test, entry)
    system, user = turn1
    messages = [{"role": "user", "content": user}]
    req = ctx.request(agent, messages=messages, system=system, turn=1, progression=progression, test=test, **where)
    reasoning = await ctx.call(req, step=step)
    reply = reasoning
    calls = 1
    if two_turn:
        _, follow_up = cqc_turn2_prompt(ctx, question)
        messages2 = [*messages, {"role": "assistant", "content": reasoning}, {"role": "user", "content": follow_up}]
        req2 = ctx.request(
            agent, messages=messages2, system=system, turn=2, progression=progression, test=test, **where
        )
        reply = await ctx.call(req2, step=step)
        calls = 2
    answer, value = read_io_answer(reply) if ctx.problem.is_io else read_answer(reply, question, entry)
    result = ImaginedResult(
        test, call_src, question, reasoning, answer, value, "pending", calls=calls, step=step, progression=progression
    )
    if value is None:
        result.verdict = "fail"
        result.detail = (
            f"the answer could not be read: it gives no value for {call_src or 'the call'} (the answer is shown above)"
        )
    return result


def _judged_assert(r: ImaginedResult, entry: str) -> str:
    try:
        return replace_call(r.test, r.value or "", entry)
    except AssertSyntaxError:
        return r.test


async def judge(ctx: RunContext, results: list[ImaginedResult]) -> None:
    """Decide every pending verdict in one sandbox run: each original assert with
    the function call replaced by the model's value (one interpreter start for
    all of them, not one per test). The test setup runs first, as far as the
    judged asserts need it (see :func:`judging_setup`)."""
    pending = [r for r in results if r.verdict == "pending"]
    if not pending:
        return
    if ctx.problem.is_io:
        # The imagined output against the test's, compared as the judge compares (in the app).
        for r in pending:
            expected = _io_case(ctx, r.test).output or ""
            if codecontests_match(r.value or "", expected):
                r.verdict = "pass"
            else:
                r.verdict, r.detail = "fail", f"the imagined output {r.value!r} differs from the test's {expected!r}"
        return
    entry = ctx.problem.entry_point
    setup = judging_setup(sandbox_setup(ctx.problem), [_judged_assert(r, entry) for r in pending])
    report = await ctx.sandbox.check_values([(r.test, r.value) for r in pending], entry_point=entry, setup=setup)
    for i, r in enumerate(pending):
        outcome = report.results[i] if i < len(report.results) else None
        if outcome is None:
            r.verdict, r.detail = "fail", report.load_error or "no verdict"
        elif outcome.status == "pass":
            r.verdict = "pass"
        elif outcome.status == "fail":
            r.verdict, r.detail = "fail", f"the imagined value {r.value} does not satisfy the assert"
        else:
            r.verdict, r.detail = "fail", f"the imagined value could not be used: {outcome.error or outcome.status}"


def cqc_turn2_prompt(ctx: RunContext, question: str) -> tuple[str, str]:
    """Appendix G, turn two: complete the assert whose ``?`` stands for the value."""
    return ctx.prompts.get("qualityflow/code_quality_checker", "turn2").render(question=question)


def cqc_turn1_prompt(ctx: RunContext, program: str, test: str) -> tuple[str, str]:
    """Appendix G, turn one: the program and the call; the test setup the call
    runs after when the problem has one; never the expected value."""
    if ctx.problem.is_io:
        # An I/O test: the input it reads, never the expected output.
        return ctx.prompts.get("qualityflow/code_quality_checker", "turn1").render(
            program=program, function_call=_io_case(ctx, test).input, setup=""
        )
    site = find_call(test, ctx.problem.entry_point)
    setup = shown_setup(ctx.problem)
    setup_note = f"The call runs after this test setup:\n```python\n{setup}\n```\n" if setup else ""
    return ctx.prompts.get("qualityflow/code_quality_checker", "turn1").render(
        program=program, function_call=site.source if site else test, setup=setup_note
    )


async def _verdicts(
    ctx: RunContext, program: str, tests: list[str], *, step: str, progression: int | None, **where: Unpack[CallPlace]
) -> list[ImaginedResult]:
    """One verdict per test, asking the model only about (program, test) pairs
    not already asked about in this run: an identical check, finished or in
    flight (another progression wrote the same program), is awaited and reused."""
    memo = ctx.imagined_verdicts
    key = program.strip()
    loop = asyncio.get_running_loop()
    owned: dict[int, asyncio.Future[ImaginedResult | None]] = {}
    shared: dict[int, asyncio.Future[ImaginedResult | None]] = {}
    for i, test in enumerate(tests):
        existing = memo.get((key, test))
        if existing is None:
            owned[i] = memo[key, test] = loop.create_future()
        else:
            shared[i] = existing
    results: list[ImaginedResult | None] = [None] * len(tests)
    try:
        asked = await gather_all(
            imagine(
                ctx,
                agent="code_quality_checker",
                test=tests[i],
                turn1=cqc_turn1_prompt(ctx, program, tests[i]),
                step=step,
                progression=progression,
                **where,
            )
            for i in owned
        )
        await judge(ctx, asked)
    except BaseException:
        # Nothing to reuse: whoever waits on these checks makes them itself.
        for i, fut in owned.items():
            memo.pop((key, tests[i]), None)
            if not fut.done():
                fut.set_result(None)
        raise
    for (i, fut), result in zip(owned.items(), asked, strict=True):
        results[i] = result
        fut.set_result(result)
    redo: list[int] = []
    for i, fut in shared.items():
        # shield: a cancelled waiter must not cancel the check others wait for.
        earlier = await asyncio.shield(fut)
        if earlier is None:
            redo.append(i)
            continue
        ctx.reused_calls += earlier.calls
        results[i] = dataclasses.replace(earlier, calls=0, reused=True)
    if redo:
        again = await _verdicts(ctx, program, [tests[i] for i in redo], step=step, progression=progression, **where)
        for i, result in zip(redo, again, strict=True):
            results[i] = result
    return [r for r in results if r is not None]


async def imagined_execution(
    ctx: RunContext, program: str, tests: list[str], *, step: str, progression: int | None, **where: Unpack[CallPlace]
) -> list[ImaginedResult]:
    """The Code Quality Checker's check of the visible tests: one two-turn
    conversation per test (concurrently), one sandbox run for the verdicts,
    one event per test. A (program text, test) pair already checked in this
    run is not asked again: its verdict is reused and the saved calls counted."""
    results = await _verdicts(ctx, program, tests, step=step, progression=progression, **where)
    for result in results:
        detail = result.detail
        if result.reused:
            where_from = f"progression {result.progression}, " if result.progression is not None else ""
            note = (
                f"verdict reused: this program was already checked against this test "
                f"({where_from}{result.step}); no model call"
            )
            detail = f"{note}. {detail}" if detail else note
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
                verdict="pass" if result.passed else "fail",
                detail=detail,
            )
        )
    return results
