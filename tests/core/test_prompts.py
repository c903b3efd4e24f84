"""Every prompt, rendered by the agents' own prompt functions for an MBPP and a
HumanEval problem under every setting that changes a prompt, is checked for the
faults a reader of the rendered text would see: broken triple quotes, a test
with punctuation glued to it, an unfilled placeholder, a statement introduced
as something it is not, and claims that contradict the run's settings."""

from __future__ import annotations

import itertools
import re

import pytest

from qflow_tui.core.asserts import question_form
from qflow_tui.core.bench.datasets import load_bench_problem
from qflow_tui.core.config import make_config
from qflow_tui.core.workflows.adacoder.programming_assistant import assistant_prompt
from qflow_tui.core.workflows.adacoder.prompt_engineer import plan_prompt
from qflow_tui.core.workflows.agentcoder.programmer import refine_prompt, review_prompt, write_prompt
from qflow_tui.core.workflows.agentcoder.test_designer import agentcoder_test_prompt, own_tests_prompt, redesign_prompt
from qflow_tui.core.workflows.codetree.critic import critic_prompt, output_scoring_prompt, solution_scoring_prompt
from qflow_tui.core.workflows.codetree.debugger import debugger_prompt
from qflow_tui.core.workflows.codetree.solver import solver_prompt
from qflow_tui.core.workflows.codetree.thinker import reflect_prompt, strategies_prompt
from qflow_tui.core.workflows.qualityflow import CHECKERS
from qflow_tui.core.workflows.qualityflow.clarifier import clarifier_prompt
from qflow_tui.core.workflows.qualityflow.code_quality_checker import yesno_prompt
from qflow_tui.core.workflows.qualityflow.imagined import cqc_turn1_prompt, cqc_turn2_prompt
from qflow_tui.core.workflows.qualityflow.program_generator import clarified_prompt, generator_prompt
from qflow_tui.core.workflows.qualityflow.self_debugger import debug_prompt
from qflow_tui.core.workflows.qualityflow.test_designer import design_prompt
from qflow_tui.core.workflows.qualityflow.test_quality_checker import tqc_prompt
from qflow_tui.core.workflows.zeroshot import BASELINES
from qflow_tui.core.workflows.zeroshot.program_generator import baseline_prompt
from tests.helpers import make_ctx

PROBLEMS = ["mbpp/11", "mbpp/367", "humaneval/0"]
SETTINGS = [
    {"checker": checker, "epochs": epochs, "tqc": tqc}
    for checker, epochs, tqc in itertools.product(CHECKERS, (0, 3), (True, False))
] + [
    {"checker": "imagined", "epochs": 3, "tqc": True, "tests_may_be_wrong": True},
    {"checker": "imagined", "epochs": 3, "tqc": True, "diversified_prompting": False},
]
PROGRAM = "def marker_program_0451(x):\n    return x\n"
FEEDBACK_OF = "{test}\n    -> failed: the function returned 41\n(0 of 1 tests pass)"


def synthesized_for(problem) -> list[str]:
    """Two synthesized tests in the problem's own style: its visible tests with a new input value."""
    first = problem.test_sources[0]
    return [first.replace("(", "( ", 1), first.replace("(", "(  ", 1)]


