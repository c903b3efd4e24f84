"""The steering desk: the rules of steering a live run, driven without a screen."""

from __future__ import annotations

import asyncio

import pytest

from qflow_tui.core import events as ev
from qflow_tui.core.config import RunConfig
from qflow_tui.core.pieces import SynthTests
from qflow_tui.core.problem import make_problem
from qflow_tui.core.run_state import RunState
from qflow_tui.core.steer.desk import SteeringDesk, stop_words
from qflow_tui.core.steer.edits import SteerError, Steering
from qflow_tui.core.steer.gate import StepGate, Stop
from qflow_tui.core.workflows import WORKFLOWS

PROBLEM = make_problem(
    "Remove the first and last occurrence of a character.",
    'assert remove_Occ("hello","l") == "heo"\n',
)
PROGRAM = "def remove_Occ(s, ch):\n    return s\n"


async def _held(desk: SteeringDesk, stop: Stop) -> asyncio.Task[None]:
    """Hold the run at ``stop`` (as a workflow arriving at the gate in step mode)."""
    task = asyncio.create_task(desk.gate.checkpoint(stop))
    for _ in range(5):
        await asyncio.sleep(0)
    assert desk.stop == stop
    return task


def _desk(config: RunConfig | None = None) -> SteeringDesk:
    return SteeringDesk(StepGate(stepping=True), Steering(), config or RunConfig(), PROBLEM)


def _state(workflow: str = "qualityflow") -> RunState:
    state = RunState()
    described = WORKFLOWS[workflow].described(RunConfig(workflow=workflow))
    state.apply(ev.RunStarted(workflow=workflow, model="script/x", config={}, problem={}, **described))
    state.apply(
        ev.ProgramCandidate(step="program_generator", agent="program_generator", progression=0, program=PROGRAM)
    )
    state.apply(
        ev.TestsDesigned(step="test_designer", agent="test_designer", round=1, tests=["T1", "T2", "T3"], total=3)
    )
    state.apply(
        ev.TQCVerdict(step="test_quality_checker", agent="test_quality_checker", index=0, test="T1", verdict="kept")
    )
    state.apply(
        ev.TQCVerdict(step="test_quality_checker", agent="test_quality_checker", index=1, test="T2", verdict="rejected")
    )
    return state


async def test_nothing_is_offered_while_the_run_goes_or_after_it_ended() -> None:
    desk = _desk()
    assert desk.stop is None and not any(desk.offers(e) for e in ("program", "verdict", "tests", "statement"))
    with pytest.raises(SteerError, match="the run is not stopped"):
        desk.override_verdict(True)
    task = await _held(desk, Stop("program_generator", 0, "code_quality_checker", check=True))
    desk.running = False
    assert desk.stop is None and desk.pending_tests() == {}
    await desk.gate.resume()
    await task


async def test_what_the_workflow_takes_where_it_is_held() -> None:
    desk = _desk(RunConfig().replace(clarify=0))
    task = await _held(desk, Stop("program_generator", 0, "code_quality_checker", check=True))
    assert desk.offers("program") and desk.offers("verdict") and desk.offers("tests")
    assert not desk.offers("statement")  # no clarifier reads it with clarify=0
    await desk.gate.step()
    await task
    # A step of the whole run: no progression's program or verdict to edit there.
    shared = await _held(desk, Stop("test_designer", None, "test_designer"))
    assert not desk.offers("program") and not desk.offers("verdict") and desk.offers("tests")
    await desk.gate.resume()
    await shared
    # Zero-shot takes no edits at all.
    zero = _desk(RunConfig(workflow="zeroshot"))
    held = await _held(zero, Stop("program_generator", 0, "program_generator"))
    assert not any(zero.offers(e) for e in ("program", "verdict", "tests", "statement"))
    with pytest.raises(SteerError, match="zeroshot takes no program edit at program_generator"):
        zero.edit_program(PROGRAM)
    await zero.gate.resume()
    await held


