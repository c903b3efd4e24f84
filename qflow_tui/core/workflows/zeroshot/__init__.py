"""Zero-shot, the baseline, described: the spec the command line, the config file, the
compose form and replay read. Its agents and its run function (``.zero_shot``) are
imported only when a run asks for it."""

from __future__ import annotations

from ...config import RunConfig
from ..base import Agent, PlannedStep, WorkflowSpec
from ..settings import Setting

#: The papers whose zero-shot baseline the workflow can be, each with its own prompt
#: (``prompts/zeroshot/program_generator/<file>.txt``).
BASELINES = ("qualityflow", "agentcoder", "codetree", "adacoder")
BASELINE_PROMPTS = {"qualityflow": "direct", "agentcoder": "agentcoder", "codetree": "codetree", "adacoder": "adacoder"}
BASELINE = Setting(
    "baseline",
    "whose zero-shot baseline: qualityflow (Zero-shot, its first generator prompt); agentcoder (zero-shot "
    "prompting: the task as the dataset states it); codetree (Direct: the code directly from the problem); "
    "adacoder (Direct: the task description alone, MapCoder's Direct prompt)",
    default="qualityflow",
    choices=BASELINES,
    choice_words={
        "qualityflow": "Zero-shot",
        "agentcoder": "zero-shot prompting",
        "codetree": "Direct",
        "adacoder": "Direct",
    },
)


def _zeroshot_plan(cfg: RunConfig) -> list[PlannedStep]:
    return [PlannedStep("program_generator", "generate", ("program_generator",))]


SPEC = WorkflowSpec(
    name="zeroshot",
    rank=4,
    summary="Zero-shot: one program from one generator call, unchecked (the baseline)",
    agents=(Agent("program_generator", "Program generator", "PG"),),
    settings=(BASELINE,),
    plan=_zeroshot_plan,
    visible_tests=lambda cfg: (
        "never shown, never executed (the task description alone)"
        if BASELINE.of(cfg) == "adacoder"
        else "shown to the generator only, never executed"
    ),
    runner=f"{__name__}.zero_shot:run_zeroshot",
    paper="the papers' zero-shot baselines (setting baseline): Hu et al., QualityFlow (arXiv:2501.17167), "
    "Zero-shot; Huang et al., AgentCoder (arXiv:2312.13010), zero-shot prompting; Li et al., CodeTree "
    "(arXiv:2411.04329), Direct; Zhu et al., AdaCoder (arXiv:2504.04220), Direct",
    stage_words={"program_generator": "generate"},
)
