"""A session indexed as its writer closes it is indexed from the lines the
writer wrote, not from the file read again: the same row either way."""

from __future__ import annotations

from pathlib import Path

import pytest

from qflow_tui.core.session import SessionIndex, SessionWriter, read_session
from qflow_tui.core.session import listing as listing_module
from qflow_tui.core.session.index import batched_notes, resolve_all
from qflow_tui.core.session.listing import scan_session
from qflow_tui.locations import demo_session

DEMO = read_session(demo_session())


def _write(path: Path, *, secret: str = "") -> None:
    env = {"ANTHROPIC_API_KEY": secret} if secret else None
    header = {**DEMO.header, "title": f"pasted with its key {secret}"} if secret else DEMO.header
    with SessionWriter(path, workflow="", model="", config={}, problem={}, copy_header=header, env=env) as w:
        for event in DEMO.events:
            w(event)


def test_the_index_takes_the_writers_lines_and_finds_what_a_scan_finds(tmp_path, monkeypatch):
    index = SessionIndex(tmp_path / "index.sqlite3")
    path = tmp_path / "runs" / "demo.jsonl"
    path.parent.mkdir()

    def no_read(*args: object, **kwargs: object) -> None:
        raise AssertionError("the index read the file its writer had just written")

    with monkeypatch.context() as m:
        m.setattr(listing_module, "read_header", no_read)
        m.setattr(listing_module, "_last_line", no_read)
        with batched_notes(index) as batch:
            _write(path)
        assert batch == [path] and set(batch.written) == {path}
    from_file = scan_session(path)
    first, last = batch.written[path]
    assert scan_session(path, (first, last)) == from_file
    lines = path.read_bytes().splitlines()
    assert (first, last) == (lines[0], lines[-1])  # the file's own first and last lines
    listed = index.listing(path.parent).sessions
    assert [(s.title, s.outcome, s.task_id, s.llm_calls) for s in listed] == [
        (from_file[0].title, from_file[0].outcome, from_file[0].task_id, from_file[0].llm_calls)
    ]
    assert from_file[0].outcome == DEMO.finished.outcome  # type: ignore[union-attr]


def test_a_line_that_failed_to_be_written_leaves_the_index_to_the_file(tmp_path, monkeypatch):
    path = tmp_path / "cut.jsonl"
    with batched_notes(SessionIndex(tmp_path / "index.sqlite3")) as batch:
        writer = SessionWriter(path, workflow="", model="", config={}, problem={}, copy_header=DEMO.header)
        real = writer._fh
        assert real is not None

        class Full:
            def write(self, text: str) -> int:
                raise OSError(28, "No space left on device")

            def flush(self) -> None:
                return None

        writer._fh = Full()  # type: ignore[assignment]
        with pytest.raises(OSError):
            writer(DEMO.events[0])
        writer._fh = real
        writer.close()
    assert batch == [path] and path not in batch.written  # read from the file, as it is


def test_the_lines_given_to_the_index_are_the_redacted_ones(tmp_path):
    secret = "sk-ant-" + "k" * 40
    path = tmp_path / "s.jsonl"
    with batched_notes(SessionIndex(tmp_path / "index.sqlite3")) as batch:
        _write(path, secret=secret)
    first, _last = batch.written[path]
    assert b"pasted with its key" in first and secret.encode() not in first
    assert secret.encode() not in path.read_bytes()


def test_paths_resolved_folder_by_folder_are_what_resolve_gives(tmp_path, monkeypatch):
    real = tmp_path / "real" / "runs"
    real.mkdir(parents=True)
    (tmp_path / "via").symlink_to(tmp_path / "real")
    (real / "a.jsonl").write_text("")
    (real / "linked.jsonl").symlink_to(real / "a.jsonl")
    (real / "dangling.jsonl").symlink_to(real / "gone.jsonl")
    monkeypatch.chdir(tmp_path / "via")
    paths = [
        tmp_path / "via" / "runs" / "a.jsonl",
        tmp_path / "via" / "runs" / "linked.jsonl",
        tmp_path / "via" / "runs" / "dangling.jsonl",
        tmp_path / "via" / "runs" / "not-yet.jsonl",
        Path("runs/a.jsonl"),
        Path("runs/../runs/a.jsonl"),
        Path("runs/.."),
        "runs/a.jsonl",
    ]
    got = resolve_all(paths)
    for path in paths:
        assert got[Path(path)] == Path(path).resolve(), path
    assert got[tmp_path / "via" / "runs" / "linked.jsonl"] == real / "a.jsonl"