async def test_programs_and_verdicts() -> None:
    desk, state = _desk(), _state()
    task = await _held(desk, Stop("program_generator", 0, "code_quality_checker", check=True))
    edit = desk.program_edit(state)
    assert (edit.step, edit.progression, edit.text) == ("program_generator", 0, PROGRAM)
    assert edit.how == "checked in place of program_generator's answer"
    with pytest.raises(SteerError, match="not valid Python"):
        desk.edit_program("def (:")
    assert "Program of p0 edited" in desk.edit_program("def remove_Occ(s, ch):\n    return ''\n")
    assert desk.steering.programs == {("program_generator", 0): "def remove_Occ(s, ch):\n    return ''\n"}
    assert desk.program_edit(state).text.endswith("return ''\n")  # the edit waiting is what the editor opens on
    assert "p0's next check: reject" in desk.override_verdict(False)
    assert desk.steering.next_verdicts == {0: False}
    assert "Override undone" in desk.override_verdict(False) and desk.steering.next_verdicts == {}
    await desk.gate.resume()
    await task


async def test_the_first_program_stands_in_for_its_agents_answer() -> None:
    desk, state = _desk(), _state()
    task = await _held(desk, Stop("program_generator", 0, "program_generator"))
    assert desk.program_edit(state).how == "in place of the program generator's answer"
    await desk.gate.resume()
    await task


async def test_the_synthesized_tests() -> None:
    desk, state = _desk(), _state()
    t1, t2, t3 = state.piece(SynthTests).tests
    task = await _held(desk, Stop("self_debug:1", 0, "self_debugger"))
    with pytest.raises(SteerError, match="not been judged yet"):
        desk.toggle_test_verdict(t3)
    assert desk.toggle_test_verdict(t2).startswith("Test kept over its judge")
    assert desk.toggle_test_verdict(t1).startswith("Test dropped over its judge")
    assert desk.pending_tests() == {"T2": "keep", "T1": "drop"}
    assert desk.toggle_test_verdict(t1).startswith("Undone")
    assert desk.delete_test(t3).startswith("Test deleted")
    with pytest.raises(SteerError, match=r"this test is deleted \(not yet taken\): press d to undo that"):
        desk.toggle_test_verdict(t3)
    assert desk.delete_test(t3).startswith("Undone") and "T3" not in desk.steering.test_edits
    assert desk.edit_test(t1, "T1") == "The test is as it was: no edit."
    with pytest.raises(SteerError, match="the test"):
        desk.edit_test(t1, "assert other(1) == 2")
    assert desk.edit_test(t1, 'assert remove_Occ("aa","a") == ""').startswith("Test edited (kept)")
    assert desk.pending_tests() == {"T2": "keep", "T1": "edit"}
    assert desk.add_test('assert remove_Occ("xyx","x") == "y"').startswith("Test added")
    assert desk.steering.added_tests == ['assert remove_Occ("xyx","x") == "y"']
    await desk.gate.resume()
    await task


async def test_the_statement() -> None:
    desk = _desk()
    task = await _held(desk, Stop("clarifier:1", 0, "clarifier"))
    assert desk.statement_text() == PROBLEM.statement
    with pytest.raises(SteerError, match="the statement is empty"):
        desk.edit_statement("  ")
    assert desk.edit_statement(PROBLEM.statement) == "The statement is as it was: no edit."
    said = desk.edit_statement("Remove the first and the last occurrence.")
    assert said == (
        "Statement edited: the clarifier and the clarified generator (the other agents keep the original) read it."
    )
    assert desk.statement_text() == "Remove the first and the last occurrence."
    await desk.gate.resume()
    await task


def test_breakpoints_from_the_timeline() -> None:
    desk, state = _desk(), _state()
    assert desk.toggle_breakpoint("step", "self_debug:2", state) == (
        "Breakpoint set: step:self_debug:2. The run stops before self_debug:2."
    )
    assert desk.toggle_breakpoint("agent", "self_debug:1", state).startswith("Breakpoint set: agent:self_debugger")
    assert desk.marked_steps(state) == frozenset({"self_debug:1", "self_debug:2", "self_debug:3"})
    assert desk.toggle_breakpoint("step", "self_debug:2", state) == "Breakpoint removed: step:self_debug:2."
    with pytest.raises(SteerError, match="no agent works in revert"):
        desk.toggle_breakpoint("agent", "revert", state)


def test_a_stop_in_words() -> None:
    state = _state()
    assert stop_words(Stop("self_debug:1", 2, "self_debugger"), state) == "before self-debug 1 (p2)"
    check = Stop("program_generator", 0, "code_quality_checker", check=True)
    assert stop_words(check, state) == "before checking generate (p0)"
    assert stop_words(Stop("test_designer", None, "test_designer"), state) == "before design tests"
