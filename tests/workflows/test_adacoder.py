"""AdaCoder: the Debug Specialist's three rules on broken code (no model), and
every path of Algorithm 1 with a script model and the real sandbox."""

from __future__ import annotations

import pytest

from qflow_tui.core.config import make_config
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.workflow_run import run_workflow
from qflow_tui.core.workflows.adacoder.debug_specialist import (
    NAME_DATABASE,
    compiles,
    debug,
    inject_missing_import,
    normalise_indentation,
    truncate_overflow,
)
from tests.core.test_qualityflow import PROBLEM
from tests.helpers import CORRECT, Recorder, buggy

MISSING_IMPORT = "def add_one(x):\n    return math.floor(x) + 1\n"
BAD_INDENT = "def add_one(x):\n  y = x + 1\n    return y\n"
OVERFLOW = (
    "def helper(x):\n    return x + 1\n\n\ndef add_one(x):\n    return helper(x)\n\n\ndef unused(s):\n    return (s +\n"
)

# -- the three rules ------------------------------------------------------------------------


def test_indentation_is_normalised_to_four_space_levels():
    assert not compiles(BAD_INDENT)
    fixed = normalise_indentation(BAD_INDENT)
    assert fixed == "def add_one(x):\n    y = x + 1\n    return y\n"
    # Tabs count four; a block opener's body is pushed one level in; fences go.
    mixed = "```python\ndef f(x):\n\tif x:\n\treturn 1\n    return 2\n```\n"
    assert normalise_indentation(mixed) == "def f(x):\n    if x:\n        return 1\n    return 2\n"


def test_an_overflowing_last_function_is_cut_until_the_code_compiles():
    assert not compiles(OVERFLOW)
    cut, removed = truncate_overflow(OVERFLOW)
    assert compiles(cut) and removed == 2
    assert "def add_one" in cut and "def unused" not in cut
    # A single function is never cut away (Algorithm 3: FunctionCount > 1).
    single = "def add_one(x):\n    return (x +\n"
    assert truncate_overflow(single) == (single, 0)


def test_a_missing_standard_library_import_is_injected():
    code, added = inject_missing_import(MISSING_IMPORT, "NameError: name 'math' is not defined")
    assert added == "import math" and code.startswith("import math\n")
    code, added = inject_missing_import("def f(n):\n    return sqrt(n)\n", "NameError: name 'sqrt' is not defined")
    assert added == "from math import sqrt"
    assert NAME_DATABASE["defaultdict"] == "from collections import defaultdict"
    # An undefined variable is not a library name: nothing is added.
    assert inject_missing_import(MISSING_IMPORT, "NameError: name 'totl' is not defined") == (MISSING_IMPORT, None)
    assert inject_missing_import(MISSING_IMPORT, "AssertionError") == (MISSING_IMPORT, None)


def test_debug_applies_only_the_rules_that_have_something_to_fix():
    assert debug(CORRECT, "assert failed").rules == []
    assert debug(BAD_INDENT, "IndentationError").rules == ["indentation normalised"]
    result = debug(OVERFLOW, "SyntaxError: '(' was never closed")
    assert result.rules == ["overflowing last function truncated (2 lines removed)"]


# -- the workflow ----------------------------------------------------------------------------


class Ada:
    """A script model for AdaCoder: Phase 1 writes ``first``; with a plan the
    Programming Assistant writes ``planned(iteration)``."""

    def __init__(self, first: str, planned=lambda i: buggy(f"planned {i}")) -> None:
        self.first = first
        self.planned = planned
        self.calls: list[dict] = []

    def of(self, agent: str) -> list[dict]:
        return [c for c in self.calls if c["agent"] == agent]

    def __call__(self, request: dict) -> str:
        self.calls.append(request)
        if request["agent"] == "programming_assistant":
            program = self.first if request["attempt"] is None else self.planned(request["attempt"])
            return "```python\n" + program + "```"
        if request["agent"] == "prompt_engineer":
            return f"<plan>1. Add one to x (plan {request['attempt']}).\n2. Return it.</plan>"
        raise AssertionError(request["agent"])


async def solve(model: Ada, tmp_path, **cfg):
    rec = Recorder()
    outcome = await run_workflow(
        PROBLEM,
        make_config({"model": "script/ada", "workflow": "adacoder", **cfg}),
        client=ScriptClient.from_function(model),
        sinks=[rec],
        session_dir=tmp_path,
    )
    return outcome, rec


