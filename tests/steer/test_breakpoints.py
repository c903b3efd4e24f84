"""Breakpoints: a StepGate going free stops (as step mode does) only where a
breakpoint matches, and says which one."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from qflow_tui.core.config import make_config
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.problem import make_problem
from qflow_tui.core.steer.gate import Breakpoint, BreakpointError, StepGate, Stop
from qflow_tui.core.workflow_run import run_workflow

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "mbpp11"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("self_debugger", "is not one of agent:..., step:..., check:..., progression:..., decision:..."),
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
    assert agent.matches(Stop("self_debug:1", 0, "self_debugger"))
    assert not agent.matches(Stop("self_debug:1", 0, "clarifier"))
    stage = Breakpoint.parse("step:self_debug")
    assert stage.matches(Stop("self_debug:2", 1)) and not stage.matches(Stop("program_generator", 0))
    exact = Breakpoint.parse("step:self_debug:2")
    assert exact.matches(Stop("self_debug:2", 0)) and not exact.matches(Stop("self_debug:1", 0))
    # A step breakpoint stops before the step starts, not before the check of its program.
    assert not exact.matches(Stop("self_debug:2", 0, "code_quality_checker", check=True))
    checks = Breakpoint.parse("check:all")
    assert checks.matches(Stop("self_debug:1", 0, "code_quality_checker", check=True))
    assert not checks.matches(Stop("self_debug:1", 0, "self_debugger"))
    one = Breakpoint.parse("check:self_debug")
    assert one.matches(Stop("self_debug:2", 0, "code_quality_checker", check=True))
    assert not one.matches(Stop("program_generator", 0, "code_quality_checker", check=True))
    prog = Breakpoint.parse("progression:1")
    assert prog.matches(Stop("program_generator", 1)) and not prog.matches(Stop("program_generator", 0))
    assert not prog.matches(Stop("test_designer", None, "test_designer"))


async def test_the_gate_runs_free_between_breakpoints() -> None:
    waits: list[Stop] = []
    gate = StepGate(on_wait=waits.append, breakpoints=["agent:self_debugger"])
    await asyncio.wait_for(gate.checkpoint(Stop("program_generator", 0, "program_generator")), 1)
    stop = asyncio.create_task(gate.checkpoint(Stop("self_debug:1", 0, "self_debugger")))
    for _ in range(5):
        await asyncio.sleep(0)
    assert not stop.done() and waits == [Stop("self_debug:1", 0, "self_debugger")]
    assert gate.stopped_by == "agent:self_debugger"
    await gate.resume()
    await asyncio.wait_for(stop, 1)
    assert gate.stopped_by is None and not gate.stepping
    await asyncio.wait_for(gate.checkpoint(Stop("self_debug:1", 0, "code_quality_checker", check=True)), 1)


async def _stops(tmp_path: Path, *breakpoints: str, **cfg: object) -> tuple[list[tuple[str, str | None]], str]:
    """Run the MBPP 11 story with ``breakpoints``; every stop resumed at once. Returns (step, why) per stop."""
    stops: list[tuple[str, str | None]] = []
    gate: StepGate

    def waiting(stop: Stop) -> None:
        stops.append((f"check:{stop.step}" if stop.check else stop.step, gate.stopped_by))
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


async def test_a_check_breakpoint_stops_before_every_quality_check(tmp_path: Path) -> None:
    stops, _ = await _stops(tmp_path, "check:all")
    assert stops == [
        ("check:program_generator", "check:all"),
        ("check:self_debug:1", "check:all"),
    ]


async def test_a_progression_breakpoint_stops_at_its_steps_not_the_shared_ones(tmp_path: Path) -> None:
    stops, _ = await _stops(tmp_path, "progression:0")
    assert [s for s, _ in stops] == [
        "program_generator",
        "check:program_generator",
        "self_debug:1",
        "check:self_debug:1",
    ]


async def test_a_reject_breakpoint_stops_at_the_step_after_the_rejection(tmp_path: Path) -> None:
    stops, _ = await _stops(tmp_path, "decision:reject")
    # The generator's program is rejected; the next step is the (shared) test design.
    assert stops == [("test_designer", "decision:reject after program_generator (p0)")]


async def test_a_revert_breakpoint_stops_before_the_revert(tmp_path: Path) -> None:
    # With no self-debugging and no clarifier the rejected program has nowhere to
    # go: the run reverts, and the breakpoint stops it before the revert step.
    stops, result = await _stops(tmp_path, "decision:revert", "decision:reject", epochs=0, clarify=0)
    assert result == "reverted None"
    assert stops == [("revert", "decision:revert after program_generator (p0)")]


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
    gate.on_wait = lambda stop: waits.append((stop.step, stop.progression))
    tasks = [asyncio.create_task(gate.checkpoint(Stop("self_debug:1", p, "self_debugger"))) for p in range(3)]
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


async def test_continue_lets_the_shown_stop_go_though_the_others_stop_again_first() -> None:
    """Issue 46: c lets the stop shown go on even when another progression, woken
    by the same c, meets its own breakpoint first; and the gate never names a
    stop it let go (the status line said p0 for three presses of c while p0
    stood still)."""
    waits: list[int | None] = []
    gate = StepGate(breakpoints=["agent:self_debugger"])
    gate.on_wait = lambda stop: waits.append(stop.progression)
    # p1 comes to the gate first, p0 after it: p0 is shown (the lower index goes first).
    later = asyncio.create_task(gate.checkpoint(Stop("self_debug:1", 1, "self_debugger")))
    for _ in range(5):
        await asyncio.sleep(0)
    first = asyncio.create_task(gate.checkpoint(Stop("self_debug:1", 0, "self_debugger")))
    for _ in range(5):
        await asyncio.sleep(0)
    assert gate.waiting == Stop("self_debug:1", 0, "self_debugger") and waits[-1] == 0
    await gate.resume()
    for _ in range(10):
        await asyncio.sleep(0)
    assert first.done() and not later.done()
    assert gate.waiting == Stop("self_debug:1", 1, "self_debugger") and waits[-1] == 1
    await gate.resume()
    await asyncio.wait_for(later, 1)


async def test_each_rejection_stops_the_run_once_at_the_first_step_after_it(tmp_path: Path) -> None:
    stops, result = await _stops(tmp_path, "decision:reject", prompts=4)
    assert result == "accepted self_debug:1"
    # p0's rejection stops the shared test design; each other rejection stops the
    # first step after it (a shared one, or its own progression's), once at most
    # (one that comes after p0's acceptance has ended the run stops nothing).
    assert stops[0] == ("test_designer", "decision:reject after program_generator (p0)")
    named = [p for _, why in stops for p in re.findall(r"p(\d)", why or "")]
    assert len(named) == len(set(named)), stops


async def test_next_lets_exactly_the_shown_stop_through() -> None:
    gate = StepGate(stepping=True)
    tasks = [asyncio.create_task(gate.checkpoint(Stop("program_generator", p, "program_generator"))) for p in range(3)]
    for _ in range(5):
        await asyncio.sleep(0)
    for passed in range(3):
        assert gate.waiting is not None and gate.waiting.progression == passed
        await gate.step()
        for _ in range(5):
            await asyncio.sleep(0)
        assert [t.done() for t in tasks] == [p <= passed for p in range(3)]
