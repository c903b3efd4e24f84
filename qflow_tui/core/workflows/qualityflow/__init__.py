"""QualityFlow (Hu et al., arXiv:2501.17167: Algorithm 1, Appendix A), described: the
spec the command line, the config file, the compose form and replay read. Its agents
and its run function (``.quality_flow``) are imported only when a run asks for it."""

from __future__ import annotations

from ...config import RunConfig
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

#: The Code Quality Checker's modes (section 3.3; ``yesno`` is section 4's baseline critic).
CHECKERS: tuple[str, ...] = ("imagined", "python", "yesno", "none")

CHECKER = Setting(
    "checker",
    "Code Quality Checker: imagined (Imagined Execution, standard), python (run the visible tests, "
    "relaxed), yesno (the paper's baseline critic), none (no checks: every step runs, in progression 0 "
    "only, whose last program is the answer)",
    default="imagined",
    choices=CHECKERS,
    choice_words={"imagined": "standard", "python": "relaxed", "yesno": "baseline", "none": "ablation"},
)
PROMPTS = Setting(
    "prompts",
    "program-generator prompt variants, run as parallel progressions (Diversified Prompting)",
    default=6,
    minimum=1,
    maximum=6,
    why="the program generator has 6 prompt variants",
)
EPOCHS = Setting(
    "epochs",
    "self-debug epochs per progression, each with its own debug prompt",
    default=3,
    minimum=0,
    maximum=3,
    why="the self-debugger has 3 prompt variants",
)
CLARIFY = Setting("clarify", "Problem Clarifier attempts per progression", default=3, minimum=0, maximum=10)
TQC = Setting(
    "tqc", "filter the synthesized tests with the Test Quality Checker", default=True, label="Test Quality Checker"
)
REVERT = Setting(
    "revert", "revert to the first generated program when no check accepts (Appendix D ablation: off)", default=True
)
TEST_ROUNDS = Setting(
    "test_rounds",
    "Test Designer rounds (Appendix A: 5); each round is shown the tests designed so far and asked for new ones, "
    "unless independent_test_rounds",
    default=5,
    minimum=1,
    maximum=1000,
    label="Rounds",
)
INDEPENDENT_TEST_ROUNDS = Setting(
    "independent_test_rounds",
    "the Test Designer's rounds are the same query sent at once, told nothing of each other (Appendix A's "
    "reading: 5 queries of 10 at temperature 0.1); off (the default): each round sees the earlier rounds' "
    "tests and asks for others, so the rounds run in sequence and repeat fewer tests",
    default=False,
    label="Independent test rounds",
)
TESTS_PER_ROUND = Setting(
    "tests_per_round",
    "tests asked for in each Test Designer round (Appendix A: 10)",
    default=10,
    minimum=1,
    maximum=1000,
    label="Per round",
)
MAX_TESTS = Setting(
    "max_tests", "the most synthesized tests a run keeps (Appendix A: 50)", default=50, minimum=1, maximum=100_000
)
TEST_DESIGNER_TEMPERATURE = Setting(
    "test_designer_temperature",
    "sampling temperature of the Test Designer (Appendix A: 0.1), so that its rounds differ",
    default=0.1,
    minimum=0.0,
    maximum=2.0,
    label="Test designer temperature",
)
TESTS_MAY_BE_WRONG = Setting(
    "tests_may_be_wrong",
    "tell the Self-Debugger the synthesized tests may be wrong and to follow the statement "
    "(not in the paper, whose Test Quality Checker does that job)",
    default=False,
)
DIVERSIFIED_PROMPTING = Setting(
    "diversified_prompting",
    "a different prompt for each progression, self-debug epoch and clarifier attempt (Table 12 "
    "ablation: off, one prompt for every agent and one progression)",
    default=True,
)

