"""Hostile and odd session files: deeply nested JSON, fields of the wrong type,
a huge file without a final line, a FIFO; and compressed sessions. Each bad
file is one warning or one refusal, never a traceback, and never breaks a
listing of the other files."""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import tracemalloc
from pathlib import Path

import pytest

from qflow_tui.core.session import (
    SessionError,
    compress_session,
    export_session,
    list_sessions,
    read_session,
    session_info,
)
from tests.helpers import qflow
from tests.sessions.support import record_demo

NESTED = "[" * 100_000 + "]" * 100_000


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("recorded")
    outcome, rec = asyncio.run(record_demo(folder))
    return Path(outcome.session), rec.events, outcome


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def _header(**changes) -> str:
    header = {"format": "qflow-session", "format_version": 2, "workflow": "qualityflow", "model": "m"}
    return json.dumps({**header, **changes}) + "\n"


def test_deeply_nested_json_in_an_event_line_is_one_warning(recorded, tmp_path):
    path, _, _ = recorded
    lines = lines_of(path)
    bad = tmp_path / "nested.jsonl"
    bad.write_text("".join(lines[:5]) + NESTED + "\n" + "".join(lines[5:]))
    data = read_session(bad)
    (warning,) = data.warnings
    assert "corrupt line 6 (JSON nested too deeply)" in warning and len(data.events) == 4
    # The listing shows it (as incomplete) instead of failing.
    info = session_info(bad)
    assert info.outcome == "accepted"  # its last line is still the finished run


def test_deeply_nested_json_as_the_header_is_refused_in_one_line(tmp_path):
    bad = tmp_path / "nested.jsonl"
    bad.write_text(NESTED + "\n")
    with pytest.raises(SessionError, match="not a qflow session"):
        read_session(bad)
    out = qflow("replay", str(bad), "--json")
    assert out.returncode == 2 and "Traceback" not in out.stderr and "not a qflow session" in out.stderr


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("ts", "yesterday", "'ts' has the wrong type"),
        ("tokens", {"program_generator": {"input": "many", "output": 1, "calls": 1}}, "'tokens' has the wrong type"),
        ("llm_calls", "40", "'llm_calls' has the wrong type"),
    ],
)
def test_a_field_of_the_wrong_type_is_one_warning_everywhere(recorded, tmp_path, field, value, words):
    path, _, _ = recorded
    lines = lines_of(path)
    last = json.loads(lines[-1])
    assert last["kind"] == "run_finished"
    last[field] = value
    folder = tmp_path / "f"
    folder.mkdir()
    bad = folder / "bad.jsonl"
    bad.write_text("".join(lines[:-1]) + json.dumps(last) + "\n")
    (folder / "good.jsonl").write_bytes(path.read_bytes())
    data = read_session(bad)
    (warning,) = data.warnings
    assert words in warning
    assert data.summary()["outcome"] == "incomplete"
    sessions, unreadable = list_sessions(folder)
    assert {s.path.name: s.outcome for s in sessions} == {"bad.jsonl": "incomplete", "good.jsonl": "accepted"}
    assert unreadable == []
    out = qflow("replay", str(bad), "--json")
    assert out.returncode == 0 and "Traceback" not in out.stderr
    assert any(words in w for w in json.loads(out.stdout)["warnings"])
    out = qflow("sessions", "--dir", str(folder), "--json")
    assert out.returncode == 0 and len(json.loads(out.stdout)["sessions"]) == 2


