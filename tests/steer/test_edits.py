"""Edits beyond a program and a Code Quality Checker verdict: a Test Quality
Checker verdict overridden, synthesized tests deleted / added / replaced, the
statement the clarifier path reads. Each changes the downstream run (the
assertions would fail if the edit were ignored) and is a ``steered`` event."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from qflow_tui.core.config import RunConfig
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.problem import make_problem
from qflow_tui.core.session import read_session
from qflow_tui.core.steer import Steering
from qflow_tui.core.steer.gate import StepGate, Stop
from qflow_tui.core.workflow_run import run_workflow

if TYPE_CHECKING:
    from steer_recorded import Recorded

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "mbpp11"
STORY = ROOT / "tests" / "scripts" / "mbpp11.py"

#: Tests 1-8 of the recorded run are right (each fails the first, buggy program);
#: 9 and 10 are the two wrong ones the Test Quality Checker drops.
GOOD = [str(n) for n in range(1, 9)]


def _fork(recorded: Recorded, *args: str) -> tuple[dict[str, Any], Any]:
    out = recorded.qflow(
        "fork", str(recorded.path), *args, "--session-dir", str(recorded.sessions), "--json"
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    return result, read_session(result["session"])


def _flags(flag: str, numbers: list[str]) -> list[str]:
    return [a for n in numbers for a in (flag, n)]


def _debug_totals(session: Any) -> list[int]:
    return [e.total for e in session.events if e.kind == "sandbox_run" and e.purpose in ("self_debug", "after_debug")]


def test_dropping_every_kept_test_leaves_nothing_to_debug_so_the_clarifier_takes_over(recorded: Recorded) -> None:
    # The parent debugged against 8 kept tests and was accepted at self_debug:1.
    assert recorded.summary["accepted_at"] == "self_debug:1"
    result, fork = _fork(recorded, "--at", "self_debug:1", *_flags("--drop-test", GOOD))
    assert (result["outcome"], result["accepted_at"]) == ("accepted", "clarifier:1")
    live = recorded.live_calls()
    assert "self_debugger" not in live and "clarifier" in live
    steered = [e for e in fork.events if e.kind == "steered"]
    assert [(e.what, e.before, e.after) for e in steered] == [("test verdict", "kept", "rejected")] * 8
    assert steered[0].test.startswith('assert remove_Occ("banana", "a")') and steered[0].step == "self_debug:1"
    # The clarifier is told the dropped tests are the rejected ones.
    (clarifier,) = [e for e in fork.events if e.kind == "llm_call_started" and e.agent == "clarifier"]
    assert 'remove_Occ("banana", "a")' in clarifier.messages[-1]["content"].split("rejected as wrong")[1]


def test_keeping_a_test_the_tqc_dropped_puts_it_before_the_self_debugger(recorded: Recorded) -> None:
    result, fork = _fork(recorded, "--at", "self_debug:1", "--keep-test", "10")
    assert result["accepted_at"] == "self_debug:1"
    # Nine kept tests now, the wrong 'aaaa' one among them, in the debugger's feedback.
    assert _debug_totals(fork) == [9, 9]
    (debug,) = [e for e in fork.events if e.kind == "llm_call_started" and e.agent == "self_debugger"]
    assert 'remove_Occ("aaaa", "a")' in debug.messages[-1]["content"]
    assert [(e.what, e.after) for e in fork.events if e.kind == "steered"] == [("test verdict", "kept")]


def test_deleting_and_adding_tests_changes_what_the_debugger_runs(recorded: Recorded) -> None:
    added = 'assert remove_Occ("abca", "a") == "bc"'
    result, fork = _fork(recorded, "--at", "self_debug:1", *_flags("--delete-test", GOOD), "--add-test", added)
    # One kept test, the added one: the buggy program fails it, the debugger fixes it.
    assert result["accepted_at"] == "self_debug:1"
    assert _debug_totals(fork) == [1, 1]
    whats = [(e.what, bool(e.before), bool(e.after)) for e in fork.events if e.kind == "steered"]
    assert whats == [("test", True, False)] * 8 + [("test", False, True)]


def test_a_tests_file_replaces_the_synthesized_tests(recorded: Recorded) -> None:
    replaced = recorded.tmp / "tests.py"
    # Tests the buggy first program passes (each character occurs once): nothing to debug.
    replaced.write_text('assert remove_Occ("abc", "b") == "ac"\nassert remove_Occ("xyz", "q") == "xyz"\n')
    result, fork = _fork(recorded, "--at", "self_debug:1", "--tests-file", str(replaced))
    assert result["accepted_at"] == "clarifier:1"
    (steered,) = [e for e in fork.events if e.kind == "steered"]
    assert steered.what == "tests" and steered.after.splitlines() == replaced.read_text().splitlines()
    assert [e.total for e in fork.events if e.kind == "sandbox_run" and e.purpose == "self_debug"] == [2]


STATEMENT_RESPONDER = """
import importlib.util

spec = importlib.util.spec_from_file_location("mbpp11_story", {story!r})
story = importlib.util.module_from_spec(spec)
spec.loader.exec_module(story)


