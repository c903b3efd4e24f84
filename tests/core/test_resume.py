"""``qflow solve --resume SESSION``: a run that failed for good is run again
with its recorded problem and settings, every call it finished answered from
the recording (no tokens), the rest asked of the live model."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from qflow_tui.core.session import read_session
from tests.helpers import qflow, write_logging_mbpp11

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "mbpp11"


def solve(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return qflow("solve", *args, cwd=cwd)


def test_resume_reuses_every_finished_call_and_asks_only_for_the_rest(tmp_path):
    responder = tmp_path / "responder.py"
    write_logging_mbpp11(responder)
    (tmp_path / "down").write_text("")
    sessions = tmp_path / "sessions"
    first = solve(
        "--problem",
        str(DATA / "problem.txt"),
        "--tests",
        str(DATA / "tests.py"),
        "--model",
        f"script/{responder}",
        "--prompts",
        "2",
        "--session-dir",
        str(sessions),
        "--json",
        cwd=tmp_path,
    )
    # Failing for good, --json still prints one object: the reason, the session, what finished.
    assert first.returncode == 1
    summary = json.loads(first.stdout)
    assert "the provider is down for good" in summary["error"] and summary["outcome"] == "failed"
    (failed,) = sessions.glob("*.jsonl")
    assert summary["session"] == str(failed)
    recorded = read_session(failed)
    # Each progression's self-debugger may have asked before the first failure ended
    # the run: the count is of the failed calls the session shows, one at least.
    failed_calls = sum(1 for e in recorded.events if e.kind == "llm_call_failed")
    assert summary["llm_calls"] > 0 and summary["stops"]["failed"] == failed_calls >= 1
    assert recorded.events[-1].kind == "run_failed"
    finished_before = sum(1 for e in recorded.events if e.kind == "llm_call_finished")
    live_before = (tmp_path / "live.log").read_text().splitlines()
    # A call answered but cut mid-stream (the run ended while it streamed) is
    # in the log and did not finish.
    cut_before = sum(1 for e in recorded.events if e.kind == "llm_call_failed" and e.stop_reason == "cancelled")
    assert 0 < finished_before <= len(live_before) <= finished_before + cut_before

    (tmp_path / "down").unlink()
    (tmp_path / "live.log").unlink()
    again = solve("--resume", str(failed), "--session-dir", str(sessions), "--json", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    result = json.loads(again.stdout)
    assert (result["outcome"], result["accepted_at"], result["progression"]) == ("accepted", "self_debug:1", 0)
    live = (tmp_path / "live.log").read_text().splitlines()
    # Only what the failed run never finished was asked of the model again.
    assert live and set(live) == {"self_debugger", "code_quality_checker"}
    # ... less any call of progression 1 cut mid-stream once progression 0 was
    # accepted (whether one is depends on timing).
    cut = result["stops"].get("cancelled", 0)
    assert finished_before + len(live) - cut <= result["llm_calls"] <= finished_before + len(live)
    resumed = read_session(result["session"])
    assert resumed.path != failed and resumed.header["config"]["fallback_model"] == f"script/{responder}"
    notices = [e.message for e in resumed.events if e.kind == "notice"]
    assert f"{finished_before} calls answered from the recording, {len(live)} asked of script/{responder}" in notices


def test_a_failed_run_says_where_its_session_is_and_how_to_resume(tmp_path):
    responder = tmp_path / "responder.py"
    write_logging_mbpp11(responder)
    (tmp_path / "down").write_text("")
    out = solve(
        "--problem",
        str(DATA / "problem.txt"),
        "--tests",
        str(DATA / "tests.py"),
        "--model",
        f"script/{responder}",
        "--prompts",
        "1",
        "--session-dir",
        str(tmp_path / "s"),
        cwd=tmp_path,
    )
    assert out.returncode == 1
    (session,) = (tmp_path / "s").glob("*.jsonl")
    assert f"qflow: session: {session} (resume it with: qflow solve --resume {session})" in out.stderr


def test_resume_of_something_that_is_not_a_session_is_one_line(tmp_path):
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not a session\n")
    out = solve("--resume", str(junk), cwd=tmp_path)
    assert out.returncode == 2 and out.stderr.startswith("qflow: ") and out.stderr.count("\n") == 1
    both = solve("--resume", str(junk), "--problem", "mbpp/11", cwd=tmp_path)
    assert "leave out --problem and --tests" in both.stderr
    neither = solve(cwd=tmp_path)
    assert "or --resume SESSION" in neither.stderr


def test_one_replayed_call_reads_in_the_singular():
    from qflow_tui.core.workflow_run import _calls

    assert (_calls(0), _calls(1), _calls(2)) == ("0 calls", "1 call", "2 calls")
