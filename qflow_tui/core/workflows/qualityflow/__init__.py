"""QualityFlow (qualityflow.txt Algorithm 1, Appendix A), described: the spec the command line, the config file, the
compose form and replay read. Its agents and its run function (``.run``) are
imported only when a run asks for it."""

from __future__ import annotations

from ...config import CHECKERS, RunConfig
from ..base import Agent, Edit, PlannedStep, Steerable, WorkflowSpec
from ..settings import Setting

AGENTS = (
    Agent("program_generator", "Program generator", "PG"),
    Agent("test_designer", "Test designer", "TD"),
    Agent("test_quality_checker", "Test quality checker", "TQC"),
    Agent("self_debugger", "Self-debugger", "SD"),
    Agent("code_quality_checker", "Code quality checker", "CQC"),
    Agent("clarifier", "Clarifier", "CL"),
)

SETTINGS = (
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
    Setting(
        "tests_may_be_wrong",
        "tell the Self-Debugger the synthesized tests may be wrong and to follow the statement "
        "(not in the paper, whose Test Quality Checker does that job)",
        default=False,
    ),
)

STAGE_WORDS = {
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


def _qualityflow_edits(cfg: RunConfig) -> frozenset[Edit]:
    """Programs and verdicts at any program step; the synthesized tests when
    self-debugging runs on them; the statement when the clarifier reads it."""
    edits: set[Edit] = {"program", "verdict"}
    if cfg.epochs:
        edits.add("tests")
    if cfg.clarify:
        edits.add("statement")
    return frozenset(edits)


def _qualityflow_reverts(cfg: RunConfig) -> bool:
    return cfg.revert and cfg.checker != "none"


def _qualityflow_progressions(cfg: RunConfig) -> int:
    return 1 if cfg.checker == "none" else cfg.prompts


SPEC = WorkflowSpec(
    name="qualityflow",
    rank=0,
    summary="QualityFlow: diversified generation, imagined-execution quality checks, "
    "self-debugging on filtered synthesized tests, clarification, revert",
    agents=AGENTS,
    settings=SETTINGS,
    plan=_qualityflow_plan,
    visible_tests=_qualityflow_visible_tests,
    executes_visible=lambda cfg: cfg.checker == "python",
    runner=f"{__name__}.run:run_qualityflow",
    progressions=_qualityflow_progressions,
    paper="qualityflow.txt Algorithm 1, Appendix A",
    stage_words=STAGE_WORDS,
    steering=Steerable(
        edits=_qualityflow_edits,
        program_stages=("program_generator", "self_debug", "clarifier"),
        first_stage="program_generator",
    ),
    checker="code_quality_checker",
    debugger="self_debugger",
    decided=("code_quality_checker", "program_generator", "clarifier"),
    reverts=_qualityflow_reverts,
)
