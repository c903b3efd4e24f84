"""AgentCoder (agentcoder.txt section 3), described: the spec the command line, the config file, the
compose form and replay read. Its agents and its run function (``.agent_coder``) are
imported only when a run asks for it."""

from __future__ import annotations

from ...config import RunConfig
from ..base import Agent, PlannedStep, WorkflowSpec
from ..settings import ITERATIONS, Setting

MAX_TESTS = Setting(
    "max_tests",
    "tests the test designer is asked for in its one call, and the most kept (the paper gives no number; "
    "50, as QualityFlow's Appendix A)",
    default=50,
    minimum=1,
    maximum=100_000,
)


def _agentcoder_plan(cfg: RunConfig) -> list[PlannedStep]:
    steps = [
        PlannedStep("programmer", "write", ("programmer",)),
        PlannedStep("test_designer", "design tests", ("test_designer",)),
        PlannedStep("test_executor:1", "run tests 1", ("test_executor",)),
    ]
    for i in range(1, ITERATIONS.of(cfg) + 1):
        steps.append(PlannedStep(f"programmer:{i}", f"refine {i}", ("programmer",)))
        steps.append(PlannedStep(f"test_executor:{i + 1}", f"run tests {i + 1}", ("test_executor",)))
    return steps


SPEC = WorkflowSpec(
    name="agentcoder",
    rank=1,
    summary="AgentCoder: programmer, test designer (basic, edge, large-scale tests), test executor; "
    "refine until the designed tests pass",
    agents=(
        Agent("programmer", "Programmer", "PR"),
        Agent("test_designer", "Test designer", "TD"),
        Agent("test_executor", "Test executor", "TE"),
    ),
    settings=(ITERATIONS, MAX_TESTS),
    plan=_agentcoder_plan,
    visible_tests=lambda cfg: "shown to the programmer only; its designed tests are executed in the sandbox",
    runner=f"{__name__}.agent_coder:run_agentcoder",
    tabs=lambda cfg: ("tests",),
    paper="agentcoder.txt section 3",
    stage_words={"programmer": "refine", "test_designer": "design tests", "test_executor": "run tests"},
    step_words={"programmer": "write"},
)
