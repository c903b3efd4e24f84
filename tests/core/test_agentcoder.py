"""AgentCoder, the peer workflow: programmer -> test designer -> test executor,
refining until the designed tests pass or the iteration budget is spent."""

from __future__ import annotations

import pytest

from qflow_tui.core.config import make_config
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.workflow_run import run_workflow
from tests.core.test_qualityflow import PROBLEM
from tests.helpers import CORRECT, Recorder, buggy

TESTS = ["assert add_one(10) == 11", "assert add_one(0) == 1", "assert add_one(10**6) == 10**6 + 1"]


def responder(fixed_at: int | None, calls: list[dict]):
    def respond(request: dict) -> str:
        calls.append(request)
        if request["agent"] == "programmer":
            iteration = request["epoch"] or 0
            program = CORRECT if fixed_at is not None and iteration >= fixed_at else buggy(f"iteration {iteration}")
            return f"1. ...\n2. ...\n3. ...\n4.\n```python\n{program}```"
        if request["agent"] == "test_designer":
            return "```python\n" + "\n".join(TESTS) + "\n```"
        raise AssertionError(request["agent"])

    return respond


async def run(tmp_path, fixed_at, **cfg):
    calls: list[dict] = []
    rec = Recorder()
    outcome = await run_workflow(
        PROBLEM,
        make_config({"model": "script/ac", "workflow": "agentcoder", **cfg}),
        client=ScriptClient.from_function(responder(fixed_at, calls)),
        sinks=[rec],
        session_dir=tmp_path,
    )
    return outcome, rec, calls


@pytest.mark.parametrize(
    "fixed_at,accepted_at,programmer_calls", [(0, "test_executor:1", 1), (2, "test_executor:3", 3)]
)
async def test_refines_until_the_designed_tests_pass(tmp_path, fixed_at, accepted_at, programmer_calls):
    outcome, rec, calls = await run(tmp_path, fixed_at)
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", accepted_at)
    assert outcome.final_program.strip() == CORRECT.strip()
    assert sum(c["agent"] == "programmer" for c in calls) == programmer_calls
    assert sum(c["agent"] == "test_designer" for c in calls) == 1
    # The programmer's refinements are fed the failures of the designed tests.
    refines = [c for c in calls if c["agent"] == "programmer" and c["epoch"]]
    assert all("add_one(10)" in c["messages"][-1]["content"] for c in refines)
    runs = rec.of("sandbox_run")
    assert [r.purpose for r in runs] == ["agentcoder"] * len(runs) and runs[-1].passed == runs[-1].total == 3


@pytest.mark.parametrize("iterations", [1, 3, 5])
async def test_iterations_n_means_n_refinements_and_the_last_program_is_reported(tmp_path, iterations):
    """AgentCoder's Table 3 counts a refinement in every iteration."""
    outcome, rec, calls = await run(tmp_path, None, iterations=iterations)
    assert (outcome.outcome, outcome.accepted_at) == ("rejected", None)
    assert f"iteration {iterations}" in outcome.final_program
    refinements = [c["epoch"] for c in calls if c["agent"] == "programmer" and c["epoch"]]
    assert refinements == list(range(1, iterations + 1))
    # The tests ran on the first program and on each refinement.
    assert len(rec.of("sandbox_run")) == iterations + 1


async def test_a_fix_in_the_last_refinement_is_accepted(tmp_path):
    outcome, _, calls = await run(tmp_path, 5, iterations=5)
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "test_executor:6")
    assert sum(c["agent"] == "programmer" for c in calls) == 6


async def test_the_app_state_follows_an_agentcoder_run(tmp_path):
    """The UI folds every event kind; a peer workflow's agents and steps must not trip it."""
    from qflow_tui.ui.state import RunState

    outcome, rec, _ = await run(tmp_path, 1)
    state = RunState()
    for event in rec.events:
        state.apply(event)
    assert state.llm_calls == outcome.llm_calls
