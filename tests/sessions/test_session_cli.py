"""`qflow sessions`, `qflow replay` and `qflow demo` for scripts: JSON outputs,
exit codes and one-line reasons (never a traceback)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qflow_tui.cli import main
from qflow_tui.commands.demo import demo_session
from qflow_tui.core.session import read_session
from tests.helpers import qflow
from tests.sessions.support import RESPONDER

SOLVE_KEYS = {
    "final_program",
    "outcome",
    "accepted_at",
    "progression",
    "llm_calls",
    "tokens",
    "session",
    "duration",
    "warnings",
    "stops",
    "cut_calls",
    "cost",
}


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    """A sessions folder with two sessions (one killed half-way) and a stray file."""
    data = tmp_path / "data"
    sessions = data / "sessions"
    sessions.mkdir(parents=True)
    monkeypatch.setenv("QFLOW_DATA_DIR", str(data))
    raw = demo_session().read_text()
    header, rest = raw.split("\n", 1)
    h = json.loads(header)
    (sessions / "a-finished.jsonl").write_text(json.dumps({**h, "created": "2026-02-01T10:00:00+0000"}) + "\n" + rest)
    lines = rest.splitlines(keepends=True)
    (sessions / "b-killed.jsonl").write_text(
        json.dumps({**h, "created": "2026-02-02T10:00:00+0000", "title": "Killed run"})
        + "\n"
        + "".join(lines[:50])
        + lines[50][:30]
    )
    (sessions / "c-stray.jsonl").write_text("just some text\n")
    return sessions


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("qflow: ")
    return lines[0]


def test_sessions_json_lists_every_session_newest_first(capsys, folder):
    code, out, _ = run(capsys, "sessions", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["dir"] == str(folder)
    assert [Path(s["path"]).name for s in data["sessions"]] == ["b-killed.jsonl", "a-finished.jsonl"]
    killed, done = data["sessions"]
    assert set(done) >= {
        "path",
        "created",
        "title",
        "model",
        "workflow",
        "outcome",
        "accepted_at",
        "tokens",
        "llm_calls",
        "duration",
        "warnings",
    }
    assert (done["outcome"], done["accepted_at"], done["llm_calls"]) == ("accepted", "self_debug:1", 40)
    assert done["tokens"]["input"] > 0 and done["tokens"]["output"] > 0 and done["duration"] > 0
    assert killed["outcome"] == "incomplete" and any("truncated" in w for w in killed["warnings"])
    assert data["unreadable"] == [
        {"path": str(folder / "c-stray.jsonl"), "reason": "not a qflow session (the first line is not a JSON header)"}
    ]


def test_sessions_search_and_table(capsys, folder):
    code, out, _ = run(capsys, "sessions", "--json", "--search", "killed")
    assert [s["title"] for s in json.loads(out)["sessions"]] == ["Killed run"]
    code, out, _ = run(capsys, "sessions")
    assert code == 0
    assert "Killed run" in out and "accepted @ self_debug:1" in out and "incomplete" in out
    assert "skipped c-stray.jsonl" in out


def test_sessions_in_an_empty_or_missing_folder(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("QFLOW_DATA_DIR", str(tmp_path / "nothing"))
    code, out, _ = run(capsys, "sessions", "--json")
    assert code == 0 and json.loads(out)["sessions"] == []
    code, out, _ = run(capsys, "sessions")
    assert code == 0 and "No sessions" in out and "qflow demo" in out
    code, _, err = run(capsys, "sessions", "--dir", str(tmp_path / "missing"))
    assert code == 2 and "no such folder" in one_line_error(err)


def test_replay_json_is_the_solve_shape_plus_warnings(capsys, folder):
    code, out, _ = run(capsys, "replay", str(folder / "a-finished.jsonl"), "--json")
    assert code == 0
    summary = json.loads(out)
    assert set(summary) == SOLVE_KEYS
    assert (summary["outcome"], summary["accepted_at"], summary["progression"], summary["warnings"]) == (
        "accepted",
        "self_debug:1",
        0,
        [],
    )
    assert "rfind" in summary["final_program"]


def test_replay_json_of_a_truncated_session_warns(capsys, folder):
    code, out, _ = run(capsys, "replay", str(folder / "b-killed.jsonl"), "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["outcome"] == "incomplete"
    assert summary["warnings"][0].startswith("truncated last line")


def test_replay_by_number_in_the_listing(capsys, folder):
    code, out, _ = run(capsys, "replay", "2", "--json")
    assert code == 0 and json.loads(out)["session"] == str(folder / "a-finished.jsonl")


def test_a_bench_folder_lists_its_sessions_without_its_own_files(capsys, tmp_path):
    bench = tmp_path / "bench"
    (bench / "sessions").mkdir(parents=True)
    (bench / "bench.json").write_text('{"dataset": "mbpp"}')
    (bench / "results.jsonl").write_text('{"task_id": "mbpp/11", "passed": true}\n')
    (bench / "samples.jsonl").write_text('{"task_id": "Mbpp/11", "solution": ""}\n')
    (bench / "sessions" / "mbpp-11.jsonl").write_text(demo_session().read_text())
    (tmp_path / "results.jsonl").write_text("not a session\n")  # outside a bench folder: still named
    code, out, _ = run(capsys, "sessions", "--dir", str(tmp_path), "-r", "--json")
    listed = json.loads(out)
    assert code == 0 and [Path(s["path"]).name for s in listed["sessions"]] == ["mbpp-11.jsonl"]
    assert [Path(u["path"]).name for u in listed["unreadable"]] == ["results.jsonl"]
    assert Path(listed["unreadable"][0]["path"]).parent == tmp_path


def test_a_search_that_matches_nothing_says_so_and_a_bad_filter_is_refused(capsys, folder):
    code, out, _ = run(capsys, "sessions", "--search", "nomatch")
    assert code == 0 and out.splitlines()[0] == f"No session matches 'nomatch' (2 in {folder})."
    code, out, err = run(capsys, "sessions", "--search", "outcome:bogus")
    assert code == 2 and "outcome:bogus: no session has that outcome" in one_line_error(err)
    code, out, err = run(capsys, "sessions", "--since", "someday")
    assert code == 2 and "--since 'someday': give a date" in one_line_error(err)
    code, out, _ = run(capsys, "sessions", "--search", "outcome:accepted", "--json")
    assert code == 0 and [s["outcome"] for s in json.loads(out)["sessions"]] == ["accepted"]


@pytest.mark.parametrize(
    "command",
    [
        ["replay", "999"],
        ["fork", "999", "--at", "self_debug:1"],
        ["compare", "1", "999"],
        ["sessions", "delete", "999"],
        ["sessions", "export", "999"],
        ["sessions", "compress", "999"],
    ],
)
def test_a_number_that_names_no_session_says_so(capsys, folder, command):
    code, out, err = run(capsys, *command)
    assert code == 2 and out == ""
    line = one_line_error(err)
    assert "no session #999" in line and "2 sessions" in line and "no such file" not in line


@pytest.mark.parametrize(
    "content, reason",
    [
        ("just some text\n", "not a qflow session"),
        ('{"format": "qflow-session", "format_version": 99}\n', "session format version 99"),
        ('{"format": "qflow-session", "format_version": 0}\n', "session format version 0 is too old"),
        ("", "empty file"),
    ],
)
@pytest.mark.parametrize("json_flag", [True, False])
def test_replay_refuses_what_is_not_a_replayable_session(capsys, tmp_path, content, reason, json_flag):
    path = tmp_path / "x.jsonl"
    path.write_text(content)
    code, out, err = run(capsys, "replay", str(path), *(["--json"] if json_flag else []))
    assert code == 2 and out == ""
    assert reason in one_line_error(err)


def test_replay_of_a_missing_file(capsys, tmp_path):
    code, _, err = run(capsys, "replay", str(tmp_path / "gone.jsonl"))
    assert code == 2 and "no such file" in one_line_error(err)


def test_demo_json_and_path(capsys):
    code, out, _ = run(capsys, "demo", "--json")
    assert code == 0
    summary = json.loads(out)
    assert set(summary) == SOLVE_KEYS and summary["outcome"] == "accepted" and summary["warnings"] == []
    code, out, _ = run(capsys, "demo", "--path")
    assert Path(out.strip()) == demo_session() and demo_session().is_file()


def test_export_and_delete(capsys, folder, tmp_path):
    session = folder / "a-finished.jsonl"
    code, out, _ = run(capsys, "sessions", "export", str(session), "-o", str(tmp_path / "out.md"))
    assert code == 0 and Path(out.strip()).read_text().startswith("# MBPP 11")
    code, out, _ = run(
        capsys, "sessions", "export", str(session), "--format", "jsonl", "-o", str(tmp_path / "copy.jsonl")
    )
    assert code == 0 and read_session(tmp_path / "copy.jsonl").warnings == []
    code, _, err = run(capsys, "sessions", "export", str(folder / "c-stray.jsonl"), "-o", str(tmp_path / "x.md"))
    assert code == 2 and "not a qflow session" in one_line_error(err)
    # Deleting asks; without a terminal to ask on, it needs --yes.
    code, _, err = run(capsys, "sessions", "delete", str(session))
    assert code == 2 and "--yes" in one_line_error(err) and session.exists()
    code, out, _ = run(capsys, "sessions", "delete", str(session), "--yes")
    assert code == 0 and not session.exists()
    code, _, err = run(capsys, "sessions", "delete", str(folder / "c-stray.jsonl"), "--yes")
    assert code == 2 and "not a qflow session" in one_line_error(err)
    assert (folder / "c-stray.jsonl").exists()


def test_rerun_from_the_recording(capsys, tmp_path):
    """`--rerun` executes the recorded problem again with the recording as the
    model: same settings, same result; another setting names the first call
    the recording lacks; a fallback model answers it."""
    out_dir = tmp_path / "reruns"
    code, out, err = run(capsys, "replay", str(demo_session()), "--rerun", "--json", "--session-dir", str(out_dir))
    assert code == 0, err
    summary = json.loads(out)
    assert (summary["outcome"], summary["accepted_at"]) == ("accepted", "self_debug:1")
    assert read_session(summary["session"]).header["model"] == f"replay/{demo_session()}"
    code, out, err = run(
        capsys, "replay", str(demo_session()), "--rerun", "--no-tqc", "--json", "--session-dir", str(out_dir)
    )
    assert code == 1 and not err
    # Failing, --json still prints one object: the reason and the session kept.
    failed = json.loads(out)
    assert "no recorded response for self_debugger" in failed["error"] and failed["outcome"] == "failed"
    assert read_session(failed["session"]).events[-1].kind == "run_failed"
    code, out, err = run(
        capsys,
        "replay",
        str(demo_session()),
        "--rerun",
        "--no-tqc",
        "--json",
        "--session-dir",
        str(out_dir),
        "--fallback-model",
        f"script/{RESPONDER}",
    )
    assert code == 0, err
    assert json.loads(out)["outcome"] == "accepted"


def test_the_real_cli_as_a_subprocess(tmp_path):
    out = qflow("replay", str(demo_session()), "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["outcome"] == "accepted"
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\x00\x01binary")
    out = qflow("replay", str(bad))
    assert out.returncode == 2 and out.stdout == ""
    assert "not a qflow session" in one_line_error(out.stderr)


def test_a_piped_table_cuts_no_title(capsys, folder, monkeypatch):
    monkeypatch.delenv("COLUMNS")
    code, out, _ = run(capsys, "sessions")
    assert code == 0 and "accepted @ self_debug:1" in out and "…" not in out.replace("script/…", "")


def test_a_terminal_gets_the_newest_screenful_and_how_to_see_more(capsys, tmp_path, monkeypatch):
    """10,000 sessions took 3.4 s to print, every row: a terminal now gets the
    newest screenful and a line on how to see the rest, as git log does; a pipe
    and --all get every row."""
    from qflow_tui.commands import sessions as cmd

    data = tmp_path / "data"
    folder = data / "sessions"
    folder.mkdir(parents=True)
    monkeypatch.setenv("QFLOW_DATA_DIR", str(data))
    raw = demo_session().read_text()
    header, rest = raw.split("\n", 1)
    h = json.loads(header)
    for i in range(30):
        created = f"2026-02-{1 + i:02d}T10:00:00+0000"
        (folder / f"s{i:02d}.jsonl").write_text(
            json.dumps({**h, "created": created, "title": f"Run {i}"}) + "\n" + rest
        )
    monkeypatch.setenv("LINES", "24")
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setattr(cmd, "_interactive", lambda: True)
    code, out, _ = run(capsys, "sessions")
    assert code == 0
    shown = [line for line in out.splitlines() if " Run " in f" {line} "]
    assert len(shown) == 18 and "Run 29" in shown[0], out  # 24 lines less the header and footer lines
    assert "1-18 of 30 shown; `qflow sessions --all` lists every one, --offset 18 the next ones" in out
    code, out, _ = run(capsys, "sessions", "--offset", "18")
    assert "19-30 of 30" not in out and out.count(" Run ") == 12  # the rest fits: no paging line
    code, out, _ = run(capsys, "sessions", "--all")
    assert out.count(" Run ") == 30 and "of 30 shown" not in out
    monkeypatch.setattr(cmd, "_interactive", lambda: False)  # piped: every row
    code, out, _ = run(capsys, "sessions")
    assert out.count(" Run ") == 30