SETTINGS = (
    CHECKER,
    PROMPTS,
    EPOCHS,
    CLARIFY,
    TQC,
    REVERT,
    TEST_ROUNDS,
    TESTS_PER_ROUND,
    MAX_TESTS,
    TEST_DESIGNER_TEMPERATURE,
    INDEPENDENT_TEST_ROUNDS,
    TESTS_MAY_BE_WRONG,
    DIVERSIFIED_PROMPTING,
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
    check = ("code_quality_checker",) if CHECKER.of(cfg) != "none" else ()
    epochs, clarify = EPOCHS.of(cfg), CLARIFY.of(cfg)
    steps = [PlannedStep("program_generator", "generate", ("program_generator", *check), short="gen")]
    if epochs:
        steps.append(PlannedStep("test_designer", "design tests", ("test_designer",), shared=True))
        if TQC.of(cfg):
            steps.append(
                PlannedStep("test_quality_checker", "check tests (TQC)", ("test_quality_checker",), shared=True)
            )
    steps += [
        PlannedStep(f"self_debug:{e}", f"self-debug {e}", ("self_debugger", *check), short=f"debug {e}")
        for e in range(1, epochs + 1)
    ]
    steps += [
        PlannedStep(f"clarifier:{a}", f"clarify {a}", ("clarifier", "program_generator", *check))
        for a in range(1, clarify + 1)
    ]
    if _qualityflow_reverts(cfg):
        steps.append(PlannedStep("revert", "revert", (), shared=True))
    return steps


def _qualityflow_visible_tests(cfg: RunConfig) -> str:
    return {
        "imagined": "not executed (imagined execution only)",
        "python": "executed in the sandbox",
        "yesno": "shown to a yes/no critic, not executed",
        "none": "shown to the generator only, never checked",
    }.get(CHECKER.of(cfg), "")


def _qualityflow_edits(cfg: RunConfig) -> frozenset[Edit]:
    """Programs and verdicts at any program step; the synthesized tests when
    self-debugging runs on them; the statement when the clarifier reads it."""
    edits: set[Edit] = {"program", "verdict"}
    if EPOCHS.of(cfg):
        edits.add("tests")
    if CLARIFY.of(cfg):
        edits.add("statement")
    return frozenset(edits)


def _qualityflow_reverts(cfg: RunConfig) -> bool:
    return REVERT.of(cfg) and CHECKER.of(cfg) != "none"


def diversified(cfg: RunConfig) -> bool:
    """Diversified Prompting (section 3.6) is on; off is Table 12's ablation."""
    return DIVERSIFIED_PROMPTING.of(cfg)


def variant_index(cfg: RunConfig, n: int, count: int) -> int:
    """Which of ``count`` prompt variants the ``n``-th progression, epoch or attempt
    (from 0) uses: its own with Diversified Prompting, else the first for all."""
    return n % count if diversified(cfg) else 0


def _qualityflow_progressions(cfg: RunConfig) -> int:
    # checker=none: nothing is ever accepted, so the rule reports progression 0's
    # last program. Without Diversified Prompting every progression would send the
    # same prompts: one is the whole ablation.
    return 1 if CHECKER.of(cfg) == "none" or not diversified(cfg) else PROMPTS.of(cfg)


def _qualityflow_setting_notes(cfg: RunConfig) -> tuple[str, ...]:
    if CHECKER.of(cfg) == "none" and PROMPTS.of(cfg) > 1:
        return (
            f"checker=none runs progression 0 only, not {PROMPTS.of(cfg)}: with no check nothing is accepted, "
            "so the answer is progression 0's last program and the other progressions' would be thrown away",
        )
    if not diversified(cfg) and PROMPTS.of(cfg) > 1:
        return ("without Diversified Prompting one progression runs: the others would send the same prompts",)
    return ()


SPEC = WorkflowSpec(
    name="qualityflow",
    rank=0,
    summary="QualityFlow: diversified generation, imagined-execution quality checks, "
    "self-debugging on filtered synthesized tests, clarification, revert",
    agents=AGENTS,
    settings=SETTINGS,
    plan=_qualityflow_plan,
    visible_tests=_qualityflow_visible_tests,
    executes_visible=lambda cfg: CHECKER.of(cfg) == "python",
    runner=f"{__name__}.quality_flow:run_qualityflow",
    progressions=_qualityflow_progressions,
    paper="Hu et al., QualityFlow: An Agentic Workflow for Program Synthesis Controlled by LLM Quality Checks "
    "(arXiv:2501.17167), Algorithm 1 and Appendix A",
    stage_words=STAGE_WORDS,
    steering=Steerable(
        edits=_qualityflow_edits,
        program_stages=("program_generator", "self_debug", "clarifier"),
        first_stage="program_generator",
        statement_readers="the clarifier and the clarified generator (the other agents keep the original)",
    ),
    checker="code_quality_checker",
    test_judge="test_quality_checker",
    tabs=lambda cfg: ("imagined", "tests") if CHECKER.of(cfg) == "imagined" else ("tests",),
    debugger="self_debugger",
    decided=("code_quality_checker", "program_generator", "clarifier"),
    reverts=_qualityflow_reverts,
    pass_at_last=5,
    setting_notes=_qualityflow_setting_notes,
)
