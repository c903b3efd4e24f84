"""AgentCoder's programmer agent (Huang et al., 3.1): writes the program with a
four-step chain of thought, then refines it from the test executor's feedback.
In the programmer + test designer ablation (section 4.3) it reviews its program
against the designed tests instead, with nothing run."""

from __future__ import annotations

from dataclasses import dataclass

from ...agents.shown import io_tests_text, tests_text
from ...context import RunContext
from ...events import ProgramCandidate
from ...extract import extract_program
from ...iojudge import resolve_io_tests
from . import AGENTS

AGENT = "programmer"
PROMPTS = "agentcoder/programmer"


@dataclass
class Written:
    """A program and the conversation that wrote it (the single agent goes on
    in it to write its tests, Table 6)."""

    program: str
    system: str
    conversation: list[dict[str, str]]


def write_prompt(ctx: RunContext) -> tuple[str, str]:
    return ctx.prompts.get(PROMPTS, "generate").render(
        statement=ctx.problem.statement, tests=tests_text(ctx), entry_point=ctx.problem.entry_point
    )


#: Whose tests the test executor ran, as the refine prompt names them, by ``agents``
#: (Table 2's programmer + test executor runs "the tests provided in the prompt").
TESTS_FROM = {
    "programmer+test_executor": "the tests given with the problem",
    "single_agent": "the tests you wrote",
}


def refine_prompt(ctx: RunContext, program: str, feedback: str) -> tuple[str, str]:
    tests_from = TESTS_FROM.get(AGENTS.of(ctx.config), "the test designer's tests")
    return ctx.prompts.get(PROMPTS, "refine").render(
        statement=ctx.problem.statement, program=program, feedback=feedback, tests_from=tests_from
    )


def review_prompt(ctx: RunContext, program: str, tests: list[str]) -> tuple[str, str]:
    designed = "\n".join(tests)
    if ctx.problem.is_io:  # Input/Output blocks, as the test designer wrote them
        designed = io_tests_text(resolve_io_tests(ctx.problem, tests))
    return ctx.prompts.get(PROMPTS, "review").render(
        statement=ctx.problem.statement, program=program, designed=designed
    )


async def _ask(ctx: RunContext, rendered: tuple[str, str], *, step: str, epoch: int | None) -> Written:
    request = ctx.request(AGENT, rendered, progression=0, epoch=epoch)
    text = await ctx.call(request, step=step)
    program = extract_program(text, ctx.problem.entry_point)
    ctx.event(ProgramCandidate(step=step, agent=AGENT, progression=0, program=program))
    conversation = [*request.messages, {"role": "assistant", "content": text}]
    return Written(program, request.system, conversation)


async def write_program(ctx: RunContext, *, step: str) -> Written:
    return await _ask(ctx, write_prompt(ctx), step=step, epoch=None)


async def refine_program(ctx: RunContext, program: str, feedback: str, *, iteration: int, step: str) -> Written:
    return await _ask(ctx, refine_prompt(ctx, program, feedback), step=step, epoch=iteration)


async def review_program(ctx: RunContext, program: str, tests: list[str], *, iteration: int, step: str) -> Written:
    """Section 4.3's programmer + test designer: the program and the designed
    tests go back to the programmer, which decides whether the program needs
    refining to pass them; nothing is executed."""
    return await _ask(ctx, review_prompt(ctx, program, tests), step=step, epoch=iteration)
