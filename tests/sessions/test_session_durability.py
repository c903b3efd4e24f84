"""A session survives its writer: a real `qflow solve` process killed with
SIGKILL leaves a file that replays up to the last full event. And no API key
from the environment ever reaches a session file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from qflow_tui.core.session import export_session, read_session
from qflow_tui.data.demo import responder
from tests.helpers import qflow
from tests.sessions.support import ROOT, record_demo

MARKER_A = "sk-ant-MARKER-0123456789abcdefghijklmnopqrstuv"
MARKER_O = "sk-openai-MARKER-9876543210"

BLOCKING_RESPONDER = """
import os, sys, time
sys.path.insert(0, {root!r})
from qflow_tui.data.demo import responder

STREAM_DELAY = {delay}

def respond(request):
    if request["agent"] == {block_at!r}:
        open({ready!r}, "w").close()
        time.sleep(600)  # hold the whole process here until it is killed
    return responder.respond(request)
"""


def problem_files(tmp_path: Path) -> tuple[Path, Path]:
    problem = tmp_path / "problem.txt"
    tests = tmp_path / "tests.py"
    problem.write_text(responder.STATEMENT)
    tests.write_text("\n".join(responder.VISIBLE_TESTS) + "\n")
    return problem, tests


def start_solve(tmp_path: Path, script: Path, env_extra: dict | None = None) -> subprocess.Popen:
    problem, tests = problem_files(tmp_path)
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "qflow_tui.cli",
            "solve",
            "--problem",
            str(problem),
            "--tests",
            str(tests),
            "--model",
            f"script/{script}",
            "--prompts",
            "2",
            "--session-dir",
            str(tmp_path / "sessions"),
            "--json",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def wait_for(condition, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if proc.poll() is not None:
            raise AssertionError(f"qflow exited early ({proc.returncode}): {proc.stderr.read().decode()[-800:]}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("timed out waiting for the run")
        time.sleep(0.02)


def the_session(tmp_path: Path) -> Path:
    (path,) = list((tmp_path / "sessions").glob("*.jsonl"))
    return path


def whole_lines(path: Path) -> list[dict]:
    raw = path.read_bytes()
    body = raw[: raw.rfind(b"\n") + 1].decode()
    return [json.loads(line) for line in body.splitlines()]


def story(events) -> tuple[list[dict], dict[str, int]]:
    """The events other than streamed text, and how much text each call streamed."""
    streamed: dict[str, int] = {}
    for e in events:
        if e.kind == "text_delta":
            streamed[e.call_id] = streamed.get(e.call_id, 0) + len(e.text)
    return [e.to_dict() for e in events if e.kind != "text_delta"], streamed


def story_on_disk(lines: list[dict]) -> tuple[list[dict], dict[str, int]]:
    """The same, from the lines of a compact session: a call's stream is known
    once its end is on disk."""
    ended = {line["call_id"] for line in lines if line["kind"] in ("llm_call_finished", "llm_call_failed")}
    streamed: dict[str, int] = {}
    for line in lines:
        if line["kind"] == "text_deltas" and line["call_id"] in ended:
            streamed[line["call_id"]] = sum(c[2] for c in line["d"])
    return [line for line in lines if line["kind"] != "text_deltas"], {k: v for k, v in streamed.items() if v}


def test_sigkill_mid_run_leaves_a_session_that_replays_to_the_last_full_event(tmp_path):
    ready = tmp_path / "ready"
    script = tmp_path / "blocking.py"
    script.write_text(BLOCKING_RESPONDER.format(root=str(ROOT), delay=0.0, block_at="self_debugger", ready=str(ready)))
    proc = start_solve(tmp_path, script)
    try:
        wait_for(ready.exists, proc)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    path = the_session(tmp_path)
    data = read_session(path)
    on_disk = whole_lines(path)
    # Everything up to the call in flight is there, and nothing is lost.
    assert story(data.events) == story_on_disk(on_disk[1:])
    assert data.warnings == []
    last = data.events[-1]
    assert (last.kind, last.agent, last.step) == ("llm_call_started", "self_debugger", "self_debug:1")
    kinds = {e.kind for e in data.events}
    assert {"run_started", "tests_designed", "tqc_verdict", "sandbox_run"} <= kinds and "run_finished" not in kinds
    summary = data.summary()
    assert summary["outcome"] == "incomplete" and summary["llm_calls"] > 10
    # The CLI says the same, and replays it.
    out = qflow("replay", str(path), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["outcome"] == "incomplete"


def test_sigkill_at_any_moment_keeps_a_valid_prefix(tmp_path):
    """Killed while text streams in (no hand-picked moment): whatever is on
    disk is a valid prefix; at most the line being written is lost."""
    script = tmp_path / "slow.py"
    script.write_text(
        BLOCKING_RESPONDER.format(root=str(ROOT), delay=0.001, block_at="none", ready=str(tmp_path / "x"))
    )
    proc = start_solve(tmp_path, script)
    try:
        wait_for(
            lambda: any((tmp_path / "sessions").glob("*.jsonl")) and len(whole_lines(the_session(tmp_path))) > 40, proc
        )
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    path = the_session(tmp_path)
    data = read_session(path)
    complete = whole_lines(path)[1:]
    assert story(data.events) == story_on_disk(complete)
    assert [e.seq for e in data.events] == sorted({e.seq for e in data.events})
    assert data.warnings == [] or data.warnings[0].startswith("truncated last line")


def test_api_keys_in_the_environment_never_reach_a_session_file(tmp_path):
    """A real `qflow solve` with both keys set to markers; the scripted model
    even repeats them in its answers. No file the run wrote holds either."""
    script = tmp_path / "leaky.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import os, sys
            sys.path.insert(0, {str(ROOT)!r})
            from qflow_tui.data.demo import responder

            def respond(request):
                leak = " (env: " + os.environ["ANTHROPIC_API_KEY"] + " " + os.environ["OPENAI_API_KEY"] + ")"
                return responder.respond(request) + leak
            """
        )
    )
    env = {"ANTHROPIC_API_KEY": MARKER_A, "OPENAI_API_KEY": MARKER_O}
    proc = start_solve(tmp_path, script, env)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()
    path = Path(json.loads(out)["session"])
    text = path.read_text()
    assert "[redacted]" in text
    md = tmp_path / "t.md"
    export_session(path, md)
    for f in [*(tmp_path / "sessions").rglob("*"), md]:
        content = f.read_bytes()
        assert MARKER_A.encode() not in content and MARKER_O.encode() not in content, f
        assert b"MARKER" not in content, f


async def test_in_process_runs_redact_keys_too(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER_A)
    monkeypatch.setenv("OPENAI_API_KEY", MARKER_O)
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-MARKER-abcdefgh")
    from qflow_tui.core.llm.script import ScriptClient

    def respond(request):
        return responder.respond(request) + f"\n{MARKER_A} {MARKER_O} tok-MARKER-abcdefgh"

    outcome, _ = await record_demo(tmp_path, client=ScriptClient.from_function(respond))
    assert "MARKER" not in Path(outcome.session).read_text()  # noqa: ASYNC240


def test_key_shapes_are_redacted_even_when_not_in_the_environment():
    from qflow_tui.core.session import redact

    text = redact("key sk-ant-api03-" + "x" * 40 + " and http://user:pa55word@host/v1 and sk-short", [])
    assert "x" * 40 not in text and "pa55word" not in text and "sk-short" in text