def respond(request):
    # The clarified generator writes the right program only when the statement it
    # reads says which occurrences; otherwise it repeats the first program's mistake.
    if request["agent"] == "program_generator" and request.get("attempt"):
        prompt = request["messages"][-1]["content"]
        program = story.FIXED if "BOTH the first and the last" in prompt else story.BUGGY
        return "```python\\n" + program + "```"
    return story.respond(request)
"""


def test_an_edited_statement_reaches_the_clarifier_and_the_clarified_generator(recorded: Recorded) -> None:
    responder = recorded.tmp / "statement_responder.py"
    responder.write_text(STATEMENT_RESPONDER.format(story=str(STORY)))
    statement = recorded.tmp / "statement.txt"
    statement.write_text("Remove BOTH the first and the last occurrence of the character from the string.\n")
    common = ["--at", "self_debug:1", *_flags("--drop-test", GOOD), "--model", f"script/{responder}"]
    plain, _ = _fork(recorded, *common)
    assert plain["outcome"] == "reverted"
    result, fork = _fork(recorded, *common, "--statement-file", str(statement))
    assert (result["outcome"], result["accepted_at"]) == ("accepted", "clarifier:1")
    (steered,) = [e for e in fork.events if e.kind == "steered" and e.what == "statement"]
    assert steered.before.startswith("Write a python function") and steered.after.startswith("Remove BOTH")
    prompts = [
        e.messages[-1]["content"]
        for e in fork.events
        if e.kind == "llm_call_started" and e.agent in ("clarifier", "program_generator") and e.attempt
    ]
    assert len(prompts) == 2 and all("Remove BOTH the first and the last" in p for p in prompts)
    # The other agents keep the original statement.
    first = next(e for e in fork.events if e.kind == "llm_call_started" and e.agent == "program_generator")
    assert "Remove BOTH" not in first.messages[-1]["content"]


def test_test_and_statement_mistakes_are_one_line(recorded: Recorded) -> None:
    def fails(*args: str) -> str:
        out = recorded.qflow("fork", str(recorded.path), "--at", "self_debug:1", *args)
        assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
        return out.stderr

    assert "has synthesized tests 1 to 10" in fails("--keep-test", "11")
    assert "is also given to --keep-test" in fails("--keep-test", "10", "--drop-test", "10")
    assert "did not drop test 3; keep a test it dropped" in fails("--keep-test", "3")
    assert "dropped test 9 already" in fails("--drop-test", "9")
    assert "does not call remove_Occ()" in fails("--add-test", "assert len('a') == 1")
    bad = recorded.tmp / "bad.py"
    bad.write_text("print('hi')\n")
    assert "every test must be one assert" in fails("--tests-file", str(bad))
    empty = recorded.tmp / "empty.txt"
    empty.write_text("  \n")
    assert "is empty" in fails("--statement-file", str(empty))
    assert "--tests-file replaces every synthesized test" in fails("--tests-file", str(bad), "--drop-test", "1")
    assert recorded.live_calls() == []


async def test_edits_put_into_the_steering_while_the_gate_holds_the_run_are_taken_when_it_goes_on(
    tmp_path: Path,
) -> None:
    """What the app does at a live stop: the run is held before the quality check of
    the first program; a person's program and test edits go into the run's Steering;
    the run takes them when it goes on."""
    problem = make_problem((DATA / "problem.txt").read_text(), (DATA / "tests.py").read_text())
    config = RunConfig(model=f"script/{STORY}").replace(prompts=1)
    gate = StepGate(breakpoints=["check:all"])
    steering = Steering()
    stops: list[str] = []
    stopped = asyncio.Event()

    def waiting(stop: Stop) -> None:
        stops.append(f"check:{stop.step}" if stop.check else stop.step)
        stopped.set()

    gate.on_wait = waiting
    run = asyncio.create_task(
        run_workflow(problem, config, gate=gate, steering=steering, session_dir=tmp_path, client=ScriptClient(STORY))
    )
    await asyncio.wait_for(stopped.wait(), 30)
    assert stops == ["check:program_generator"] and gate.waiting_progression == 0
    fixed = (
        "def remove_Occ(s, ch):\n"
        "    i = s.find(ch)\n"
        "    s = s if i < 0 else s[:i] + s[i + 1:]\n"
        "    j = s.rfind(ch)\n"
        "    return s if j < 0 else s[:j] + s[j + 1:]\n"
    )
    steering.programs[("program_generator", 0)] = fixed
    gate.breakpoints = []
    await gate.resume()
    outcome = await asyncio.wait_for(run, 30)
    # The edited program was checked, accepted at once: no tests designed, no debugging.
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "program_generator")
    assert outcome.final_program == fixed and not steering
    session = read_session(str(outcome.session))
    (steered,) = [e for e in session.events if e.kind == "steered"]
    assert (steered.what, steered.step, steered.progression) == ("program", "program_generator", 0)
    assert "find(ch)" in steered.before and steered.after == fixed


@pytest.mark.parametrize("text", ["assert remove_Occ('a', 'a') == ''\nassert remove_Occ('b', 'b') == ''", "1 +"])
def test_check_test_wants_one_assert(text: str) -> None:
    from qflow_tui.core.steer.edits import SteerError, check_test

    with pytest.raises(SteerError):
        check_test(text, "remove_Occ")
