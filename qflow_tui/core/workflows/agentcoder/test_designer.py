"""Test Designer (AgentCoder, Huang et al. 3.2): basic, edge and large-scale
tests from the requirements alone, in one call. With ``regenerate_tests`` it
designs a fresh set for every refinement (section 5; its authors' code calls
the test designer again each round, from the requirements alone). In the
single-agent ablation (Table 6) the programmer designs them, in the same
conversation that wrote the program.

For a stdin/stdout problem the same three groups are asked for as
Input/Output blocks (prompts/agentcoder/test_designer/io/), read as I/O tests
whose labels read back as their pairs, so the test executor runs them through
the I/O judge."""

from __future__ import annotations

from ...agents.shown import tests_text
from ...asserts import find_call
from ...context import RunContext
from ...events import Notice, TestsDesigned
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
        from ...agents.designed_io import designed_io_pairs, new_io_labels

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
    from ...problem import ProblemError

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
    ctx: RunContext, *, step: str = "test_designer", round: int = 1, rounds: int = 1
) -> list[str]:
    """AgentCoder's test designer (Huang et al., 3.2): one call for basic, edge and
    large-scale tests, from the requirements alone. ``round`` numbers a
    redesign (``regenerate_tests``): each is a fresh set, not added to the last."""
    rendered = agentcoder_test_prompt(ctx)
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