def test_header_fields_of_the_wrong_type_are_dropped_with_a_warning(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(_header(model=["not", "text"], problem="a string", created=5))
    data = read_session(path)
    assert "model" not in data.header and "problem" not in data.header
    assert any("'model' is not text" in w for w in data.warnings)
    info = session_info(path)
    assert info.model == "" and info.title == "untitled"


def test_a_huge_file_without_a_final_line_is_listed_reading_a_bounded_amount(tmp_path):
    path = tmp_path / "huge.jsonl"
    with open(path, "w") as fh:
        fh.write(_header(title="sparse"))
        fh.write('{"kind": "notice", "seq": 1, "message": "x"}\n')
    with open(path, "r+b") as fh:
        fh.truncate(1024**3)  # sparse: a gigabyte of zeros, no final newline
    tracemalloc.start()
    try:
        info = session_info(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.title == "sparse" and info.outcome == "incomplete"
    assert any("too large to summarise" in w for w in info.warnings)
    assert peak < 64 * 1024**2


def test_replay_of_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(SessionError, match="not a regular file"):
        read_session(fifo)
    # The CLI does not wait for a writer either (a hang fails the timeout).
    out = qflow("replay", str(fifo), "--json")
    assert out.returncode == 2 and "not a regular file" in out.stderr
    sessions, unreadable = list_sessions(tmp_path)
    assert sessions == [] and unreadable == []


def test_an_overlong_line_stops_reading_with_a_warning(tmp_path, monkeypatch):
    from qflow_tui.core.session import reader

    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 1000)
    path = tmp_path / "s.jsonl"
    path.write_text(
        _header() + json.dumps({"kind": "notice", "seq": 1, "message": "x" * 5000}) + "\n" + '{"kind": "notice"}\n'
    )
    data = read_session(path)
    assert data.events == [] and "a line longer than" in data.warnings[0]


# -- compressed sessions ------------------------------------------------------------------------


def test_compressed_and_uncompressed_sessions_replay_the_same(recorded, tmp_path):
    path, _, _ = recorded
    copy = tmp_path / path.name
    copy.write_bytes(path.read_bytes())
    plain = read_session(copy)
    packed = compress_session(copy)
    assert packed.name.endswith(".jsonl.gz") and not copy.exists()
    # A standard gzip file: ordinary tools open it.
    assert gzip.decompress(packed.read_bytes()) == path.read_bytes()
    again = read_session(packed)
    assert again.warnings == [] and [e.to_dict() for e in again.events] == [e.to_dict() for e in plain.events]
    assert again.summary() == {**plain.summary(), "session": str(packed)}
    # Listing, export and the CLI read it too.
    (info,) = list_sessions(tmp_path)[0]
    assert info.outcome == "accepted" and info.path == packed and info.id == copy.name.removesuffix(".jsonl")
    md = export_session(packed, tmp_path / "t.md")
    assert "**ACCEPTED**" in md.read_text()
    out = qflow("replay", str(packed), "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["outcome"] == "accepted"


def test_a_cut_compressed_session_replays_its_prefix_with_a_warning(recorded, tmp_path):
    path, _, _ = recorded
    copy = tmp_path / path.name
    copy.write_bytes(path.read_bytes())
    packed = compress_session(copy)
    raw = packed.read_bytes()
    packed.write_bytes(raw[: len(raw) // 2])
    data = read_session(packed)
    assert data.events and data.warnings
    assert session_info(packed).outcome == "incomplete"


def test_an_unfinished_session_is_not_compressed(recorded, tmp_path):
    path, _, _ = recorded
    lines = lines_of(path)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[: len(lines) // 2]))
    with pytest.raises(SessionError, match="has not finished"):
        compress_session(cut)
    assert cut.exists()


def test_a_compact_session_is_small_next_to_the_one_line_per_delta_layout(recorded, tmp_path):
    from qflow_tui.core.session import SessionWriter

    path, events, _ = recorded
    plain = tmp_path / "plain.jsonl"
    with SessionWriter(plain, workflow="w", model="m", config={}, problem={}, compact=False, index=False) as w:
        for e in events:
            w(e)
    deltas = sum(1 for e in events if e.kind == "text_delta")
    text_lines = sum(1 for line in lines_of(path) if '"text_deltas"' in line)
    assert text_lines < deltas and text_lines == len({e.call_id for e in events if e.kind == "text_delta"})
    assert path.stat().st_size < plain.stat().st_size
