"""plan_fork, the check the app's fork dialog runs: the same refusals as
``qflow fork``, each one line, and a plan whose run names its parent."""

from __future__ import annotations

import dataclasses

import pytest

from qflow_tui.core.session import read_session
from qflow_tui.core.steer.fork import ForkError, branch_at_end, plan_fork
from qflow_tui.core.workflows.qualityflow import PROMPTS
from qflow_tui.locations import demo_session


@pytest.fixture
def demo():
    return read_session(demo_session())


def refusal(data, at: str, **kwargs) -> str:
    with pytest.raises(ForkError) as caught:
        plan_fork(data, at, **kwargs)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_plan_takes_the_recorded_settings_and_names_its_parent(demo) -> None:
    plan = plan_fork(demo, "self_debug:1", progression=0, verdict=True)
    assert plan.config.model == f"replay/{demo_session().resolve()}"
    assert plan.config.fallback_model == plan.live_model == "script/qflow_tui/data/demo/responder.py"
    assert PROMPTS.of(plan.config) == demo.header["config"]["prompts"]
    assert plan.header == {
        "parent": {"session": str(demo_session().resolve()), "forked_at": "self_debug:1", "progression": 0},
        "forked_at": "self_debug:1",
        "edits": ["quality verdict of progression 0 at self_debug:1: accept"],
    }
    assert plan.steering.verdicts == {("self_debug:1", 0): True} and not plan.steering.programs
    assert plan.point.event_index > 0 and plan.point.prefix_calls
    assert plan_fork(demo, "self_debug:1", model="openai/gpt-4.1").live_model == "openai/gpt-4.1"


def test_the_refusals_are_those_of_qflow_fork(demo) -> None:
    assert "the session has no step 'self_debug:9'" in refusal(demo, "self_debug:9")
    assert "step of the whole run, not of a progression" in refusal(demo, "test_designer", verdict=False)
    assert "not valid Python (line 1" in refusal(demo, "program_generator", progression=0, program="def f(:\n")
    other = dataclasses.replace(demo, header={**demo.header, "workflow": "agentcoder"})
    assert "agentcoder takes no edits at a fork; fork without them" in refusal(other, "self_debug:1", verdict=True)
    # Without edits another workflow forks.
    assert plan_fork(other, "self_debug:1").steering.verdicts == {}
    nameless = dataclasses.replace(demo, header={**demo.header, "model": "replay/x.jsonl", "config": {}})
    assert "names no live model" in refusal(nameless, "self_debug:1")


def test_a_live_stop_branches_where_the_run_stands(demo) -> None:
    events = demo.events[:120]
    point = branch_at_end(events, "self_debug:1", 0)
    assert point.event_index == 120 and point.prefix_steps == frozenset()
    assert point.prefix_calls == {e.call_id for e in events if e.kind == "llm_call_started"}
