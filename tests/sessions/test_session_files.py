"""Session files: the round trip, what a reader does with damaged, foreign and
other-version files, listing, export and delete."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from qflow_tui.core import session as S
from qflow_tui.core.events import LLMCallFinished, LLMCallStarted, Notice, RunFinished
from qflow_tui.core.session import SessionError, SessionWriter, fileformat, read_session, reader, transcript, writer
from qflow_tui.core.typecheck import keys_problem
from tests.sessions.support import record_demo


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """One real scripted run of the demo story, recorded once for the module."""
    import asyncio

    folder = tmp_path_factory.mktemp("recorded")
    outcome, rec = asyncio.run(record_demo(folder))
    return Path(outcome.session), rec.events, outcome


@pytest.fixture(scope="module")
def recorded_plain(recorded, tmp_path_factory):
    """The same run written one line per event (``compact=False``), for the
    tests that damage a file line by line."""
    _, events, outcome = recorded
    plain = tmp_path_factory.mktemp("plain") / "plain.jsonl"
    with SessionWriter(plain, workflow="qualityflow", model="m", config={}, problem={}, compact=False) as w:
        for e in events:
            w(e)
    return plain, events, outcome


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


# -- round trip -------------------------------------------------------------------------


def _streams(events):
    out: dict[str, list] = {}
    for e in events:
        if e.kind == "text_delta":
            out.setdefault(e.call_id, []).append(e)
    return out


def test_events_written_and_read_back_are_equal(recorded):
    """Every event comes back as it was, except that the streamed text of a call
    comes back in coalesced chunks: the same text, at the times its chunks
    started, in the same order among the other events."""
    path, events, outcome = recorded
    data = read_session(path)
    assert data.warnings == []
    plain = [e.to_dict() for e in events if e.kind != "text_delta"]
    assert [e.to_dict() for e in data.events if e.kind != "text_delta"] == plain
    live, replayed = _streams(events), _streams(data.events)
    assert live.keys() == replayed.keys()
    for call_id, chunks in live.items():
        again = replayed[call_id]
        assert "".join(e.text for e in again) == "".join(e.text for e in chunks)
        assert {e.seq for e in again} <= {e.seq for e in chunks}
        assert all(b.ts - a.ts >= writer.COALESCE_SECONDS - 0.001 for a, b in itertools.pairwise(again))
        assert all(
            (e.step, e.agent, e.progression) == (chunks[0].step, chunks[0].agent, chunks[0].progression) for e in again
        )
    assert [e.seq for e in data.events] == sorted(e.seq for e in data.events)
    assert data.summary() == {**outcome.summary(), "duration": data.summary()["duration"]}


def test_an_uncompacted_session_reads_back_event_for_event(recorded, tmp_path):
    """The one-line-per-delta layout (format 1, and ``compact=False``) still reads back exactly."""
    _, events, _ = recorded
    path = tmp_path / "plain.jsonl"
    with SessionWriter(path, workflow="qualityflow", model="m", config={}, problem={}, compact=False) as w:
        for e in events:
            w(e)
    assert not any('"text_deltas"' in line for line in lines_of(path))
    data = read_session(path)
    assert data.warnings == [] and [e.to_dict() for e in data.events] == [e.to_dict() for e in events]


def test_the_header_says_what_was_run_and_nothing_secret(recorded):
    path, _events, _ = recorded
    header = json.loads(lines_of(path)[0])
    assert header["format"] == "qflow-session" and header["format_version"] == S.SESSION_FORMAT_VERSION
    assert {"app_version", "created", "workflow", "model", "config", "problem", "title"} <= set(header)
    assert header["problem"]["entry_point"] == "remove_Occ"
    assert header["config"]["workflow_settings"]["prompts"] == 2
    assert not any("key" in k.lower() for k in header["config"])


def test_every_llm_exchange_is_recorded_in_full(recorded):
    path, _, outcome = recorded
    data = read_session(path)
    started = {e.call_id: e for e in data.events if isinstance(e, LLMCallStarted)}
    finished = [e for e in data.events if isinstance(e, LLMCallFinished)]
    # A call of a progression that could no longer win may be cut mid-stream
    # (timing decides): started, ended as cancelled, recorded all the same.
    cut = [e for e in data.events if e.kind == "llm_call_failed" and e.stop_reason == "cancelled"]
    assert len(finished) == outcome.llm_calls == len(started) - len(cut)
    for end in finished:
        start = started[end.call_id]
        assert start.messages and all(m["content"] for m in start.messages)
        assert isinstance(start.system, str) and start.prompt_hash and start.prompt_hash == end.prompt_hash
        assert end.response and end.input_tokens and end.output_tokens and end.latency >= 0
        # The streamed chunks add up to the full response.
        chunks = "".join(e.text for e in data.events if e.kind == "text_delta" and e.call_id == end.call_id)
        assert chunks == end.response


def test_the_header_and_stream_lines_are_the_shapes_their_typeddicts_declare(recorded):
    """What the writer writes is what fileformat's TypedDicts say (typed when
    written): every key declared, every declared value of its type."""
    path, _events, _ = recorded
    lines = [json.loads(line) for line in lines_of(path)]
    header, streams = lines[0], [line for line in lines[1:] if line.get("kind") == "text_deltas"]
    assert streams, "the demo streams text: its session has text_deltas lines"
    for record, shape in [(header, fileformat.SessionHeader)] + [(s, fileformat.TextDeltasLine) for s in streams]:
        assert set(record) <= set(shape.__annotations__), set(record) - set(shape.__annotations__)
        assert keys_problem(record, shape) is None
    assert header["sampling"] and header["streams"] == "compact"


def test_each_line_is_on_disk_as_soon_as_it_is_emitted(tmp_path):
    path = tmp_path / "s.jsonl"
    w = SessionWriter(path, workflow="qualityflow", model="script/x", config={}, problem={"title": "t"})
    w(Notice(seq=1, message="one"))
    # Not closed: another reader sees the header and the event already.
    assert len(read_session(path).events) == 1
    w(Notice(seq=2, message="two"))
    assert [e.message for e in read_session(path).events] == ["one", "two"]
    w.close()
    w(Notice(seq=3, message="after close is ignored"))
    assert len(read_session(path).events) == 2


def test_a_writer_never_appends_to_an_existing_session(tmp_path):
    path = tmp_path / "s.jsonl"
    SessionWriter(path, workflow="w", model="m", config={}, problem={}).close()
    with pytest.raises(FileExistsError):
        SessionWriter(path, workflow="w", model="m", config={}, problem={})
    assert read_session(path).header["model"] == "m"
    # An empty file is taken over; folders are made; a link to nothing is a taken name.
    empty = tmp_path / "empty.jsonl"
    empty.touch()
    SessionWriter(empty, workflow="w", model="e", config={}, problem={}).close()
    assert read_session(empty).header["model"] == "e"
    deep = tmp_path / "a" / "b" / "s.jsonl"
    SessionWriter(deep, workflow="w", model="d", config={}, problem={}).close()
    assert read_session(deep).header["model"] == "d"
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(FileExistsError):
        SessionWriter(dangling, workflow="w", model="m", config={}, problem={})
    assert not (tmp_path / "nowhere").exists()


def test_odd_values_do_not_stop_the_recording(tmp_path):
    path = tmp_path / "s.jsonl"
    with SessionWriter(path, workflow="w", model="m", config={"when": object()}, problem={}) as w:
        w(Notice(seq=1, message="still here"))
    assert read_session(path).events[0].message == "still here"


# -- damaged files ------------------------------------------------------------------------


def test_truncated_last_line_replays_the_prefix_with_a_warning(recorded_plain, tmp_path):
    path, events, _ = recorded_plain
    lines = lines_of(path)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2], encoding="utf-8")
    data = read_session(cut)
    assert [e.to_dict() for e in data.events] == [e.to_dict() for e in events[:-1]]
    assert len(data.warnings) == 1 and data.warnings[0].startswith("truncated last line")
    summary = data.summary()
    assert summary["outcome"] == "incomplete" and summary["final_program"] == ""
    assert any("truncated" in w for w in summary["warnings"])


def test_a_corrupt_middle_line_replays_what_comes_before_it(recorded_plain, tmp_path):
    path, events, _ = recorded_plain
    lines = lines_of(path)
    middle = len(lines) // 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        "".join(lines[:middle]) + '{"kind": "notice", "seq": \x00garbage\n' + "".join(lines[middle + 1 :]),
        encoding="utf-8",
    )
    data = read_session(bad)
    assert len(data.events) == middle - 1  # the header is line 1
    assert [e.to_dict() for e in data.events] == [e.to_dict() for e in events[: middle - 1]]
    (warning,) = data.warnings
    assert f"corrupt line {middle + 1}" in warning and "later lines skipped" in warning


@pytest.mark.parametrize(
    "line, what",
    [
        ("[1, 2, 3]", "not an event"),
        ('{"kind": "llm_call_finished", "seq": 9}', "missing fields"),
        ('{"no_kind": true}', "not an event"),
    ],
)
def test_lines_that_are_json_but_not_events_are_corrupt(tmp_path, line, what):
    path = tmp_path / "s.jsonl"
    with SessionWriter(path, workflow="w", model="m", config={}, problem={}) as w:
        w(Notice(seq=1, message="ok"))
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")
        fh.write(json.dumps(Notice(seq=3, message="after").to_dict()) + "\n")
    data = read_session(path)
    assert [e.message for e in data.events] == ["ok"]
    assert what in data.warnings[0]


def test_events_of_a_newer_kind_are_skipped_not_fatal(tmp_path):
    path = tmp_path / "s.jsonl"
    with SessionWriter(path, workflow="w", model="m", config={}, problem={}) as w:
        w(Notice(seq=1, message="a"))
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"kind": "hologram", "seq": 2}) + "\n")
        fh.write(json.dumps({**Notice(seq=3, message="b").to_dict(), "new_field": 1}) + "\n")
    data = read_session(path)
    assert [e.message for e in data.events] == ["a", "b"]
    assert any("hologram" in w for w in data.warnings)


def test_a_header_without_events_is_an_empty_replay(tmp_path):
    path = tmp_path / "s.jsonl"
    SessionWriter(path, workflow="w", model="m", config={}, problem={}).close()
    data = read_session(path)
    assert data.events == [] and data.warnings == []
    assert data.summary()["outcome"] == "incomplete"


# -- files that are not sessions, or of another version -----------------------------------------


def _header(**changes) -> str:
    base = {"format": "qflow-session", "format_version": 1, "model": "m", "config": {}, "problem": {}}
    base.update(changes)
    return json.dumps({k: v for k, v in base.items() if v is not None}) + "\n"


@pytest.mark.parametrize(
    "content, reason",
    [
        (b"", "empty file"),
        (b"\n\n", "empty file"),
        (b"hello world\n", "first line is not a JSON header"),
        (b'{"some": "json"}\n', "no 'qflow-session' header"),
        (b"\x89PNG\r\n\x1a\n\x00\x00binary", "not a qflow session"),
        (b'[{"format": "qflow-session"}]\n', "no 'qflow-session' header"),
        (_header(format_version=None).encode(), "no readable format version"),
        (_header(format_version="1").encode(), "no readable format version"),
    ],
)
def test_files_that_are_not_sessions_are_refused_in_one_line(tmp_path, content, reason):
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    with pytest.raises(SessionError) as err:
        read_session(path)
    message = str(err.value)
    assert reason in message and str(path) in message and "\n" not in message


def test_missing_files_and_folders_are_refused(tmp_path):
    with pytest.raises(SessionError, match="no such file"):
        read_session(tmp_path / "nope.jsonl")
    with pytest.raises(SessionError, match="is a folder"):
        read_session(tmp_path)


def test_a_newer_format_version_is_refused_naming_it(tmp_path):
    path = tmp_path / "new.jsonl"
    path.write_text(_header(format_version=7, app_version="9.0.0"))
    with pytest.raises(SessionError) as err:
        read_session(path)
    assert "format version 7" in str(err.value) and "9.0.0" in str(err.value) and "upgrade" in str(err.value)


def test_an_older_format_version_without_an_upgrade_is_refused_naming_it(tmp_path):
    path = tmp_path / "old.jsonl"
    path.write_text(_header(format_version=0))
    with pytest.raises(SessionError) as err:
        read_session(path)
    assert "format version 0" in str(err.value) and "too old" in str(err.value)


def test_an_older_format_version_with_an_upgrade_replays(tmp_path, monkeypatch):
    """The path a format change will take: version 1 files keep replaying once
    version 2 exists, through an upgrade of each line."""

    def one_to_two(obj, is_header):
        if is_header:
            return {**obj, "format_version": 2}
        if obj.get("kind") == "notice":
            return {**obj, "message": obj.pop("text")}  # v1 called it "text"
        return obj

    path = tmp_path / "v1.jsonl"
    path.write_text(_header(format_version=1) + json.dumps({"kind": "notice", "seq": 1, "text": "hi"}) + "\n")
    monkeypatch.setattr(fileformat, "SESSION_FORMAT_VERSION", 2)
    monkeypatch.setitem(S.UPGRADES, 1, one_to_two)
    data = read_session(path)
    assert data.header["format_version"] == 2 and data.events[0].message == "hi"


# -- listing, export, delete ------------------------------------------------------------------------


def test_listing_shows_date_title_model_outcome_tokens_duration(recorded, tmp_path):
    path, _, outcome = recorded
    folder = tmp_path / "list"
    folder.mkdir()
    (folder / "done.jsonl").write_bytes(path.read_bytes())
    lines = lines_of(path)
    (folder / "killed.jsonl").write_text("".join(lines[: len(lines) // 2]))
    (folder / "foreign.jsonl").write_text("not a session\n")
    (folder / "notes.txt").write_text("ignored")
    sessions, unreadable = S.list_sessions(folder)
    by_name = {s.path.name: s for s in sessions}
    done = by_name["done.jsonl"]
    assert (done.title, done.outcome, done.accepted_at) == (
        "MBPP 11: remove the first and last occurrence of a character",
        "accepted",
        "self_debug:1",
    )
    assert done.model.endswith("responder.py") and done.created and done.llm_calls == outcome.llm_calls
    assert done.tokens_in == sum(t["input"] for t in outcome.tokens.values()) > 0
    assert done.duration > 0 and done.warnings == []
    assert by_name["killed.jsonl"].outcome == "incomplete" and by_name["killed.jsonl"].tokens > 0
    assert [u.path.name for u in unreadable] == ["foreign.jsonl"]
    assert by_name["done.jsonl"].matches("mbpp ACCEPTED") and not by_name["done.jsonl"].matches("humaneval")
    assert S.list_sessions(tmp_path / "missing") == ([], [])


def test_listing_reads_a_finished_session_from_its_last_line(recorded, tmp_path, monkeypatch):
    path, _, _ = recorded
    copy = tmp_path / "c.jsonl"
    copy.write_bytes(path.read_bytes())
    monkeypatch.setattr(reader, "read_session", lambda p: pytest.fail("read the whole file"))
    assert S.session_info(copy).outcome == "accepted"


def _same_story(got, want):
    assert [e.to_dict() for e in got if e.kind != "text_delta"] == [e.to_dict() for e in want if e.kind != "text_delta"]
    assert {k: "".join(e.text for e in v) for k, v in _streams(got).items()} == {
        k: "".join(e.text for e in v) for k, v in _streams(want).items()
    }


def test_export_jsonl_is_a_clean_session_with_the_same_events(recorded, recorded_plain, tmp_path):
    path, events, _ = recorded_plain
    lines = lines_of(path)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:-1]) + lines[-1][:10])
    out = S.export_session(cut, tmp_path / "out" / "export.jsonl")
    again = read_session(out)
    assert again.warnings == []
    _same_story(again.events, events[:-1])
    # A compact session exports to the very same chunks.
    compact = recorded[0]
    out = S.export_session(compact, tmp_path / "out" / "compact.jsonl")
    again, original = read_session(out), read_session(compact)
    assert again.warnings == [] and [e.to_dict() for e in again.events] == [e.to_dict() for e in original.events]


def test_export_markdown_is_a_readable_transcript(recorded, tmp_path):
    path, events, _ = recorded
    out = S.export_session(path, tmp_path / "t.md")
    text = out.read_text()
    assert text.startswith("# MBPP 11: remove the first and last occurrence of a character\n")
    for part in (
        "**ACCEPTED** at `self_debug:1`",
        "## Problem",
        'assert remove_Occ("hello","l") == "heo"',
        "### Step `test_quality_checker`",
        '`assert remove_Occ("aaaa", "a") == ""`: **rejected**',
        "**Decision (p0): rejected, so CONTINUE**",
        "**Decision (p0): ACCEPT**",
        "Sandbox run (self_debug, p0): **2/8 passed**",
        "## Final program",
        "s.rfind(ch)",
        "<details><summary>Prompt",
    ):
        assert part in text, part
    # Every response is in the transcript in full.
    for e in events:
        if e.kind == "llm_call_finished":
            assert e.response.strip() in text


def test_markdown_fences_survive_code_blocks_inside_responses():
    text = transcript._fence("```python\nx = 1\n```", "text")
    assert text.startswith("````text\n") and text.endswith("````\n")


def test_export_refuses_unknown_formats_and_itself(recorded, tmp_path):
    path, _, _ = recorded
    with pytest.raises(SessionError, match="unknown export format"):
        S.export_session(path, tmp_path / "x.html", "html")
    with pytest.raises(SessionError, match="onto itself"):
        S.export_session(path, path, "jsonl")


def test_delete_removes_a_session_and_refuses_anything_else(recorded, tmp_path):
    path, _, _ = recorded
    copy = tmp_path / "c.jsonl"
    copy.write_bytes(path.read_bytes())
    S.delete_session(copy)
    assert not copy.exists()
    other = tmp_path / "important.jsonl"
    other.write_text('{"my": "data"}\n')
    with pytest.raises(SessionError, match="not a qflow session"):
        S.delete_session(other)
    assert other.exists()


def test_failed_runs_summarise_as_failed_with_the_reason(tmp_path):
    path = tmp_path / "f.jsonl"
    with SessionWriter(path, workflow="w", model="m", config={}, problem={"title": "t"}) as w:
        from qflow_tui.core.events import RunFailed

        w(Notice(seq=1, ts=10.0, message="x"))
        w(RunFailed(seq=2, ts=12.5, error="anthropic: rate limited"))
    summary = read_session(path).summary()
    assert summary["outcome"] == "failed" and summary["duration"] == 2.5
    assert any("rate limited" in w for w in summary["warnings"])
    info = S.session_info(path)
    assert info.outcome == "failed"


def test_finished_summary_matches_the_solve_json_shape():
    data = S.SessionData(
        path=Path("x.jsonl"),
        header={},
        events=[
            RunFinished(seq=1, final_program="p", outcome="accepted", accepted_at="program_generator", progression=0)
        ],
    )
    assert set(data.summary()) == {
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


def test_a_slow_stream_comes_back_at_its_own_times_and_sequence_numbers(tmp_path):
    """Format 3 writes a stream's chunks relative to each other: a call streamed
    slowly, in many chunks, reads back with each chunk's own sequence number and
    time (to the millisecond); single tokens are gathered up to MIN_CHUNK_CHARS
    within SLOW_COALESCE_SECONDS, longer pieces apart stay apart."""
    from qflow_tui.core.events import TextDelta

    where = {"step": "program_generator", "agent": "program_generator", "progression": 0, "call_id": "c1"}
    start = LLMCallStarted(**where, model="m", system="", messages=[], temperature=0.0)
    start.seq, start.ts = 1, 1000.0
    # Seq 2-4: three single tokens 0.3 s apart (gathered into one chunk); then
    # pieces of 40 characters 0.5 s apart (each its own chunk).
    deltas = [(2, 1000.1, "a"), (3, 1000.4, "b"), (4, 1000.7, "c")]
    deltas += [(5 + 2 * i, 1001.5 + 0.5 * i, chr(ord("d") + i) * 40) for i in range(4)]
    text = "".join(t for _, _, t in deltas)
    path = tmp_path / "slow.jsonl"
    with SessionWriter(path, workflow="qualityflow", model="m", config={}, problem={}) as w:
        w(start)
        for seq, ts, piece in deltas:
            delta = TextDelta(**where, text=piece)
            delta.seq, delta.ts = seq, ts
            w(delta)
        done = LLMCallFinished(**where, response=text, input_tokens=1, output_tokens=1, latency=3.0)
        done.seq, done.ts = 20, 1003.5
        w(done)
    again = [e for e in read_session(path).events if e.kind == "text_delta"]
    assert [(e.seq, round(e.ts, 3), e.text) for e in again] == [
        (2, 1000.1, "abc"),
        (5, 1001.5, "d" * 40),
        (7, 1002.0, "e" * 40),
        (9, 1002.5, "f" * 40),
        (11, 1003.0, "g" * 40),
    ]