def rendered_prompts(problem_id: str, settings: dict):
    """(name, (system, user), inserted values) for every prompt a run with these
    settings can send, as the agents render them."""
    problem = load_bench_problem(problem_id).problem
    ctx, _ = make_ctx(problem, lambda r: "", make_config({"model": "script/x", **settings}))
    test = problem.test_sources[0]
    synthesized = synthesized_for(problem)
    values = [problem.statement, PROGRAM, *problem.test_sources, *synthesized, problem.setup]
    out = []
    for p in range(6):
        out.append((f"program_generator {p}", generator_prompt(ctx, p)))
    for attempt in (1, 2, 3):
        out.append((f"clarified generator {attempt}", clarified_prompt(ctx, attempt, "Clarified: do it.", PROGRAM)))
    for epoch in (1, 2, 3):
        out.append((f"self_debugger {epoch}", debug_prompt(ctx, epoch, PROGRAM, FEEDBACK_OF.format(test=test))))
    out.append(("test_designer", design_prompt(ctx)))
    out.append(("test_designer round 2", design_prompt(ctx, synthesized)))
    out.append(("agentcoder test_designer", agentcoder_test_prompt(ctx)))
    failures = FEEDBACK_OF.format(test=synthesized[0])
    out.append(("agentcoder test_designer redesign", redesign_prompt(ctx, synthesized, failures)))
    out.append(("test_quality_checker", tqc_prompt(ctx, synthesized[0])))
    out.append(("code_quality_checker turn 1", cqc_turn1_prompt(ctx, PROGRAM, test)))
    out.append(("code_quality_checker turn 2", cqc_turn2_prompt(ctx, question_form(test, problem.entry_point))))
    out.append(("yesno_checker", yesno_prompt(ctx, PROGRAM)))
    out.append(("programmer", write_prompt(ctx)))
    out.append(("programmer refine", refine_prompt(ctx, PROGRAM, FEEDBACK_OF.format(test=test))))
    out.append(("programmer review", review_prompt(ctx, PROGRAM, synthesized)))
    out.append(("programmer own tests", own_tests_prompt(ctx)))
    # The peer workflows' agents (CodeTree, AdaCoder).
    feedback = FEEDBACK_OF.format(test=test)
    out.append(("thinker strategies", strategies_prompt(ctx, None)))
    out.append(("thinker strategies bounded", strategies_prompt(ctx, 3)))
    out.append(("thinker reflect", reflect_prompt(ctx, "Use a loop.", PROGRAM, feedback, None)))
    out.append(("thinker reflect bounded", reflect_prompt(ctx, "Use a loop.", PROGRAM, feedback, 3)))
    out.append(("solver", solver_prompt(ctx, "Use a loop.")))
    out.append(("debugger", debugger_prompt(ctx, PROGRAM, feedback, "Handle zero.", "Use a loop.")))
    for verify in (False, True):
        out.append((f"critic verify={verify}", critic_prompt(ctx, "Use a loop.", PROGRAM, feedback, verify=verify)))
    out.append(("critic test scoring", output_scoring_prompt(ctx, PROGRAM, feedback)))
    out.append(("critic solution scoring", solution_scoring_prompt(ctx, "Use a loop.", PROGRAM, feedback)))
    out.append(("programming_assistant", assistant_prompt(ctx, None)))
    out.append(("programming_assistant with plan", assistant_prompt(ctx, "1. Loop.\n2. Return.")))
    out.append(("prompt_engineer", plan_prompt(ctx, feedback)))
    for baseline in BASELINES:
        zs, _ = make_ctx(
            problem, lambda r: "", make_config({"model": "script/x", "workflow": "zeroshot", "baseline": baseline})
        )
        out.append((f"zeroshot {baseline}", baseline_prompt(zs)))
    for (name, scenario), attempt in itertools.product(clarifier_scenarios(settings, synthesized).items(), (1, 2, 3)):
        out.append((f"clarifier {name} {attempt}", clarifier_prompt(ctx, attempt, program=PROGRAM, **scenario)))
    return problem, [(name, text, values) for name, text in out]


def clarifier_scenarios(settings: dict, synthesized: list[str]) -> dict[str, dict]:
    """What the clarifier can be told under these settings."""
    none = {"kept_tests": [], "rejected_tests": [], "trajectory": "", "check_feedback": "", "debugged": False}
    if not settings["epochs"]:
        return {"no epochs": {**none, "check_feedback": "f(1) was imagined to return 3"}}
    kept, rejected = (synthesized[:1], synthesized[1:]) if settings["tqc"] else (synthesized, [])
    debugged = {
        "kept_tests": kept,
        "rejected_tests": rejected,
        "trajectory": "epoch 1: 0/1 synthesized tests passed",
        "check_feedback": "f(1) was imagined to return 3",
        "debugged": True,
    }
    return {"debugged": debugged, "no usable test": {**none, "check_feedback": "f(1) was imagined to return 3"}}


