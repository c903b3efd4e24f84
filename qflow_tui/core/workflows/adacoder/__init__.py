"""AdaCoder (Zhu et al., arXiv:2504.04220, section IV), described: the spec the command line, the config file, the
compose form and replay read. Its agents and its run function (``.ada_coder``) are
imported only when a run asks for it."""

from __future__ import annotations

from ...config import RunConfig
from ..base import Agent, PlannedStep, WorkflowSpec
from ..settings import ITERATIONS, Setting

PER_TEST_FEEDBACK = Setting(
    "per_test_feedback",
    "the Code Evaluator reports every failing test with the value returned (not in the paper, "
    "whose Algorithm 2 reports the first error message only)",
    default=False,
)
PROMPT_ENGINEER = Setting(
    "prompt_engineer",
    "the Prompt Engineer plans each regeneration (Table XI ablation: off, the program is "
    "written again from the task alone)",
    default=True,
)
DEBUG_SPECIALIST = Setting(
    "debug_specialist",
    "the Debug Specialist's rules fix superficial errors (Table XI ablation: off, the Prompt "
    "Engineer plans from the program's own error)",
    default=True,
)

SETTINGS = (ITERATIONS, PER_TEST_FEEDBACK, PROMPT_ENGINEER, DEBUG_SPECIALIST)


def _adacoder_plan(cfg: RunConfig) -> list[PlannedStep]:
    with_debug, with_plan = DEBUG_SPECIALIST.of(cfg), PROMPT_ENGINEER.of(cfg)
    steps = [PlannedStep("programming_assistant", "phase 1: generate", ("programming_assistant", "code_evaluator"))]
    for i in range(1, ITERATIONS.of(cfg) + 2):
        if with_debug:
            steps.append(
                PlannedStep(f"debug_specialist:{i}", f"debug rules {i}", ("debug_specialist", "code_evaluator"))
            )
        if i <= ITERATIONS.of(cfg):
            if with_plan:
                steps.append(PlannedStep(f"prompt_engineer:{i}", f"plan {i}", ("prompt_engineer",)))
            steps.append(
                PlannedStep(
                    f"programming_assistant:{i}", f"regenerate {i}", ("programming_assistant", "code_evaluator")
                )
            )
    return steps


SPEC = WorkflowSpec(
    name="adacoder",
    rank=3,
    summary="AdaCoder: generate without a plan; only on failure, rule-based debugging (no model call), "
    "then a plan from the error feedback and regeneration, up to t iterations",
    agents=(
        Agent("programming_assistant", "Programming assistant", "PA"),
        Agent("code_evaluator", "Code evaluator", "CE"),
        Agent("debug_specialist", "Debug specialist", "DS"),
        Agent("prompt_engineer", "Prompt engineer", "PE"),
    ),
    settings=SETTINGS,
    plan=_adacoder_plan,
    visible_tests=lambda cfg: "executed in the sandbox",
    executes_visible=lambda cfg: True,
    runner=f"{__name__}.ada_coder:run_adacoder",
    tabs=lambda cfg: ("tests",),
    paper="Zhu et al., AdaCoder: An Adaptive Planning and Multi-Agent Framework for Function-Level Code "
    "Generation (arXiv:2504.04220), section IV, Algorithms 1-3",
    stage_words={
        "programming_assistant": "regenerate",
        "debug_specialist": "debug rules",
        "prompt_engineer": "plan",
    },
    step_words={"programming_assistant": "phase 1: generate"},
)
