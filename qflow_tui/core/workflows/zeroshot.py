"""Zero-shot synthesis: one program from the first generator prompt, unchecked.
The baseline column of the paper's tables."""

from __future__ import annotations

from ..agents.program_generator import generate_program
from ..config import RunConfig
from ..context import RunContext
from ..steps import step
from .base import Agent, PlannedStep, WorkflowResult, WorkflowSpec


async def run_zeroshot(ctx: RunContext) -> WorkflowResult:
    async with step(ctx, "program_generator", "program_generator", progression=0) as s:
        program = await generate_program(ctx, 0, step=s.name)
    return WorkflowResult(program, "unchecked", None, 0, program)


def plan(cfg: RunConfig) -> list[PlannedStep]:
    return [PlannedStep("program_generator", "generate", ("program_generator",))]


SPEC = WorkflowSpec(
    name="zeroshot",
    summary="Zero-shot: one program from one generator call, unchecked (the baseline)",
    agents=(Agent("program_generator", "Program generator", "PG"),),
    settings=(),
    plan=plan,
    visible_tests=lambda cfg: "shown to the generator only, never executed",
    run=run_zeroshot,
    paper="qualityflow.txt, the zero-shot baseline",
    stage_words={"program_generator": "generate"},
)
