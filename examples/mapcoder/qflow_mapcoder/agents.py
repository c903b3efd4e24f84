"""MapCoder's four agents, each one model call (the planning agent two: its
plan, then its confidence in it). Each renders its prompt from this package's
``prompts/`` (the ``io/`` files for a problem that reads stdin), asks through
the run's context (streamed, recorded, replayed) and reads the answer."""

from __future__ import annotations

from pathlib import Path

from qflow_tui.core.agents.shown import tests_text
from qflow_tui.core.context import RunContext
from qflow_tui.core.events import ProgramCandidate
from qflow_tui.core.extract import code_blocks, extract_program
from qflow_tui.core.prompts import PromptLibrary

from .parse import Recalled, Recollection, read_confidence, read_recollection

PROMPTS = PromptLibrary(Path(__file__).with_name("prompts"))

#: Said to the planning and coding agents when the retrieval agent's answer had no tutorial.
NO_ALGORITHM = "(the retrieval agent named no algorithm)"


def _prompts(ctx: RunContext) -> PromptLibrary:
    """This package's prompts for the run's kind of problem (``io``: its stdin/stdout prompts first)."""
    return PROMPTS.for_kind(ctx.problem.kind)


def _shown(ctx: RunContext) -> dict[str, str]:
    """What every agent is shown of the problem."""
    return {"statement": ctx.problem.statement, "tests": tests_text(ctx), "entry_point": ctx.problem.entry_point}


async def recall(ctx: RunContext, k: int, *, step: str) -> Recollection:
    """The retrieval agent: ``k`` relevant problems with their code and plans,
    and a tutorial on the algorithm the problem needs, in one answer."""
    rendered = _prompts(ctx).get("retrieval", "recall").render(k=str(k), **_shown(ctx))
    answer = await ctx.call(ctx.request("retrieval", rendered, progression=0), step=step)
    return read_recollection(answer, k)


async def make_plan(ctx: RunContext, recalled: Recalled, algorithm: str, *, step: str) -> str:
    """The planning agent's plan for the problem, learnt from one recalled problem."""
    rendered = (
        _prompts(ctx)
        .get("planning", "plan")
        .render(
            recalled=recalled.description,
            recalled_plan=recalled.plan or "(no plan was recalled with it)",
            algorithm=algorithm or NO_ALGORITHM,
            **_shown(ctx),
        )
    )
    answer = await ctx.call(ctx.request("planning", rendered, progression=0, epoch=recalled.number), step=step)
    return answer.strip()


async def rate_plan(ctx: RunContext, plan: str, *, number: int, step: str) -> int | None:
    """The planning agent's confidence, 0 to 100, that ``plan`` solves the
    problem (a second call, turn 2 of plan ``number``); None when its answer
    holds no number."""
    rendered = _prompts(ctx).get("planning", "confidence").render(plan=plan, **_shown(ctx))
    answer = await ctx.call(ctx.request("planning", rendered, progression=0, epoch=number, turn=2), step=step)
    return read_confidence(answer)


async def write_code(ctx: RunContext, plan: str, algorithm: str, *, tried: int, step: str) -> str:
    """The coding agent's program from ``plan`` (the ``tried``-th plan tried)."""
    rendered = _prompts(ctx).get("coding", "code").render(plan=plan, algorithm=algorithm or NO_ALGORITHM, **_shown(ctx))
    answer = await ctx.call(ctx.request("coding", rendered, progression=0, epoch=tried), step=step)
    program = extract_program(answer, ctx.problem.entry_point)
    ctx.event(ProgramCandidate(step=step, agent="coding", progression=0, program=program))
    return program


async def debug(
    ctx: RunContext, plan: str, program: str, feedback: str, algorithm: str, *, number: int, step: str
) -> tuple[str, str]:
    """The debugging agent's ``(plan, program)``: the plan it wrote again
    before its code (the plan it was given when it wrote none) and the
    program it fixed."""
    rendered = (
        _prompts(ctx)
        .get("debugging", "debug")
        .render(plan=plan, program=program, feedback=feedback, algorithm=algorithm or NO_ALGORITHM, **_shown(ctx))
    )
    answer = await ctx.call(ctx.request("debugging", rendered, progression=0, epoch=number), step=step)
    fixed = extract_program(answer, ctx.problem.entry_point)
    ctx.event(ProgramCandidate(step=step, agent="debugging", progression=0, program=fixed))
    return _plan_before_code(answer) or plan, fixed


def _plan_before_code(answer: str) -> str:
    """The debugging agent's changed plan: its words before its code block."""
    if not code_blocks(answer):
        return ""
    return answer[: answer.find("```")].strip()
