"""Every workflow, described: name, summary, agents, settings, plan, use of the
visible tests, where it comes from, and where its implementation is
(:attr:`WorkflowSpec.runner`). The command line, the config file, the compose
form, the session browser and replay need only this; the implementations import
the agents, the run context and the events, which the app's launch need not pay
for before its first paint (about 60 ms here). Each implementation is imported
when a run first asks for it."""

from __future__ import annotations

from ..config import CHECKERS, RunConfig
from .base import Agent, PlannedStep, WorkflowSpec
from .settings import ITERATIONS, Setting

# -- QualityFlow (qualityflow.txt Algorithm 1, Appendix A) ---------------------------------

QUALITYFLOW_AGENTS = (
    Agent("program_generator", "Program generator", "PG"),
    Agent("test_designer", "Test designer", "TD"),
    Agent("test_quality_checker", "Test quality checker", "TQC"),
    Agent("self_debugger", "Self-debugger", "SD"),
    Agent("code_quality_checker", "Code quality checker", "CQC"),
    Agent("clarifier", "Clarifier", "CL"),
)

QUALITYFLOW_SETTINGS = (
    Setting(
        "checker",
        "Code Quality Checker: imagined (Imagined Execution, standard), python (run the visible tests, "
        "relaxed), yesno (the paper's baseline critic), none (no checks: every step runs)",
        choices=CHECKERS,
    ),
    Setting(
        "prompts",
        "program-generator prompt variants, run as parallel progressions (Diversified Prompting)",
        minimum=1,
        maximum=6,
        why="the program generator has 6 prompt variants",
    ),
    Setting(
        "epochs",
        "self-debug epochs per progression, each with its own debug prompt",
        minimum=0,
        maximum=3,
        why="the self-debugger has 3 prompt variants",
    ),
    Setting("clarify", "Problem Clarifier attempts per progression", minimum=0, maximum=10),
    Setting("tqc", "filter the synthesized tests with the Test Quality Checker"),
    Setting("revert", "revert to the first generated program when no check accepts"),
)

QUALITYFLOW_STAGE_WORDS = {
    "program_generator": "generate",
    "test_designer": "design tests",
    "test_quality_checker": "check tests (TQC)",
    "self_debug": "self-debug",
    "clarifier": "clarify",
    "revert": "revert",
}


def _qualityflow_plan(cfg: RunConfig) -> list[PlannedStep]:
    """Algorithm 1 with these settings: every stage a progression may reach."""
    check = ("code_quality_checker",) if cfg.checker != "none" else ()
    steps = [PlannedStep("program_generator", "generate", ("program_generator", *check), short="gen")]
    if cfg.epochs:
        steps.append(PlannedStep("test_designer", "design tests", ("test_designer",), shared=True))
        if cfg.tqc:
            steps.append(
                PlannedStep("test_quality_checker", "check tests (TQC)", ("test_quality_checker",), shared=True)
            )
    steps += [
        PlannedStep(f"self_debug:{e}", f"self-debug {e}", ("self_debugger", *check), short=f"debug {e}")
        for e in range(1, cfg.epochs + 1)
    ]
    steps += [
        PlannedStep(f"clarifier:{a}", f"clarify {a}", ("clarifier", "program_generator", *check))
        for a in range(1, cfg.clarify + 1)
    ]
    if cfg.checker != "none" and cfg.revert:
        steps.append(PlannedStep("revert", "revert", (), shared=True))
    return steps


def _qualityflow_visible_tests(cfg: RunConfig) -> str:
    return {
        "imagined": "not executed (imagined execution only)",
        "python": "executed in the sandbox",
        "yesno": "shown to a yes/no critic, not executed",
        "none": "shown to the generator only, never checked",
    }.get(cfg.checker, "")


def _qualityflow_progressions(cfg: RunConfig) -> int:
    return 1 if cfg.checker == "none" else cfg.prompts


QUALITYFLOW = WorkflowSpec(
    name="qualityflow",
    summary="QualityFlow: diversified generation, imagined-execution quality checks, "
    "self-debugging on filtered synthesized tests, clarification, revert",
    agents=QUALITYFLOW_AGENTS,
    settings=QUALITYFLOW_SETTINGS,
    plan=_qualityflow_plan,
    visible_tests=_qualityflow_visible_tests,
    executes_visible=lambda cfg: cfg.checker == "python",
    runner="qualityflow:run_qualityflow",
    progressions=_qualityflow_progressions,
    paper="qualityflow.txt Algorithm 1, Appendix A",
    stage_words=QUALITYFLOW_STAGE_WORDS,
)


# -- AgentCoder (agentcoder.txt section 3) ------------------------------------------------


def _agentcoder_plan(cfg: RunConfig) -> list[PlannedStep]:
    steps = [
        PlannedStep("programmer", "write", ("programmer",)),
        PlannedStep("test_designer", "design tests", ("test_designer",)),
        PlannedStep("test_executor:1", "run tests 1", ("test_executor",)),
    ]
    for i in range(1, cfg.iterations + 1):
        steps.append(PlannedStep(f"programmer:{i}", f"refine {i}", ("programmer",)))
        steps.append(PlannedStep(f"test_executor:{i + 1}", f"run tests {i + 1}", ("test_executor",)))
    return steps


