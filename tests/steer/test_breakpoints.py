"""Breakpoints: a StepGate going free stops (as step mode does) only where a
breakpoint matches, and says which one."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from qflow_tui.core.config import make_config
from qflow_tui.core.gate import Breakpoint, BreakpointError, StepGate
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.problem import make_problem
from qflow_tui.core.runner import run_workflow

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "mbpp11"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("self_debugger", "is not one of agent:..., step:..., progression:..., decision:..."),
        ("agent:", "is not one of"),
        ("when:reject", "is not one of"),
        ("progression:one", "a progression is a number from 0"),
        ("decision:accept", "decision:reject or decision:revert"),
    ],
)
def test_a_bad_breakpoint_says_what_is_allowed(text: str, message: str) -> None:
    with pytest.raises(BreakpointError, match=message.replace(".", r"\.")):
        Breakpoint.parse(text)


def test_what_each_breakpoint_matches() -> None:
    agent = Breakpoint.parse("agent:self_debugger")
    assert agent.matches("self_debug:1", 0, "self_debugger") and not agent.matches("self_debug:1", 0, "clarifier")
    stage = Breakpoint.parse("step:self_debug")
    assert stage.matches("self_debug:2", 1, None) and not stage.matches("program_generator", 0, None)
    exact = Breakpoint.parse("step:self_debug:2")
    assert exact.matches("self_debug:2", 0, None) and not exact.matches("self_debug:1", 0, None)
    checks = Breakpoint.parse("step:quality_check")
    assert checks.matches("quality_check:self_debug:1", 0, "code_quality_checker")
    prog = Breakpoint.parse("progression:1")
    assert prog.matches("program_generator", 1, None) and not prog.matches("program_generator", 0, None)
    assert not prog.matches("test_designer", None, "test_designer")


async def test_the_gate_runs_free_between_breakpoints() -> None:
    waits: list[str] = []
    gate = StepGate(on_wait=waits.append, breakpoints=["agent:self_debugger"])
    await asyncio.wait_for(gate.checkpoint("program_generator", 0, "program_generator"), 1)
    stop = asyncio.create_task(gate.checkpoint("self_debug:1", 0, "self_debugger"))
    for _ in range(5):
        await asyncio.sleep(0)
    assert not stop.done() and waits == ["self_debug:1"] and gate.stopped_by == "agent:self_debugger"
    await gate.resume()
    await asyncio.wait_for(stop, 1)
    assert gate.stopped_by is None and not gate.stepping
    await asyncio.wait_for(gate.checkpoint("quality_check:self_debug:1", 0, "code_quality_checker"), 1)


async def _stops(tmp_path: Path, *breakpoints: str, **cfg: object) -> tuple[list[tuple[str, str | None]], str]:
    """Run the MBPP 11 story with ``breakpoints``; every stop resumed at once. Returns (step, why) per stop."""
    stops: list[tuple[str, str | None]] = []
    gate: StepGate

    def waiting(step: str) -> None:
        stops.append((step, gate.stopped_by))
        asyncio.get_running_loop().create_task(gate.resume())

    gate = StepGate(on_wait=waiting, breakpoints=breakpoints)
    problem = make_problem((DATA / "problem.txt").read_text(), (DATA / "tests.py").read_text())
    config = make_config({"model": "script/mbpp11", **cfg}).replace(prompts=1)  # type: ignore[arg-type]
    client = ScriptClient(ROOT / "tests" / "scripts" / "mbpp11.py")
    outcome = await run_workflow(problem, config, client=client, gate=gate, record=False, session_dir=tmp_path)
    return stops, f"{outcome.outcome} {outcome.accepted_at}"


async def test_no_breakpoint_no_stop(tmp_path: Path) -> None:
    assert await _stops(tmp_path) == ([], "accepted self_debug:1")


async def test_an_agent_breakpoint_stops_before_its_steps_only(tmp_path: Path) -> None:
    stops, result = await _stops(tmp_path, "agent:self_debugger")
    assert stops == [("self_debug:1", "agent:self_debugger")] and result == "accepted self_debug:1"


async def test_a_step_breakpoint_stops_before_every_quality_check(tmp_path: Path) -> None:
    stops, _ = await _stops(tmp_path, "step:quality_check")
    assert stops == [
        ("quality_check:program_generator", "step:quality_check"),
        ("quality_check:self_debug:1", "step:quality_check"),
    ]


async def test_a_progression_breakpoint_stops_at_its_steps_not_the_shared_ones(tmp_path: Path) -> None:
    stops, _ = await _stops(tmp_path, "progression:0")
    assert [s for s, _ in stops] == [
        "program_generator",
        "quality_check:program_generator",
        "self_debug:1",
        "quality_check:self_debug:1",
    ]


async def test_a_reject_breakpoint_stops_at_the_step_after_the_rejection(tmp_path: Path) -> None:
    stops, _ = await _stops(tmp_path, "decision:reject")
    # The generator's program is rejected; the next step is the (shared) test design.
    assert stops == [("test_designer", "decision:reject after program_generator")]


async def test_a_revert_breakpoint_stops_before_the_revert(tmp_path: Path) -> None:
    # With no self-debugging and no clarifier the rejected program has nowhere to
    # go: the run reverts, and the breakpoint stops it before the revert step.
    stops, result = await _stops(tmp_path, "decision:revert", "decision:reject", epochs=0, clarify=0)
    assert result == "reverted None"
    assert stops == [("revert", "decision:revert after program_generator")]


def test_break_on_the_command_line_reaches_the_app(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import qflow_tui.ui.app as ui_app
    from qflow_tui.cli import main

    made: list[object] = []

    class FakeApp:
        def __init__(self, breakpoints: list[object]) -> None:
            self.breakpoints = breakpoints

        def run(self) -> int:
            made.append(self)
            return 0

    monkeypatch.setattr(ui_app, "create_app", lambda *a, **k: FakeApp(k.get("breakpoints") or []))
    assert main(["--break", "agent:self_debugger", "--break", "decision:reject"]) == 0
    (app,) = made
    assert [str(b) for b in app.breakpoints] == ["agent:self_debugger", "decision:reject"]  # type: ignore[attr-defined]
    assert main(["--break", "decision:accept"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("qflow: --break: breakpoint 'decision:accept'") and err.count("\n") == 1
    assert len(made) == 1


async def test_progressions_queued_at_the_gate_still_meet_their_breakpoint_after_continue() -> None:
    """agent:self_debugger stops before every progression's self-debugger, also those
    that came to the gate while the run was stopped at the first one."""
    waits: list[tuple[str, int | None]] = []
    gate = StepGate(breakpoints=["agent:self_debugger"])
    gate.on_wait = lambda step: waits.append((step, gate.waiting_progression))
    tasks = [asyncio.create_task(gate.checkpoint("self_debug:1", p, "self_debugger")) for p in range(3)]
    for _ in range(5):
        await asyncio.sleep(0)
    assert waits == [("self_debug:1", 0)] and not any(t.done() for t in tasks)
    for passed in range(3):
        await gate.resume()
        for _ in range(5):
            await asyncio.sleep(0)
        assert [t.done() for t in tasks] == [p <= passed for p in range(3)]
        if passed < 2:
            assert gate.stepping and gate.stopped_by == "agent:self_debugger"
            assert waits[-1] == ("self_debug:1", passed + 1)
    assert not gate.stepping and gate.stopped_by is None
