"""AgentCoder, the peer workflow: programmer -> test designer -> test executor,
refining until the designed tests pass or the iteration budget is spent."""

from __future__ import annotations

import pytest

from qflow_tui.core.config import RunConfig
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.runner import run_workflow
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
        RunConfig(model="script/ac", workflow="agentcoder", **cfg),
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


async def test_the_last_program_is_reported_when_the_budget_is_spent(tmp_path):
    outcome, rec, calls = await run(tmp_path, None, iterations=3)
    assert (outcome.outcome, outcome.accepted_at) == ("rejected", None)
    assert "iteration 2" in outcome.final_program
    assert sum(c["agent"] == "programmer" for c in calls) == 3  # write + 2 refinements
    assert len(rec.of("sandbox_run")) == 3


async def test_the_app_state_follows_an_agentcoder_run(tmp_path):
    """The UI folds every event kind; a peer workflow's agents and steps must not trip it."""
    from qflow_tui.ui.state import RunState

    outcome, rec, _ = await run(tmp_path, 1)
    state = RunState()
    for event in rec.events:
        state.apply(event)
    assert state.llm_calls == outcome.llm_calls
