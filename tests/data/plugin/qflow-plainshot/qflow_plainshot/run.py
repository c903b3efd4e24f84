"""Plain-shot's run: one step, one call, the program the answer holds."""

from pathlib import Path

from qflow_tui.core.agents.shown import tests_text
from qflow_tui.core.context import RunContext
from qflow_tui.core.events import ProgramCandidate
from qflow_tui.core.extract import extract_program
from qflow_tui.core.prompts import PromptLibrary
from qflow_tui.core.steps import step
from qflow_tui.core.workflows import WorkflowResult

from . import SHOW_TESTS

PROMPTS = PromptLibrary(Path(__file__).with_name("prompts"))


async def run_plainshot(ctx: RunContext) -> WorkflowResult:
    tests = tests_text(ctx) if SHOW_TESTS.of(ctx.config) else "(none shown)"
    rendered = PROMPTS.get("writer", "generate").render(
        statement=ctx.problem.statement, tests=tests, entry_point=ctx.problem.entry_point
    )
    async with step(ctx, "writer", "writer", progression=0) as s:
        answer = await ctx.call(ctx.request("writer", rendered, progression=0), step=s.name)
        program = extract_program(answer, ctx.problem.entry_point)
        ctx.event(ProgramCandidate(step=s.name, agent="writer", progression=0, program=program))
    return WorkflowResult(program, "unchecked", None, 0, program)