async def test_phase_1_success_ends_the_run_without_planning(tmp_path):
    model = Ada(CORRECT)
    outcome, rec = await solve(model, tmp_path)
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "programming_assistant")
    assert [c["agent"] for c in model.calls] == ["programming_assistant"]
    # The Phase 1 prompt has no plan; the Code Evaluator ran the visible tests.
    assert "plan" not in model.calls[0]["messages"][-1]["content"].lower()
    # Section IV-B: the first prompt "consists solely of the task description":
    # no sample test (the Code Evaluator runs them).
    assert not any(t in model.calls[0]["messages"][-1]["content"] for t in PROBLEM.test_sources)
    runs = rec.of("sandbox_run")
    assert [(r.agent, r.passed, r.total) for r in runs] == [("code_evaluator", 2, 2)]


@pytest.mark.parametrize(
    "broken,rule",
    [
        (MISSING_IMPORT, "missing import added: import math"),
        (BAD_INDENT, "indentation normalised"),
        (OVERFLOW, "overflowing last function truncated"),
    ],
)
async def test_each_rule_fixes_a_program_with_no_model_call(tmp_path, broken, rule):
    model = Ada(broken)
    outcome, rec = await solve(model, tmp_path)
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "debug_specialist:1")
    assert len(model.calls) == 1  # the Phase 1 program only: the fix cost no model call
    finished = [e for e in rec.of("step_finished") if e.step == "debug_specialist:1"]
    assert rule in finished[0].detail and finished[0].outcome == "accepted"
    assert compiles(outcome.final_program)


async def test_planning_path_regenerates_from_a_plan_made_of_the_error_feedback(tmp_path):
    model = Ada(buggy("phase 1"), planned=lambda i: CORRECT if i == 2 else buggy(f"planned {i}"))
    outcome, rec = await solve(model, tmp_path)
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "programming_assistant:2")
    assert [c["agent"] for c in model.calls] == [
        "programming_assistant",
        "prompt_engineer",
        "programming_assistant",
        "prompt_engineer",
        "programming_assistant",
    ]
    # The plan is made from the Code Evaluator's feedback (Algorithm 2: the first
    # error only) and handed to the assistant.
    plan_prompt = model.of("prompt_engineer")[0]["messages"][-1]["content"]
    assert "AssertionError (failed: assert add_one(1) == 2)" in plan_prompt
    assert "(plan 2)" in model.of("programming_assistant")[2]["messages"][-1]["content"]
    # A logic error gives the Debug Specialist nothing to fix, and says so.
    details = {e.step: e.detail for e in rec.of("step_finished")}
    assert details["debug_specialist:1"] == "no rule applied"


@pytest.mark.parametrize("t", [1, 3])
async def test_t_iterations_then_the_last_debugged_program(tmp_path, t):
    model = Ada(buggy("phase 1"))
    outcome, rec = await solve(model, tmp_path, iterations=t)
    assert outcome.outcome == "rejected" and outcome.accepted_at is None
    assert len(model.of("programming_assistant")) == t + 1 and len(model.of("prompt_engineer")) == t
    assert f"planned {t}" in outcome.final_program
    steps = [e.step for e in rec.of("step_started")]
    assert steps[-1] == f"debug_specialist:{t + 1}"
    # The run's first event plans exactly these steps.
    planned = ["programming_assistant"]
    for i in range(1, t + 1):
        planned += [f"debug_specialist:{i}", f"prompt_engineer:{i}", f"programming_assistant:{i}"]
    planned.append(f"debug_specialist:{t + 1}")
    assert [p["step"] for p in rec.events[0].plan] == planned


# -- Algorithm 2's feedback and Table XI's ablations ------------------------------------------


@pytest.mark.parametrize("per_test", [False, True])
async def test_the_code_evaluator_reports_the_first_error_unless_per_test_feedback_is_on(tmp_path, per_test):
    """Algorithm 2 executes the code with its sample tests appended: the error
    information is the first exception's message, nothing about later tests
    nor the values returned. ``per_test_feedback`` (off by default) gives those."""
    model = Ada(buggy("phase 1"), planned=lambda i: CORRECT)
    cfg = {"per_test_feedback": True} if per_test else {}
    outcome, _ = await solve(model, tmp_path, **cfg)
    assert outcome.accepted_at == "programming_assistant:1"
    plan_prompt = model.of("prompt_engineer")[0]["messages"][-1]["content"]
    assert "add_one(1) == 2" in plan_prompt
    # Both tests fail; the per-test feedback names the second and the value returned.
    assert ("add_one(5) == 6" in plan_prompt) is per_test
    assert ("returned 3" in plan_prompt) is per_test
    assert ("(0 of 2 tests pass)" in plan_prompt) is per_test


