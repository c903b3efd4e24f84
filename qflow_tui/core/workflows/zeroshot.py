"""Zero-shot synthesis: one program from the first generator prompt, unchecked.
The baseline column of the paper's tables."""

from __future__ import annotations

from ..agents.program_generator import generate_program
from ..context import RunContext
from .base import WorkflowResult


async def run_zeroshot(ctx: RunContext) -> WorkflowResult:
    step = "program_generator"
    await ctx.checkpoint(step)
    ctx.step_started(step, "program_generator", 0)
    program = await generate_program(ctx, 0, step=step)
    ctx.step_finished(step, "done", "program_generator", 0)
    return WorkflowResult(program, "unchecked", None, 0, program)
