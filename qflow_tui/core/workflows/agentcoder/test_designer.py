"""Test Designer (AgentCoder, Huang et al. 3.2): basic, edge and large-scale
tests from the requirements alone, in one call. With ``regenerate_tests`` it
designs a fresh set for every refinement (its authors' code calls the test
designer again each round, from the requirements alone). Section 5 has the
test executor feed its error messages "into the programmer and test designer
agent": the redesign is shown its last tests and which of them failed, and
how, never the program, so a redesign differs from the last set even at
temperature 0 (the authors' code re-samples the same prompt at the
provider's default temperature). In the
single-agent ablation (Table 6) the programmer designs them, in the same
conversation that wrote the program.

For a stdin/stdout problem the same three groups are asked for as
Input/Output blocks (prompts/agentcoder/test_designer/io/), read as I/O tests
whose labels read back as their pairs, so the test executor runs them through
the I/O judge."""

from __future__ import annotations

from ...agents.designed_io import designed_io_pairs, new_io_labels
from ...agents.shown import io_tests_text, tests_text
from ...agents.test_executor import execution_feedback
from ...asserts import find_call
from ...context import RunContext
from ...events import Notice, TestsDesigned
from ...extract import extract_asserts, normalize_assert
from ...iojudge import resolve_io_tests
from ...problem import ProblemError
from ...sandbox.report import SandboxReport
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


def designer_feedback(ctx: RunContext, report: SandboxReport) -> str:
    """The test executor's feedback as the test designer gets it: each failing
    test with the value returned or the error raised, never the program (a
    load error, which may quote the program's lines, is named, not shown)."""
    if report.load_error is not None:
        return "The program failed to load (a syntax or import error), so none of the tests could judge it."
    return execution_feedback(report, ctx.problem)


def redesign_prompt(ctx: RunContext, designed: list[str], failures: str) -> tuple[str, str]:
    """A redesign round: the requirements, the last designed tests and the
    executor's failures on them (:func:`designer_feedback`), no program."""
    shown = "\n".join(designed)
    if ctx.problem.is_io:
        shown = io_tests_text(resolve_io_tests(ctx.problem, designed))
    return ctx.prompts.get(PROMPTS, "redesign").render(
        statement=ctx.problem.statement,
        tests=tests_text(ctx),
        entry_point=ctx.problem.entry_point,
        count=str(MAX_TESTS.of(ctx.config)),
        designed=shown,
        failures=failures,
    )


def own_tests_prompt(ctx: RunContext) -> tuple[str, str]:
    """The single agent's second turn: tests for the program it has just written."""
    return ctx.prompts.get("agentcoder/programmer", "own_tests").render(
        entry_point=ctx.problem.entry_point, count=str(MAX_TESTS.of(ctx.config))
    )


def keep_tests(ctx: RunContext, text: str) -> list[str]:
    """The designed asserts that call the entry point, not the visible tests
    again, each once, at most ``max_tests``. For an I/O problem: the designed
    Input/Output pairs, labelled whole, not the visible ones, each once
    (unreadable blocks: :class:`ProblemError`)."""
    if ctx.problem.is_io:
        visible = {(t.input or "", t.output or "") for t in ctx.problem.tests}
        return new_io_labels(designed_io_pairs(text), visible, MAX_TESTS.of(ctx.config))
    entry = ctx.problem.entry_point
    seen = {normalize_assert(t) for t in ctx.problem.test_sources}
    tests: list[str] = []
    for t in extract_asserts(text):
        key = normalize_assert(t)
        if key in seen or find_call(t, entry) is None:
            continue
        seen.add(key)
        tests.append(t)
    return tests[: MAX_TESTS.of(ctx.config)]


def _kept(ctx: RunContext, text: str, agent: str, *, step: str) -> list[str]:
    """:func:`keep_tests`; an I/O answer with no readable Input/Output block
    gives no tests and a warning that says why."""
    try:
        return keep_tests(ctx, text)
    except ProblemError as exc:
        ctx.event(
            Notice(
                step=step,
                agent=agent,
                level="warning",
                message=f"no Input/Output tests could be read from the designed tests ({exc})",
                cause=str(exc),
            )
        )
        return []


def _designed(ctx: RunContext, agent: str, tests: list[str], *, step: str, round: int, rounds: int) -> None:
    most = MAX_TESTS.of(ctx.config)
    ctx.event(
        TestsDesigned(step=step, agent=agent, round=round, tests=tests, total=len(tests), rounds=rounds, most=most)
    )


async def design_basic_edge_large_tests(
    ctx: RunContext,
    *,
    step: str = "test_designer",
    round: int = 1,
    rounds: int = 1,
    last: tuple[list[str], SandboxReport] | None = None,
) -> list[str]:
    """AgentCoder's test designer (Huang et al., 3.2): one call for basic, edge and
    large-scale tests, from the requirements alone. ``round`` numbers a
    redesign (``regenerate_tests``): each is a fresh set, not added to the last,
    written from ``last`` (the last tests and the executor's report on them)."""
    if last is None:
        rendered = agentcoder_test_prompt(ctx)
    else:
        rendered = redesign_prompt(ctx, last[0], designer_feedback(ctx, last[1]))
    request = ctx.request(AGENT, rendered, epoch=round if round > 1 else None)
    text = await ctx.call(request, step=step)
    tests = _kept(ctx, text, AGENT, step=step)
    _designed(ctx, AGENT, tests, step=step, round=round, rounds=rounds)
    return tests


async def design_own_tests(
    ctx: RunContext, conversation: list[dict[str, str]], system: str, *, step: str, round: int = 1, rounds: int = 1
) -> list[str]:
    """Table 6's single agent: the programmer, in the conversation that wrote
    the program (``conversation``: its prompt and its answer), then writes the tests."""
    _, ask = own_tests_prompt(ctx)
    messages = [*conversation, {"role": "user", "content": ask}]
    request = ctx.request("programmer", messages=messages, system=system, progression=0, epoch=round)
    text = await ctx.call(request, step=step)
    tests = _kept(ctx, text, "programmer", step=step)
    _designed(ctx, "programmer", tests, step=step, round=round, rounds=rounds)
    return tests
