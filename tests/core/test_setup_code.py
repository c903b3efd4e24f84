"""The code a problem's tests run after (MBPP's ``test_setup_code``, a statement's
own imports): every agent is shown it, the sandbox runs it, and imagined-execution
judging runs what the verdict needs of it, so no such problem is rejected by
construction."""

from __future__ import annotations

import re

import pytest

from qflow_tui.core.bench.datasets import load_bench_problem
from qflow_tui.core.config import make_config
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.setup_code import judging_setup, sandbox_setup, shown_setup, statement_imports
from qflow_tui.core.workflow_run import run_workflow
from tests.helpers import Recorder

NODE = "class Node:\n    def __init__(self, data):\n        self.data = data\n        self.left = None\n        self.right = None\n"
BALANCED = (
    NODE + "\ndef height(n):\n    return 0 if n is None else 1 + max(height(n.left), height(n.right))\n\n"
    "def is_tree_balanced(root):\n    if root is None:\n        return True\n"
    "    return abs(height(root.left) - height(root.right)) <= 1 and is_tree_balanced(root.left)"
    " and is_tree_balanced(root.right)\n"
)
TRUTH = {"root": False, "root1": True, "root2": False}


def mbpp_367_model(program: str, calls: list[dict]):
    """A model that writes ``program`` and imagines it perfectly."""

    def respond(request: dict) -> str:
        calls.append(request)
        agent = request["agent"]
        if agent in ("program_generator", "self_debugger"):
            return f"```python\n{program}```"
        if agent == "yesno_checker":
            return "Final answer: Yes"
        if agent == "test_designer":
            return "```python\nassert is_tree_balanced(root1) is True\nassert is_tree_balanced(root) == True\n```"
        tree = re.search(r"is_tree_balanced\((\w+)\)", request["test"]).group(1)
        value = TRUTH[tree] if "height(n.left)" in program or agent == "test_quality_checker" else True
        if agent == "test_quality_checker":
            return f"<test_case>assert is_tree_balanced({tree}) == {value}</test_case>"
        return "..." if request["turn"] == 1 else f"<test_case>assert is_tree_balanced({tree}) == {value}</test_case>"

    return respond


async def solve(problem, respond, tmp_path, **cfg):
    rec = Recorder()
    outcome = await run_workflow(
        problem,
        make_config({"model": "script/t", **cfg}),
        client=ScriptClient.from_function(respond),
        sinks=[rec],
        session_dir=tmp_path,
    )
    return outcome, rec


@pytest.mark.parametrize("checker", ["imagined", "python", "yesno"])
async def test_mbpp_367_a_right_program_is_accepted_and_every_agent_saw_the_setup(tmp_path, checker):
    problem = load_bench_problem("mbpp/367").problem
    calls: list[dict] = []
    outcome, _ = await solve(problem, mbpp_367_model(BALANCED, calls), tmp_path, prompts=1, checker=checker)
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "program_generator")
    for call in calls:
        assert "root1.left.left.left = Node(7)" in call["messages"][0]["content"], call["agent"]


async def test_mbpp_367_the_test_quality_checker_sees_the_setup_and_judges_with_it(tmp_path):
    problem = load_bench_problem("mbpp/367").problem
    calls: list[dict] = []
    wrong = NODE + "\ndef is_tree_balanced(root):\n    return True\n"
    _, rec = await solve(problem, mbpp_367_model(wrong, calls), tmp_path, prompts=1, epochs=1, clarify=0)
    tqc = [c for c in calls if c["agent"] == "test_quality_checker"]
    assert tqc and all("root = Node(1)" in c["messages"][0]["content"] for c in tqc)
    assert all("def is_tree_balanced" not in c["messages"][0]["content"] for c in tqc)
    verdicts = {e.test: e.verdict for e in rec.of("tqc_verdict")}
    # The right test is kept, the wrong one rejected, on their values (no setup error).
    assert verdicts == {
        "assert is_tree_balanced(root1) is True": "kept",
        "assert is_tree_balanced(root) == True": "rejected",
    }
    assert all("does not satisfy" in e.detail for e in rec.of("tqc_verdict") if e.verdict == "rejected")
    # The debugger ran the kept test with the setup after the program's Node class.
    run = next(r for r in rec.of("sandbox_run") if r.purpose == "self_debug")
    assert run.load_error is None and (run.passed, run.total) == (1, 1)


async def test_a_humaneval_statement_s_own_imports_are_there_for_the_program(tmp_path):
    problem = load_bench_problem("humaneval/0").problem
    # The program uses List without importing it, as a completion of the prompt may.
    program = (
        "def has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
        "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n"
    )
    outcome, rec = await solve(
        problem, lambda r: f"```python\n{program}```", tmp_path, prompts=1, checker="python", epochs=0, clarify=0
    )
    run = next(r for r in rec.of("sandbox_run") if r.purpose == "python_checker")
    assert run.load_error is None and run.passed == run.total > 0
    assert outcome.outcome == "accepted"


def test_statement_imports_are_top_level_import_lines_only():
    statement = (
        'from typing import List\nimport math\n\ndef f(x: List[int]):\n    """import this, from that import it"""\n'
    )
    assert statement_imports(statement) == "from typing import List\nimport math"
    assert statement_imports("Write a function. import math if you need it.") == ""


def test_sandbox_setup_puts_the_statement_imports_first():
    problem = load_bench_problem("humaneval/0").problem
    assert sandbox_setup(problem).startswith("from typing import List")


def test_shown_setup_leaves_out_imports():
    problem = load_bench_problem("mbpp/367").problem
    shown = shown_setup(problem)
    assert shown.startswith("root = Node(1)") and "import" not in shown


def test_judging_setup_keeps_what_the_judged_asserts_use():
    setup = "import math\nclass Node: pass\nroot = Node()\nroot.left = Node()\nlimit = 3\nscale = limit * 2\n"
    assert judging_setup(setup, ["assert (False) == False"]) == "import math"
    assert judging_setup(setup, ["assert (4) < scale"]) == "import math\nlimit = 3\nscale = limit * 2"
    assert judging_setup(setup, ["assert (1) == root.left"]) == (
        "import math\nclass Node:\n    pass\nroot = Node()\nroot.left = Node()"
    )
