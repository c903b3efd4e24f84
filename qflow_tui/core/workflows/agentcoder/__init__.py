"""AgentCoder (Huang et al., arXiv:2312.13010, section 3), described: the spec the command line, the config file, the
compose form and replay read. Its agents and its run function (``.agent_coder``) are
imported only when a run asks for it."""

from __future__ import annotations

from ...config import RunConfig
from ..base import Agent, PlannedStep, WorkflowSpec
from ..settings import ITERATIONS, Setting

MAX_TESTS = Setting(
    "max_tests",
    "tests the test designer is asked for in each call, and the most kept (AgentCoder gives no number; "
    "50, as QualityFlow's Appendix A)",
    default=50,
    minimum=1,
    maximum=100_000,
)
REGENERATE_TESTS = Setting(
    "regenerate_tests",
    "the test designer designs a fresh set of tests for every refinement, from the requirements and its last "
    "tests' failures, never the program (section 5 feeds the errors to the programmer and the test designer; "
    "its authors' code redesigns each round); off: one set, designed once",
    default=True,
    before=False,
)

#: The agent combinations of AgentCoder's Table 2, and Table 6's single agent.
AGENT_COMBINATIONS = (
    "all",
    "programmer",
    "programmer+test_designer",
    "programmer+test_executor",
    "single_agent",
)
AGENTS = Setting(
    "agents",
    "which agents work (Tables 2 and 6): all (AgentCoder); programmer (the programmer alone); "
    "programmer+test_designer (the programmer reviews its program against the designed tests, nothing runs); "
    "programmer+test_executor (the problem's visible tests run, no test designer); "
    "single_agent (one conversation writes the program, then its tests)",
    default="all",
    choices=AGENT_COMBINATIONS,
    choice_words={
        "all": "AgentCoder",
        "programmer": "Table 2",
        "programmer+test_designer": "Table 2",
        "programmer+test_executor": "Table 2",
        "single_agent": "Table 6",
    },
)


def _visible_tests(cfg: RunConfig) -> str:
    if AGENTS.of(cfg) == "programmer+test_executor":
        return "shown to the programmer and executed in the sandbox (no test designer)"
    if AGENTS.of(cfg) == "programmer":
        return "shown to the programmer only"
    if AGENTS.of(cfg) == "programmer+test_designer":
        return "shown to the programmer only; its designed tests are read by the programmer, never run"
    return "shown to the programmer only; its designed tests are executed in the sandbox"


def _agentcoder_plan(cfg: RunConfig) -> list[PlannedStep]:
    agents = AGENTS.of(cfg)
    steps = [PlannedStep("programmer", "write", ("programmer",))]
    if agents == "programmer":
        return steps
    if agents == "programmer+test_designer":
        steps.append(PlannedStep("test_designer", "design tests", ("test_designer",)))
        steps.append(PlannedStep("programmer:1", "review 1", ("programmer",)))
        return steps
    designer = "programmer" if agents == "single_agent" else "test_designer"
    if agents != "programmer+test_executor":
        steps.append(PlannedStep("test_designer", "design tests", (designer,)))
    steps.append(PlannedStep("test_executor:1", "run tests 1", ("test_executor",)))
    redesign = REGENERATE_TESTS.of(cfg) and agents != "programmer+test_executor"
    for i in range(1, ITERATIONS.of(cfg) + 1):
        steps.append(PlannedStep(f"programmer:{i}", f"refine {i}", ("programmer",)))
        if redesign:
            steps.append(PlannedStep(f"test_designer:{i + 1}", f"design tests {i + 1}", (designer,)))
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
    settings=(ITERATIONS, MAX_TESTS, REGENERATE_TESTS, AGENTS),
    plan=_agentcoder_plan,
    visible_tests=_visible_tests,
    executes_visible=lambda cfg: AGENTS.of(cfg) == "programmer+test_executor",
    runner=f"{__name__}.agent_coder:run_agentcoder",
    tabs=lambda cfg: ("tests",),
    paper="Huang et al., AgentCoder: Multiagent-Code Generation with Iterative Testing and Optimisation "
    "(arXiv:2312.13010), section 3",
    stage_words={"programmer": "refine", "test_designer": "design tests", "test_executor": "run tests"},
    step_words={"programmer": "write"},
)
