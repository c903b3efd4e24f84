"""Text that is not valid Unicode never ends a run, never stops a recording and
never hides a session: a program's lone surrogate reaches the session as a
marked replacement, the writer takes any content, the reader makes escaped
lone surrogates valid, and one bad file (a header with ``\\ud800``, a name that
is not UTF-8) is skipped and named while the others list."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from qflow_tui.core.config import RunConfig
from qflow_tui.core.events import Notice, RunFailed, SandboxRun
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.problem import make_problem
from qflow_tui.core.session import find_sessions, list_sessions, read_session
from qflow_tui.core.session.writer import SessionWriter
from qflow_tui.core.workflow_run import run_workflow
from tests.helpers import Recorder, TestSandbox, qflow

# The program's source holds the escape; the exception message it raises
# holds the lone surrogate itself.
SURROGATE_PROGRAM = 'def add(a, b):\n    raise ValueError("bad \\ud800 char")\n'


def _respond(request: dict) -> str:
    agent = request["agent"]
    if agent == "test_designer":
        return "```python\nassert add(2, 2) == 4\nassert add(0, 1) == 1\n```"
    if agent == "test_quality_checker":
        return f"<test_case>{request['test']}</test_case>"
    if agent == "code_quality_checker":
        return "<test_case>assert add(1, 2) == 0</test_case>"
    return f"```python\n{SURROGATE_PROGRAM}```"


def _all_text(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in (*_all_text(k), *_all_text(v))]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _all_text(v)]
    return []


def _is_valid(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


async def test_a_programs_lone_surrogate_does_not_end_the_run(tmp_path):
    problem = make_problem("Write add(a, b) returning the sum.", "assert add(1, 2) == 3\n")
    config = RunConfig(model="script/surrogates").replace(prompts=1, epochs=1, clarify=0)
    rec = Recorder()
    outcome = await run_workflow(
        problem,
        config,
        client=ScriptClient.from_function(_respond, name="surrogates"),
        sandbox=TestSandbox(),
        sinks=[rec],
        session_dir=tmp_path,
    )
    # The run ends as the workflow decides (nothing passes: revert), not as an internal error.
    assert outcome.outcome == "reverted"
    assert outcome.warnings == []  # no sink (the session writer) was dropped
    assert not [e for e in rec.events if isinstance(e, RunFailed)]
    assert not [e for e in rec.events if isinstance(e, Notice) and e.level == "error"]
    # The sandbox's report says what the program said, the lone half marked.
    errors = [r["error"] for e in rec.events if e.kind == "sandbox_run" for r in e.results]  # type: ignore[attr-defined]
    assert any(err and "bad \ufffd char" in err for err in errors)
    # The whole session is on disk and replays: every event, every progression.
    data = read_session(Path(outcome.session))
    assert data.warnings == []
    assert data.finished is not None and data.finished.kind == "run_finished"
    assert len(data.events) == len(rec.events)
    assert all(_is_valid(t) for e in data.events for t in _all_text(e.to_dict()))


def test_the_writer_takes_any_content(tmp_path):
    """The writer is the last line of defence: lone surrogates, keys JSON
    cannot take, a cycle, a number beyond int-to-text's limit, an object whose
    str() fails. None of them raises; the file reads back."""

    class NoStr:
        def __str__(self) -> str:
            raise RuntimeError("no")

    cycle: dict = {}
    cycle["self"] = cycle
    path = tmp_path / "s.jsonl"
    writer = SessionWriter(
        path,
        workflow="qualityflow",
        model="script/x",
        config={"odd": "\udc80"},
        problem={"title": "t \ud800", "statement": "\ud83d\ude00 split"},
        index=False,
    )
    writer(Notice(seq=1, level="info", message="lone \ud800 and \udfff"))
    odd = {(1, 2): NoStr(), "c": cycle, "n": 10**5000, "s": {"\ud800"}}
    writer(SandboxRun(seq=2, purpose="self_debug", program="p", results=[odd], passed=0, total=1))
    writer.close()
    data = read_session(path)
    assert data.warnings == []
    (result,) = data.events[1].results  # type: ignore[attr-defined]
    assert result["(1, 2)"] == "<NoStr>" and result["c"] == {"self": "…"}
    assert result["n"].startswith("<a whole number of") and result["s"] == "{'\\ud800'}"
    assert data.header["problem"]["title"] == "t \ufffd"
    assert data.header["problem"]["statement"] == "\U0001f600 split"
    assert data.events[0].message == "lone \ufffd and \ufffd"  # type: ignore[attr-defined]


def _session_lines(tmp_path: Path) -> list[str]:
    path = tmp_path / "src.jsonl"
    with SessionWriter(path, workflow="qualityflow", model="m", config={}, problem={"title": "good"}, index=False) as w:
        w(Notice(level="info", message="hello"))
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def test_escaped_lone_surrogates_in_a_file_read_back_as_marked_text(tmp_path):
    lines = _session_lines(tmp_path)
    header = json.loads(lines[0])
    header["title"] = "PLACEHOLDER"
    event = json.loads(lines[1])
    event["message"] = "PLACEHOLDER"
    path = tmp_path / "escaped.jsonl"
    # As another program may write them: JSON escapes of lone halves (and one
    # whole pair, and an escaped backslash before a "u", which is plain text).
    path.write_text(
        json.dumps(header).replace("PLACEHOLDER", "\\ud800 title")
        + "\n"
        + json.dumps(event).replace("PLACEHOLDER", "a \\udfff b \\ud83d\\ude00 c \\\\ud800 d")
        + "\n"
    )
    data = read_session(path)
    assert data.title == "\ufffd title"
    assert data.events[0].message == "a \ufffd b \U0001f600 c \\ud800 d"  # type: ignore[attr-defined]


@pytest.fixture
def folder_with_bad_files(tmp_path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    lines = _session_lines(tmp_path)
    (folder / "good.jsonl").write_text("".join(lines))
    header = json.loads(lines[0])
    header["title"] = "PLACEHOLDER"
    bad = json.dumps(header).replace("PLACEHOLDER", "\\ud800 bad header") + "\n" + "".join(lines[1:])
    (folder / "bad-header.jsonl").write_text(bad)
    with open(os.path.join(os.fsencode(folder), b"bad-\xff-name.jsonl"), "w") as fh:
        fh.write("".join(lines))
    return folder


def test_one_bad_session_does_not_hide_the_others_in_the_index(folder_with_bad_files):
    listing = find_sessions(folder_with_bad_files)
    titles = sorted(s.title for s in listing.sessions)
    assert titles == ["good", "\ufffd bad header"]
    (skipped,) = listing.unreadable
    assert skipped.path.name == "bad-\\xff-name.jsonl"
    assert "not valid UTF-8" in skipped.reason and "rename" in skipped.reason
    # A second listing (the index warm) says the same.
    again = find_sessions(folder_with_bad_files)
    assert len(again.sessions) == 2 and len(again.unreadable) == 1


def test_one_bad_session_does_not_hide_the_others_without_the_index(folder_with_bad_files):
    sessions, unreadable = list_sessions(folder_with_bad_files)
    assert sorted(s.title for s in sessions) == ["good", "\ufffd bad header"]
    assert [u.path.name for u in unreadable] == ["bad-\\xff-name.jsonl"]


def test_qflow_sessions_lists_the_good_and_names_the_bad(folder_with_bad_files):
    done = qflow("sessions", "--dir", str(folder_with_bad_files), env={"COLUMNS": "120"})
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "good" in done.stdout and "bad header" in done.stdout
    assert "skipped bad-\\xff-name.jsonl" in done.stdout
    as_json = qflow("sessions", "--dir", str(folder_with_bad_files), "--json")
    assert as_json.returncode == 0, as_json.stderr
    out = json.loads(as_json.stdout)
    assert len(out["sessions"]) == 2 and len(out["unreadable"]) == 1
