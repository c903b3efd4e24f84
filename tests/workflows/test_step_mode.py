"""Step mode for every workflow: the run stops at each gate (announced, and
recorded as a ``gate_stop`` event before anything of that step happens) and
goes on one step per ``step()``; and the demo session recorded before
workflows described themselves reads back with its agents and plan."""

from __future__ import annotations

import asyncio

import pytest

from qflow_tui.core.config import make_config
from qflow_tui.core.problem import make_problem
from qflow_tui.core.session import read_session
from qflow_tui.core.steer.gate import StepGate, Stop
from qflow_tui.core.workflow_run import run_workflow
from qflow_tui.locations import package_data_dir
from tests.helpers import Recorder, TestSandbox
from tests.workflows.test_replay_workflows import STATEMENT, TESTS


@pytest.mark.parametrize(
    "workflow,settings",
    [
        ("qualityflow", {"prompts": 1, "epochs": 1, "clarify": 0}),
        ("agentcoder", {"iterations": 1}),
        ("codetree", {}),
        ("adacoder", {"iterations": 1}),
        ("zeroshot", {}),
    ],
)
async def test_every_workflow_steps_one_gate_at_a_time(tmp_path, workflow, settings):
    stops: list[str] = []
    arrived = asyncio.Event()

    def on_wait(stop: Stop) -> None:
        stops.append(stop.step)
        arrived.set()

    gate = StepGate(stepping=True, on_wait=on_wait)
    rec = Recorder()
    config = make_config({"model": "script/tests/scripts/mbpp11_workflows.py", "workflow": workflow, **settings})
    run = asyncio.create_task(
        run_workflow(
            make_problem(STATEMENT, TESTS), config, sandbox=TestSandbox(), gate=gate, sinks=[rec], session_dir=tmp_path
        )
    )
    while True:
        waiting = asyncio.create_task(arrived.wait())
        done, _ = await asyncio.wait({run, waiting}, return_when=asyncio.FIRST_COMPLETED)
        if run in done:
            waiting.cancel()
            break
        arrived.clear()
        # Held at the gate: its stop is the last gate event, and nothing of its step has started.
        last_stop = max(i for i, e in enumerate(rec.events) if e.kind == "gate_stop")
        assert rec.events[last_stop].step == gate.waiting_at
        assert not any(e.kind in ("step_started", "llm_call_started") for e in rec.events[last_stop + 1 :])
        await gate.step()
    outcome = run.result()
    assert outcome.outcome in ("accepted", "rejected", "unchecked")
    assert stops == [e.step for e in rec.of("gate_stop")] and len(stops) >= 1


def test_the_demo_session_recorded_before_descriptions_gets_them_when_read():
    data = read_session(package_data_dir() / "demo" / "demo-session.jsonl")
    first = data.events[0]
    assert first.kind == "run_started"
    assert [a["role"] for a in first.agents] == [
        "program_generator",
        "test_designer",
        "test_quality_checker",
        "self_debugger",
        "code_quality_checker",
        "clarifier",
    ]
    # Every step the recording took is in the plan filled from its own settings.
    planned = {p["step"] for p in first.plan}
    assert {e.step for e in data.events if e.kind == "step_started"} <= planned
    assert first.progressions == data.header["config"]["prompts"]
