"""``qflow fork``: the recording answers everything before the branch step
(zero model calls there), the live model everything from it on; edits change
the downstream run; the fork names its parent and the original is untouched."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qflow_tui.core.session import read_session
from qflow_tui.core.session.listing import session_info
from qflow_tui.core.steer.fork import branch_point

if TYPE_CHECKING:
    from steer_recorded import Recorded


def _shape(events: list[Any]) -> list[tuple[Any, ...]]:
    """What a run did, without times and ids."""
    out = []
    for e in events:
        if e.kind in ("text_delta", "notice", "run_started"):
            continue
        detail = getattr(e, "response", None) or getattr(e, "program", None) or getattr(e, "decision", None)
        out.append((e.kind, e.step, e.agent, e.progression, detail))
    return out


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_fork_at_a_step_spends_no_call_before_it_and_reproduces_the_parent(recorded: Recorded) -> None:
    parent = read_session(recorded.path)
    before = _digest(recorded.path)
    point = branch_point(parent.events, "self_debug:1")
    prefix = [e for e in parent.events[: point.event_index] if e.kind == "llm_call_finished"]
    after = [e for e in parent.events[point.event_index :] if e.kind == "llm_call_started"]
    assert prefix and after
    out = recorded.qflow(
        "fork",
        str(recorded.path),
        "--at",
        "self_debug:1",
        "--session-dir",
        str(recorded.sessions),
        "--json",
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    live = recorded.live_calls()
    # Zero live calls before the branch: the model was asked exactly the calls
    # the parent made from self_debug:1 on, and nothing else.
    assert sorted(live) == sorted(e.agent for e in after)
    assert "program_generator" not in live and "test_designer" not in live and "test_quality_checker" not in live
    assert (result["outcome"], result["accepted_at"]) == ("accepted", "self_debug:1")
    fork = read_session(result["session"])
    assert f"{len(prefix)} calls answered from the recording, {len(live)} asked of script/{recorded.responder}" in [
        e.message for e in fork.events if e.kind == "notice"
    ]
    # The fork is the parent, event for event, up to the branch step.
    fork_point = branch_point(fork.events, "self_debug:1")
    assert _shape(fork.events[: fork_point.event_index]) == _shape(parent.events[: point.event_index])
    # It names its parent and the step; the browser reads the link; the parent is unchanged.
    assert fork.header["forked_at"] == "self_debug:1"
    assert fork.header["parent"]["session"] == str(recorded.path.resolve())
    assert session_info(fork.path).parent == str(recorded.path.resolve())
    assert _digest(recorded.path) == before


def test_fork_with_an_edited_program_runs_differently_downstream(recorded: Recorded) -> None:
    edited = recorded.tmp / "fixed.py"
    fixed = (
        "def remove_Occ(s, ch):\n"
        "    # Edited by hand: drop the first and the last occurrence.\n"
        "    i = s.find(ch)\n"
        "    if i != -1:\n"
        "        s = s[:i] + s[i + 1:]\n"
        "    j = s.rfind(ch)\n"
        "    return s if j == -1 else s[:j] + s[j + 1:]\n"
    )
    edited.write_text(fixed)
    out = recorded.qflow(
        "fork",
        str(recorded.path),
        "--at",
        "program_generator",
        "--program-file",
        str(edited),
        "--session-dir",
        str(recorded.sessions),
        "--json",
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    # The parent was rejected at program_generator and fixed in self_debug:1; the
    # fork's edited program passes the check at once: no tests designed, no debugging.
    assert (result["outcome"], result["accepted_at"]) == ("accepted", "program_generator")
    live = recorded.live_calls()
    assert live and set(live) == {"code_quality_checker"}
    fork = read_session(result["session"])
    assert fork.events[-1].final_program.strip() == fixed.strip()
    (steered,) = [e for e in fork.events if e.kind == "steered"]
    assert (steered.who, steered.what, steered.step, steered.progression) == ("user", "program", "program_generator", 0)
    assert steered.after == fixed
    assert not any(e.kind == "tests_designed" for e in fork.events)
    # Without --json the run's log says what was steered.
    text = recorded.qflow(
        "fork", str(recorded.path), "--at", "program_generator", "--program-file", str(edited),
        "--session-dir", str(recorded.sessions),
    )  # fmt: skip
    assert text.returncode == 0 and "[p0] program_generator: program steered by user" in text.stderr


def test_fork_with_an_overridden_verdict_accepts_what_the_checker_rejected(recorded: Recorded) -> None:
    out = recorded.qflow(
        "fork",
        str(recorded.path),
        "--at",
        "program_generator",
        "--accept",
        "--session-dir",
        str(recorded.sessions),
        "--json",
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert (result["outcome"], result["accepted_at"]) == ("accepted", "program_generator")
    # The generator's answer comes live (the branch is at its step); the checker is not asked.
    assert recorded.live_calls() == ["program_generator"]
    fork = read_session(result["session"])
    assert [(e.what, e.after) for e in fork.events if e.kind == "steered"] == [("verdict", "accept")]


def test_fork_mistakes_are_one_line(recorded: Recorded) -> None:
    unknown = recorded.qflow("fork", str(recorded.path), "--at", "self_debug:7")
    assert unknown.returncode == 2 and unknown.stderr.count("\n") == 1
    assert "no step 'self_debug:7'" in unknown.stderr
    assert "its steps: program_generator, test_designer, test_quality_checker, self_debug:1" in unknown.stderr
    bad = recorded.tmp / "bad.py"
    bad.write_text("def remove_Occ(s, ch)\n    return s\n")
    syntax = recorded.qflow("fork", str(recorded.path), "--at", "self_debug:1", "--program-file", str(bad))
    assert syntax.returncode == 2 and "not valid Python (line 1" in syntax.stderr and syntax.stderr.count("\n") == 1
    shared = recorded.qflow("fork", str(recorded.path), "--at", "test_designer", "--accept")
    assert shared.returncode == 2 and "edits apply to a progression's step" in shared.stderr
    other = recorded.qflow("fork", str(recorded.path), "--at", "self_debug:1", "--accept", "--workflow", "agentcoder")
    assert other.returncode == 2 and "agentcoder takes no edits at a fork; fork without them" in other.stderr
    assert recorded.live_calls() == []


async def test_the_fork_client_answers_the_prefix_only_and_counts_live_calls_before_the_branch(
    recorded: Recorded,
) -> None:
    from qflow_tui.core.llm import LLMRequest
    from qflow_tui.core.llm.script import ScriptClient
    from qflow_tui.core.steer.fork import ForkClient

    parent = read_session(recorded.path)
    point = branch_point(parent.events, "self_debug:1")
    asked: list[str] = []

    def live(request: dict[str, Any]) -> str:
        asked.append(request["agent"])
        return "live answer"

    client = ForkClient(recorded.path, ScriptClient.from_function(live), point)
    started = {e.call_id: e for e in parent.events if e.kind == "llm_call_started"}
    finished = {e.call_id: e for e in parent.events if e.kind == "llm_call_finished"}

    def again(call_id: str) -> LLMRequest:
        s = started[call_id]
        return LLMRequest(
            agent=s.agent, messages=s.messages, system=s.system, temperature=s.temperature, turn=s.turn,
            progression=s.progression, epoch=s.epoch, attempt=s.attempt, test=s.test, step=s.step,
        )  # fmt: skip

    first = min(point.prefix_calls, key=lambda c: started[c].seq)
    answer = await client.complete(again(first), lambda _: None)
    assert answer.text == finished[first].response and asked == []
    # A call the recording made from the branch on is asked of the live model.
    (debug,) = [c for c in started if c not in point.prefix_calls and started[c].agent == "self_debugger"]
    assert (await client.complete(again(debug), lambda _: None)).text == "live answer"
    assert asked == ["self_debugger"] and client.live_before == []
    # A call before the branch that the recording cannot answer (its prompt changed) is counted.
    changed = again(first)
    changed.messages = [{"role": "user", "content": "another prompt"}]
    await client.complete(changed, lambda _: None)
    assert len(client.live_before) == 1 and client.live_before[0].startswith(
        "program_generator (step program_generator"
    )


def test_the_demo_forks_from_any_folder(tmp_path: Path) -> None:
    """The demo names its model by the package's own file; a user outside the
    checkout forks it all the same (it said 'no such file')."""
    from helpers import qflow

    from qflow_tui.locations import demo_session

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = qflow(
        "fork",
        str(demo_session()),
        "--at",
        "self_debug:1",
        "--session-dir",
        str(tmp_path / "s"),
        "--json",
        cwd=elsewhere,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["outcome"] == "accepted"