def test_the_error_message_is_the_first_exception_as_python_words_it():
    from qflow_tui.core.sandbox.report import SandboxReport, TestOutcome
    from qflow_tui.core.workflows.adacoder.code_evaluator import error_message

    loading = SandboxReport(load_error="SyntaxError: '(' was never closed\n  line 2")
    assert error_message(loading) == "SyntaxError: '(' was never closed"
    raised = SandboxReport(
        results=[
            TestOutcome("assert f(1) == 1", "pass"),
            TestOutcome("assert f(2) == 2", "error", error="NameError: name 'math' is not defined\n  File ..."),
            TestOutcome("assert f(3) == 3", "fail", actual="4"),
        ]
    )
    assert error_message(raised) == "NameError: name 'math' is not defined (in: assert f(2) == 2)"


async def test_without_the_prompt_engineer_the_program_is_written_again_from_the_task_alone(tmp_path):
    """Table XI "w/o Prompt": Algorithm 1 without line 20, so the plan stays None
    and Phase 2 regenerates from the task (line 7), after the Debug Specialist."""
    model = Ada(buggy("phase 1"), planned=lambda i: CORRECT if i == 2 else buggy(f"again {i}"))
    outcome, rec = await solve(model, tmp_path, prompt_engineer=False)
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "programming_assistant:2")
    assert [c["agent"] for c in model.calls] == ["programming_assistant"] * 3
    prompts = [c["messages"][-1]["content"] for c in model.of("programming_assistant")]
    assert prompts[1] == prompts[0] and "Follow this plan" not in prompts[1]
    steps = [e.step for e in rec.of("step_started")]
    assert steps == [
        "programming_assistant",
        "debug_specialist:1",
        "programming_assistant:1",
        "debug_specialist:2",
        "programming_assistant:2",
    ]


async def test_without_the_debug_specialist_the_plan_follows_the_programs_own_error(tmp_path):
    """Table XI "w/o Debug": Algorithm 1 without lines 15-19. A missing import the
    Debug Specialist would fix with no model call goes to the Prompt Engineer."""
    model = Ada(MISSING_IMPORT, planned=lambda i: MISSING_IMPORT)
    outcome, rec = await solve(model, tmp_path, iterations=2, debug_specialist=False)
    assert outcome.outcome == "rejected"
    assert [c["agent"] for c in model.calls] == ["programming_assistant", "prompt_engineer"] * 2 + [
        "programming_assistant"
    ]
    assert "NameError: name 'math' is not defined" in model.of("prompt_engineer")[0]["messages"][-1]["content"]
    assert not [e for e in rec.of("step_started") if e.step.startswith("debug_specialist")]
    # The last program written stands; the run's plan has the same steps.
    assert outcome.final_program.strip() == MISSING_IMPORT.strip()
    planned = ["programming_assistant", "prompt_engineer:1", "programming_assistant:1"]
    planned += ["prompt_engineer:2", "programming_assistant:2"]
    assert [p["step"] for p in rec.events[0].plan] == planned


async def test_without_both_phase_2_writes_t_more_programs_from_the_task(tmp_path):
    model = Ada(buggy("phase 1"))
    settings = {"prompt_engineer": False, "debug_specialist": False}
    outcome, rec = await solve(model, tmp_path, iterations=3, **settings)
    assert outcome.outcome == "rejected" and "planned 3" in outcome.final_program
    assert [c["agent"] for c in model.calls] == ["programming_assistant"] * 4
    assert [p["step"] for p in rec.events[0].plan] == ["programming_assistant"] + [
        f"programming_assistant:{i}" for i in (1, 2, 3)
    ]


def test_the_debug_specialist_departs_from_algorithm_3_where_its_page_says():
    """docs/workflows/adacoder.md: step 1 only on an indentation error, and
    step 2 puts the code back when no cut compiles."""
    two_spaces = "def add_one(x):\n  if x:\n    return x + 1\n  return 1\n"
    assert compiles(two_spaces)
    # Algorithm 3's step 1 on every program would break this one...
    assert not compiles(normalise_indentation(two_spaces))
    # ...so it runs only when the compiler reports an indentation error.
    assert debug(two_spaces, "AssertionError").code == two_spaces
    # A syntax error in the first function is no overflow: no cut compiles, nothing is cut.
    broken_first = "def add_one(x:\n    return x + 1\n\n\ndef helper(y):\n    return y\n"
    assert truncate_overflow(broken_first) == (broken_first, 0)
    assert debug(broken_first, "SyntaxError").code == broken_first
