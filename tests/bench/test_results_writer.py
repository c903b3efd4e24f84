"""A bench's results lines are written in groups: the sessions of a group
synced first, then its lines, then the file synced once (one journal commit
for many lines, where there were two for each run), and never before every
session it points at is on the disk."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from qflow_tui.core.bench import results_writer
from qflow_tui.core.bench.results import ResultLine
from qflow_tui.core.bench.results_writer import ResultsWriter


def _line(n: int) -> ResultLine:
    return {"id": f"humaneval/{n}", "sample": 0, "status": "done", "session": f"sessions/s{n}.jsonl"}  # type: ignore[typeddict-item]


@pytest.fixture(autouse=True)
def long_gather(monkeypatch):
    """A group's wait for more lines is never waited out in these tests: a
    line goes when every run still going has given its, or not at all."""
    monkeypatch.setattr(results_writer, "GATHER", 600.0)


@pytest.fixture
def synced(monkeypatch):
    """Every path synced, in order."""
    seen: list[str] = []
    real = os.fsync

    def watched(fd: int) -> None:
        seen.append(os.path.basename(os.readlink(f"/proc/self/fd/{fd}")))
        real(fd)

    monkeypatch.setattr(os, "fsync", watched)
    return seen


def _sessions(tmp_path: Path, count: int) -> list[Path]:
    out = []
    for n in range(count):
        path = tmp_path / f"s{n}.jsonl"
        path.write_text("{}\n")
        out.append(path)
    return out


def _append_each(tmp_path: Path, count: int) -> tuple[list[object], Path, ResultsWriter]:
    """``count`` runs each append their line at once (their sessions
    written); what each was told, the results file and the closed writer."""
    writer = ResultsWriter()
    results = tmp_path / "results.jsonl"
    sessions = _sessions(tmp_path, count)

    async def main() -> list[object]:
        writer.expect(count)
        runs = (writer.append(results, _line(n), sessions[n]) for n in range(count))
        return await asyncio.wait_for(asyncio.gather(*runs, return_exceptions=True), 60)

    got = asyncio.run(main())
    writer.close()
    return got, results, writer


def test_lines_that_come_together_are_synced_once_after_their_sessions(tmp_path, monkeypatch, synced):
    got, results, writer = _append_each(tmp_path, 3)  # every run has given its line: no wait
    assert got == [None, None, None]
    assert synced == ["s0.jsonl", "s1.jsonl", "s2.jsonl", "results.jsonl"]
    assert [json.loads(x)["id"] for x in results.read_text().splitlines()] == [f"humaneval/{n}" for n in range(3)]
    assert len(writer.checked) == 3


def test_a_line_waits_for_the_runs_still_going_and_not_for_one_that_ended_without_one(tmp_path, monkeypatch, synced):
    writer = ResultsWriter()
    results = tmp_path / "results.jsonl"
    (session,) = _sessions(tmp_path, 1)

    async def main() -> None:
        writer.expect(2)
        task = asyncio.ensure_future(writer.append(results, _line(0), session))
        await asyncio.sleep(0)
        assert not task.done() and not results.exists()  # the other run may still give a line
        writer.ended()  # it ended without one (stopped by the cost cap, say)
        await asyncio.wait_for(task, 60)

    asyncio.run(main())
    writer.close()
    assert synced == ["s0.jsonl", "results.jsonl"]


def test_a_line_that_cannot_be_written_is_said_to_its_run_and_the_others_are_written(tmp_path, monkeypatch, synced):
    real = results_writer._append_line

    def full_for_one(path: Path, obj: ResultLine) -> str:
        if obj["id"] == "humaneval/1":
            raise OSError(28, "No space left on device")
        return real(path, obj)

    monkeypatch.setattr(results_writer, "_append_line", full_for_one)
    got, results, _writer = _append_each(tmp_path, 2)
    assert got[0] is None and isinstance(got[1], OSError)
    assert [json.loads(x)["id"] for x in results.read_text().splitlines()] == ["humaneval/0"]
    assert synced[-1] == "results.jsonl"


def test_a_fault_in_the_writers_thread_is_said_to_every_run_of_its_group(tmp_path, monkeypatch, synced):

    def broken(line: str) -> bool:
        raise RuntimeError("a fault in the read-back's check")

    monkeypatch.setattr(results_writer, "checked_line", broken)
    got, _results, _writer = _append_each(tmp_path, 2)  # never left waiting
    assert [type(x) for x in got] == [RuntimeError, RuntimeError]
