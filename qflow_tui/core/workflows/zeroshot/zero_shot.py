"""Zero-shot synthesis: one program from the first generator prompt, unchecked.
The baseline column of the paper's tables."""

from __future__ import annotations

from ...context import RunContext
from ...steps import step
from ..base import WorkflowResult
from .program_generator import generate_program


async def run_zeroshot(ctx: RunContext) -> WorkflowResult:
    async with step(ctx, "program_generator", "program_generator", progression=0) as s:
        program = await generate_program(ctx, step=s.name)
    return WorkflowResult(program, "unchecked", None, 0, program)
