"""Every workflow on a stdin/stdout problem (docs/examples/add-two.json), end
to end with the script model tests/scripts/add_two_workflows.py and the real
sandbox: each agent is sent its I/O prompt (the script raises on any other),
AgentCoder's designed Input/Output tests run through the I/O judge, and the
test feedback of CodeTree, AdaCoder and AgentCoder shows each failing test's
input, expected output and what the program printed."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from qflow_tui.core.config import make_config
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.problem import problem_from_file_data
from qflow_tui.core.workflow_run import run_workflow
from tests.helpers import Recorder, qflow

ROOT = Path(__file__).parent.parent
SCRIPT = ROOT / "scripts" / "add_two_workflows.py"
EXAMPLE = ROOT.parent / "docs" / "examples" / "add-two.json"
PROBLEM = problem_from_file_data(json.loads(EXAMPLE.read_text()))

_spec = importlib.util.spec_from_file_location("add_two_workflows", SCRIPT)
assert _spec and _spec.loader
script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(script)

#: What a debugger is shown of the first visible test when the program multiplies.
FIRST_FAILURE = "Input:\n1 2\nExpected output:\n3\nThe program printed:\n2\n"


async def _run(tmp_path: Path, settings: dict[str, Any]) -> tuple[Any, Recorder, list[dict]]:
    calls: list[dict] = []

    def respond(request: dict) -> str:
        calls.append(request)
        return script.respond(request)

    rec = Recorder()
    outcome = await run_workflow(
        PROBLEM,
        make_config({"model": "script/add-two", **settings}),
        client=ScriptClient.from_function(respond),
        sinks=[rec],
        session_dir=tmp_path,
    )
    return outcome, rec, calls


def _prompts(calls: list[dict], agent: str) -> list[str]:
    return [c["messages"][-1]["content"] for c in calls if c["agent"] == agent]


async def test_agentcoder_designs_io_tests_and_runs_them_through_the_judge(tmp_path):
    outcome, rec, calls = await _run(tmp_path, {"workflow": "agentcoder", "regenerate_tests": False})
    assert outcome.outcome == "accepted", outcome
    assert outcome.final_program.strip() == script.FIXED.strip()
    (designer,) = _prompts(calls, "test_designer")
    assert "Large scale test cases" in designer and "Input 1\n1 2\nOutput 1\n3" in designer
    designed = rec.of("tests_designed")[0]
    assert designed.total == len(script.DESIGNED)
    assert designed.tests[0] == "input '2 3\\n' -> output '5\\n'"
    runs = rec.of("sandbox_run")
    assert [(r.passed, r.total) for r in runs] == [(1, 4), (4, 4)]  # 0 0 passes a * b too
    # The refinement is told each failing pair: input, expected, printed.
    refine = _prompts(calls, "programmer")[1]
    assert "Input:\n2 3\nExpected output:\n5\nThe program printed:\n6\n" in refine
    assert "Input:\n999999999 999999999\nExpected output:\n1999999998\n" in refine


async def test_agentcoder_drops_visible_and_repeated_pairs_and_warns_on_no_blocks(tmp_path):
    from qflow_tui.core.workflows.agentcoder.test_designer import keep_tests
    from tests.helpers import make_ctx

    ctx, _rec = make_ctx(PROBLEM, lambda r: "")
    text = "Sure:\n```\nInput\n1 2\nOutput\n3\n\nInput\n7 1\nOutput\n8\n\nInput\n7 1\nOutput\n8\n```\n"
    assert keep_tests(ctx, text) == ["input '7 1\\n' -> output '8\\n'"]

    def no_blocks(request: dict) -> str:
        if request["agent"] == "test_designer":
            return "I cannot think of any tests."
        return script.respond(request)

    calls: list[dict] = []
    rec = Recorder()
    outcome = await run_workflow(
        PROBLEM,
        make_config({"model": "script/add-two", "workflow": "agentcoder"}),
        client=ScriptClient.from_function(lambda r: calls.append(r) or no_blocks(r)),
        sinks=[rec],
        session_dir=tmp_path,
    )
    assert outcome.outcome == "unchecked"
    assert any("no Input/Output tests could be read" in n.message for n in rec.of("notice"))


@pytest.mark.parametrize("agents", ["single_agent", "programmer+test_designer"])
async def test_agentcoder_ablations_on_an_io_problem(tmp_path, agents):
    outcome, rec, calls = await _run(tmp_path, {"workflow": "agentcoder", "agents": agents, "regenerate_tests": False})
    if agents == "single_agent":
        assert outcome.outcome == "accepted", outcome
        assert rec.of("tests_designed")[0].total == len(script.DESIGNED)
    else:  # the programmer reviews against the designed pairs, shown as Input/Output blocks
        assert outcome.outcome == "unchecked"
        review = _prompts(calls, "programmer")[1]
        assert "Input 1\n2 3\nOutput 1\n5" in review and "input '" not in review


async def test_codetree_on_an_io_problem(tmp_path):
    outcome, rec, calls = await _run(tmp_path, {"workflow": "codetree"})
    assert outcome.outcome == "accepted", outcome
    assert outcome.final_program.strip() == script.FIXED.strip()
    (strategies, reflect) = _prompts(calls, "thinker")
    assert "how to read the input" in strategies and "entry" not in strategies
    assert FIRST_FAILURE in reflect
    critic = _prompts(calls, "critic")
    assert any(FIRST_FAILURE in c for c in critic)
    assert any("sample tests do not cover" in c for c in critic)  # the verification's I/O prompt
    assert next(n.passed for n in rec.of("tree_node") if n.node == "n1") == 0


async def test_adacoder_on_an_io_problem(tmp_path):
    outcome, _rec, calls = await _run(tmp_path, {"workflow": "adacoder"})
    assert outcome.outcome == "accepted", outcome
    (plan,) = _prompts(calls, "prompt_engineer")
    # Algorithm 2's error information: the first failing sample only.
    assert FIRST_FAILURE.strip() in plan and "10 -4" not in plan
    assert "how to read the input" in plan


@pytest.mark.parametrize("checker", ["imagined", "yesno"])
async def test_qualityflow_on_an_io_problem_with_each_checker(tmp_path, checker):
    outcome, _rec, calls = await _run(tmp_path, {"workflow": "qualityflow", "prompts": 1, "checker": checker})
    assert outcome.outcome == "accepted", outcome
    assert outcome.final_program.strip() == script.FIXED.strip()
    if checker == "yesno":
        assert all("reads the Input and must print the Output" in p for p in _prompts(calls, "yesno_checker"))
    debug = _prompts(calls, "self_debugger")[0]
    assert "Input:\n2 3\nExpected output:\n5\nThe program printed:\n6\n" in debug


@pytest.mark.parametrize("workflow", ["zeroshot", "qualityflow", "agentcoder", "codetree", "adacoder"])
def test_solve_each_workflow_headless(tmp_path, workflow):
    done = qflow(
        "solve", "--problem", str(EXAMPLE), "--workflow", workflow, "--model", f"script/{SCRIPT}",
        "--json", "--session-dir", str(tmp_path / "s"), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    if workflow == "zeroshot":  # one shot, checked by nothing
        assert out["outcome"] == "unchecked" and "a * b" in out["final_program"]
    else:
        assert out["outcome"] == "accepted", out
        assert out["final_program"].strip() == script.FIXED.strip()


@pytest.mark.parametrize("independent", [True, False])
async def test_qualityflow_io_test_rounds_follow_independent_test_rounds(tmp_path, independent):
    """Appendix A's reading (independent_test_rounds): every round is the first
    round's query; by default each later round is shown the tests so far."""
    settings = {"workflow": "qualityflow", "prompts": 1, "test_rounds": 3, "independent_test_rounds": independent}
    _, _, calls = await _run(tmp_path, settings)
    designs = _prompts(calls, "test_designer")
    assert len(designs) == 3
    assert (len(set(designs)) == 1) is independent
