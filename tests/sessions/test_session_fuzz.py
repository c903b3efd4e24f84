"""Property-based fuzzing of the session reader (hypothesis, fixed seeds,
bounded): whatever follows a valid prefix (arbitrary bytes, arbitrary JSON
lines, a cut anywhere), and whatever the header holds, reading never raises
anything but a one-line SessionError for a file that is not a session; the
valid prefix still replays; every string read is valid text; and the listing
of a folder of such files never fails."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from qflow_tui.core.events import event_kinds
from qflow_tui.core.session import SessionError, find_sessions, read_session, session_info
from tests.sessions.support import record_demo

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


class Recording(tuple):
    """(the session's lines, its events as dicts); short in a failure report."""

    def __repr__(self) -> str:
        return f"<the demo session: {len(self[0])} lines>"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Recording:
    folder = tmp_path_factory.mktemp("fuzz-recorded")
    outcome, _ = asyncio.run(record_demo(folder))
    lines = Path(outcome.session).read_bytes().splitlines(keepends=True)
    return Recording((lines, [e.to_dict() for e in read_session(Path(outcome.session)).events]))


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


def _read(path: Path):
    """read_session, allowing only a one-line SessionError; checks what it read."""
    try:
        data = read_session(path)
    except SessionError as exc:
        assert "\n" not in str(exc)
        return None
    for event in data.events:
        for text in _strings(event.to_dict()):
            text.encode("utf-8")  # valid text: raises on a lone surrogate
    for text in _strings(data.header) + data.warnings:
        text.encode("utf-8")
    data.summary()  # the listing and `qflow replay --json` read this
    return data


def _prefix_events(tmp_path: Path, lines: list[bytes], keep: int) -> list[dict]:
    prefix = tmp_path / "prefix.jsonl"
    prefix.write_bytes(b"".join(lines[:keep]))
    data = read_session(prefix)
    return [e.to_dict() for e in data.events]


@seed(2601)
@FUZZ
@given(keep=st.integers(min_value=1, max_value=400), tail=st.binary(max_size=300))
def test_arbitrary_bytes_after_a_valid_prefix(recorded, tmp_path, keep, tail):
    lines, _ = recorded
    keep = min(keep, len(lines))
    path = tmp_path / "bytes.jsonl"
    path.write_bytes(b"".join(lines[:keep]) + tail)
    data = _read(path)
    assert data is not None  # the header is whole: it is a session
    expected = _prefix_events(tmp_path, lines, keep)
    assert [e.to_dict() for e in data.events][: len(expected)] == expected


@seed(2602)
@FUZZ
@given(cut=st.integers(min_value=0, max_value=10**6))
def test_a_cut_anywhere_replays_a_prefix(recorded, tmp_path, cut):
    lines, full = recorded
    raw = b"".join(lines)
    path = tmp_path / "cut.jsonl"
    path.write_bytes(raw[: cut % (len(raw) + 1)])
    data = _read(path)
    if data is None:
        return  # cut inside the header
    got = [e.to_dict() for e in data.events]
    # Chunks of a call whose finish was cut off are not replayed; all else is the recording's.
    assert all(e in full for e in got)


_text = st.text(alphabet=st.sampled_from("a \ud800\udbff\udc00\udfff\\u\ufffd\U0001f600"), max_size=8) | st.text(
    alphabet=st.characters(exclude_categories=()), max_size=8
)
_json = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(),
        _text,
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.text(max_size=6), inner, max_size=3),
    ),
    max_leaves=8,
)
_event_line = st.one_of(
    _json,
    st.fixed_dictionaries(
        {"kind": st.just("notice"), "seq": st.integers(min_value=0, max_value=10**6), "message": _text}
    ),
    st.fixed_dictionaries(
        {
            "kind": st.sampled_from([*event_kinds(), "text_deltas", "from_the_future"]),
            "seq": st.one_of(st.integers(min_value=0, max_value=10**6), _json),
        },
        optional={
            "ts": st.one_of(st.floats(min_value=0, max_value=2e9), _json),
            "level": st.one_of(_text, _json),
            "message": st.one_of(_text, _json),
            "call_id": _json,
            "d": _json,
            "text": _json,
            "response": _json,
            "results": _json,
            "step": _json,
            "progression": _json,
        },
    ),
)


@seed(2603)
@FUZZ
@given(keep=st.integers(min_value=1, max_value=400), extra=st.lists(_event_line, min_size=1, max_size=4))
def test_arbitrary_json_lines_after_a_valid_prefix(recorded, tmp_path, keep, extra):
    lines, _ = recorded
    keep = min(keep, len(lines))
    body = b"".join(lines[:keep])
    if not body.endswith(b"\n"):
        body += b"\n"
    for value in extra:
        body += json.dumps(value).encode() + b"\n"  # ensure_ascii: lone surrogates as escapes
    path = tmp_path / "json.jsonl"
    path.write_bytes(body)
    assert _read(path) is not None
    session_info(path)


#: A header this build reads, with any text in its fields; or any JSON at all.
_header_value = st.one_of(
    st.fixed_dictionaries(
        {
            "format": st.just("qflow-session"),
            "format_version": st.sampled_from([1, 2, 3]),
            "title": _text,
            "model": _text,
            "problem": st.fixed_dictionaries({"statement": _text, "title": _text}),
        },
        optional={"workflow": _json, "config": _json, "created": _json, "streams": _json, "parent": _json},
    ),
    _json,
)


@seed(2604)
@FUZZ
@given(header=st.one_of(_header_value.map(lambda v: json.dumps(v).encode()), st.binary(max_size=200)))
def test_any_header_is_read_or_refused_in_one_line(recorded, tmp_path, header):
    lines, _ = recorded
    folder = tmp_path / "one"
    folder.mkdir(exist_ok=True)
    path = folder / "header.jsonl"
    path.write_bytes(header.replace(b"\n", b" ") + b"\n" + b"".join(lines[1:]))
    _read(path)
    try:
        session_info(path)
    except SessionError as exc:
        assert "\n" not in str(exc)
    # The folder lists: this file as a session or as skipped, never an error.
    listing = find_sessions(folder)
    assert len(listing.sessions) + len(listing.unreadable) == 1
