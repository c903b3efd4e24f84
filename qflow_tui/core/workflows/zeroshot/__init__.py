"""Zero-shot, the baseline, described: the spec the command line, the config file, the
compose form and replay read. Its agents and its run function (``.zero_shot``) are
imported only when a run asks for it."""

from __future__ import annotations

from ...config import RunConfig
from ..base import Agent, PlannedStep, WorkflowSpec


def _zeroshot_plan(cfg: RunConfig) -> list[PlannedStep]:
    return [PlannedStep("program_generator", "generate", ("program_generator",))]


SPEC = WorkflowSpec(
    name="zeroshot",
    rank=4,
    summary="Zero-shot: one program from one generator call, unchecked (the baseline)",
    agents=(Agent("program_generator", "Program generator", "PG"),),
    settings=(),
    plan=_zeroshot_plan,
    visible_tests=lambda cfg: "shown to the generator only, never executed",
    runner=f"{__name__}.zero_shot:run_zeroshot",
    paper="Hu et al., QualityFlow: An Agentic Workflow for Program Synthesis Controlled by LLM Quality Checks "
    "(arXiv:2501.17167), the zero-shot baseline",
    stage_words={"program_generator": "generate"},
)