AGENTCODER = WorkflowSpec(
    name="agentcoder",
    summary="AgentCoder: programmer, test designer (basic, edge, large-scale tests), test executor; "
    "refine until the designed tests pass",
    agents=(
        Agent("programmer", "Programmer", "PR"),
        Agent("test_designer", "Test designer", "TD"),
        Agent("test_executor", "Test executor", "TE"),
    ),
    settings=(ITERATIONS,),
    plan=_agentcoder_plan,
    visible_tests=lambda cfg: "shown to the programmer only; its designed tests are executed in the sandbox",
    runner="agentcoder:run_agentcoder",
    paper="agentcoder.txt section 3",
    stage_words={"programmer": "refine", "test_designer": "design tests", "test_executor": "run tests"},
    step_words={"programmer": "write"},
)


# -- CodeTree (codetree.txt section 3) ----------------------------------------------------

SEARCHES = ("critic", "bfs", "dfs")

CODETREE_AGENTS = (
    Agent("thinker", "Thinker", "TH"),
    Agent("solver", "Solver", "SO"),
    Agent("debugger", "Debugger", "DB"),
    Agent("critic", "Critic", "CR"),
)


def _codetree_plan(cfg: RunConfig) -> list[PlannedStep]:
    """The kinds of step the search takes; it repeats them per node, as the
    Critic (or the BFS/DFS order) and the budget decide."""
    critic = ("critic",) if cfg.search == "critic" else ()
    return [
        PlannedStep("thinker", "strategies", ("thinker",)),
        PlannedStep("solver", "implement a strategy", ("solver",)),
        *([PlannedStep("critic", "score / verify", critic)] if critic else []),
        PlannedStep("reflection", "reflect on a node", ("thinker",)),
        PlannedStep("debugger", "refine a node", ("debugger",)),
    ]


CODETREE = WorkflowSpec(
    name="codetree",
    summary="CodeTree: Thinker strategies, Solver programs, Critic-guided tree search with "
    "Thinker reflections and Debugger refinements, within a generation budget",
    agents=CODETREE_AGENTS,
    settings=(
        Setting("budget", "generation budget: the most programs the search writes", minimum=1, maximum=200),
        Setting("depth", "maximum search depth d (1: strategies only, no refinement)", minimum=1, maximum=10),
        Setting("width", "maximum search width w: strategies, and reflections per node", minimum=1, maximum=10),
        Setting(
            "search",
            "critic (the Critic scores nodes and decides refine/abort/accept), or the paper's "
            "ablations without the Critic: bfs, dfs",
            choices=SEARCHES,
        ),
    ),
    plan=_codetree_plan,
    visible_tests=lambda cfg: "executed in the sandbox",
    executes_visible=lambda cfg: True,
    runner="codetree:run_codetree",
    paper="codetree.txt section 3",
    stage_words={
        "thinker": "strategies",
        "solver": "solve",
        "critic": "critic",
        "reflection": "reflect",
        "debugger": "debug",
    },
)


# -- AdaCoder (adacoder.txt section IV) ---------------------------------------------------


def _adacoder_plan(cfg: RunConfig) -> list[PlannedStep]:
    steps = [PlannedStep("programming_assistant", "phase 1: generate", ("programming_assistant", "code_evaluator"))]
    for i in range(1, cfg.iterations + 2):
        steps.append(PlannedStep(f"debug_specialist:{i}", f"debug rules {i}", ("debug_specialist", "code_evaluator")))
        if i <= cfg.iterations:
            steps.append(PlannedStep(f"prompt_engineer:{i}", f"plan {i}", ("prompt_engineer",)))
            steps.append(
                PlannedStep(
                    f"programming_assistant:{i}", f"regenerate {i}", ("programming_assistant", "code_evaluator")
                )
            )
    return steps


ADACODER = WorkflowSpec(
    name="adacoder",
    summary="AdaCoder: generate without a plan; only on failure, rule-based debugging (no model call), "
    "then a plan from the error feedback and regeneration, up to t iterations",
    agents=(
        Agent("programming_assistant", "Programming assistant", "PA"),
        Agent("code_evaluator", "Code evaluator", "CE"),
        Agent("debug_specialist", "Debug specialist", "DS"),
        Agent("prompt_engineer", "Prompt engineer", "PE"),
    ),
    settings=(ITERATIONS,),
    plan=_adacoder_plan,
    visible_tests=lambda cfg: "executed in the sandbox",
    executes_visible=lambda cfg: True,
    runner="adacoder:run_adacoder",
    paper="adacoder.txt section IV, Algorithms 1-3",
    stage_words={
        "programming_assistant": "regenerate",
        "debug_specialist": "debug rules",
        "prompt_engineer": "plan",
    },
    step_words={"programming_assistant": "phase 1: generate"},
)


# -- Zero-shot, the baseline ------------------------------------------------------------


def _zeroshot_plan(cfg: RunConfig) -> list[PlannedStep]:
    return [PlannedStep("program_generator", "generate", ("program_generator",))]


ZEROSHOT = WorkflowSpec(
    name="zeroshot",
    summary="Zero-shot: one program from one generator call, unchecked (the baseline)",
    agents=(Agent("program_generator", "Program generator", "PG"),),
    settings=(),
    plan=_zeroshot_plan,
    visible_tests=lambda cfg: "shown to the generator only, never executed",
    runner="zeroshot:run_zeroshot",
    paper="qualityflow.txt, the zero-shot baseline",
    stage_words={"program_generator": "generate"},
)
