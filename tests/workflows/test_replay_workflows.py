"""Every workflow re-runs from its own recording: the replay model answers each
call from the session (no live model), and the run ends where it ended."""

from __future__ import annotations

import pytest

from qflow_tui.core.config import make_config
from qflow_tui.core.problem import make_problem
from qflow_tui.core.session import read_session
from qflow_tui.core.session.replay import ReplayClient
from qflow_tui.core.workflow_run import run_workflow
from tests.helpers import Recorder, TestSandbox

STATEMENT = "Write a python function to remove first and last occurrence of a given character from the string."
TESTS = 'assert remove_Occ("hello", "l") == "heo"\nassert remove_Occ("abcda", "a") == "bcd"\nassert remove_Occ("PHP", "P") == "H"'


@pytest.mark.parametrize(
    "workflow,settings",
    [
        ("qualityflow", {"prompts": 1}),
        ("agentcoder", {"iterations": 1}),
        ("codetree", {}),
        ("codetree", {"search": "bfs"}),
        ("adacoder", {}),
        ("zeroshot", {}),
    ],
)
async def test_a_recorded_run_replays_with_no_live_call(tmp_path, workflow, settings):
    problem = make_problem(STATEMENT, TESTS)
    config = make_config({"model": "script/tests/scripts/mbpp11_workflows.py", "workflow": workflow, **settings})
    first = await run_workflow(problem, config, sandbox=TestSandbox(), session_dir=tmp_path / "live")
    recorded = read_session(first.session)
    assert recorded.events[0].agents and not recorded.warnings

    replay = ReplayClient(first.session)
    rec = Recorder()
    again = await run_workflow(
        problem,
        config.replace(model=f"replay/{first.session}"),
        client=replay,
        sandbox=TestSandbox(),
        sinks=[rec],
        session_dir=tmp_path,
    )
    assert (again.outcome, again.accepted_at, again.final_program) == (
        first.outcome,
        first.accepted_at,
        first.final_program,
    )
    assert replay.replayed == first.llm_calls and replay.fell_back == 0

    # The same steps, gate stops and (CodeTree) tree nodes, in the same order.
    def shape(events):
        return [(e.kind, e.step, getattr(e, "node", None)) for e in events if e.kind in ("gate_stop", "tree_node")]

    assert shape(rec.events) == shape(recorded.events)