CASES = [(pid, s) for pid in PROBLEMS for s in SETTINGS]


@pytest.mark.parametrize("problem_id,settings", CASES, ids=[f"{p}-{s}" for p, s in CASES])
def test_every_rendered_prompt_reads_right(problem_id, settings):
    problem, prompts = rendered_prompts(problem_id, settings)
    for name, (system, user), values in prompts:
        text = system + "\n" + user
        where = f"{name} ({problem_id}, {settings})"
        # No unfilled placeholder.
        assert not re.search(r"\{\{\s*\w+\s*\}\}", text), where
        # The template adds no triple quotes of its own: any left once the
        # inserted values are taken out would break the quoting of a statement
        # that holds a docstring (HumanEval).
        bare = text
        for value in sorted((v for v in values if v), key=len, reverse=True):
            bare = bare.replace(value.strip(), "")
        assert '"""' not in bare and "'''" not in bare, where
        # No punctuation glued to a test: each test ends its line.
        for test in [*problem.test_sources, *synthesized_for(problem)]:
            for m in re.finditer(re.escape(test), text):
                assert text[m.end() : m.end() + 1] in ("", "\n"), f"{where}: {text[m.end() : m.end() + 9]!r}"
        # The statement is introduced as a statement, not as a program.
        at = user.find(problem.statement)
        if at > 0:
            intro = user[:at].rstrip("\n").rsplit("\n", 1)[-1]
            assert "program" not in intro.lower(), f"{where}: {intro!r}"


@pytest.mark.parametrize("problem_id,settings", CASES, ids=[f"{p}-{s}" for p, s in CASES])
def test_prompts_claim_only_what_the_settings_make_true(problem_id, settings):
    problem, prompts = rendered_prompts(problem_id, settings)
    for name, (_system, user), _ in prompts:
        where = f"{name} ({problem_id}, {settings})"
        low = user.lower()
        if name.startswith("clarifier"):
            if not settings["epochs"]:
                assert "debug" not in low and "synthesized" not in low, where
            if not settings["tqc"]:
                assert "test quality checker" not in low, where
            if settings["checker"] == "none":
                assert "not accepted" not in low and "reject" not in low.replace("rejected as wrong", ""), where
            else:
                assert "(not accepted)" in low, where
            if "no usable test" in name:
                assert "no usable unit test" in low, where
                assert "revised by self-debugging" not in low, where
        if name.startswith("self_debugger"):
            # The paper's debugger is not told to doubt the tests (the TQC does that): only the setting says so.
            told = bool(settings.get("tests_may_be_wrong"))
            assert bool(re.search(r"(may|can)( themselves| itself)? be (wrong|mistaken)", low)) is told, where
            assert f"`{problem.entry_point}`" in user and "signature" in low, where
        if name == "code_quality_checker turn 1":
            # The call only: never the expected value of the test.
            test = problem.test_sources[0]
            call = test.split("==")[0].removeprefix("assert").strip()
            expected = test.split("==", 1)[1].strip()
            assert call in user and expected not in user.replace(call, ""), where
        if name == "agentcoder test_designer redesign":
            assert "marker_program_0451" not in user, where  # the failures, never the program
        if name == "test_quality_checker":
            assert "marker_program_0451" not in user, where  # no program is ever shown


def test_the_clarifier_attempts_and_the_clarified_generator_use_different_prompts():
    _, prompts = rendered_prompts("mbpp/11", {"checker": "imagined", "epochs": 3, "tqc": True})
    by_name = {name: text for name, text, _ in prompts}
    assert len({by_name[f"clarifier debugged {a}"] for a in (1, 2, 3)}) == 3
    assert len({by_name[f"clarified generator {a}"] for a in (1, 2, 3)}) == 3
