"""What a bench pays once rather than per problem (issue 52): the sessions
index takes a bench's sessions in one connection and one transaction at its
end, and the report reads the runner's problems and results instead of
parsing the dataset and checking every results line again."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

from qflow_tui.core.bench import data as data_layer
from qflow_tui.core.bench import report
from qflow_tui.core.bench.bench_runner import BenchRunner, BenchSpec
from qflow_tui.core.bench.report import load_bench, render_report
from qflow_tui.core.config import RunConfig
from qflow_tui.core.session import index as index_module
from qflow_tui.core.session.index import SessionIndex, batched_notes, note_session

CANONICAL = Path(__file__).parents[2] / "bench" / "canonical_model.py"
IDS = ["humaneval/0", "humaneval/38", "humaneval/2"]


def _spec() -> BenchSpec:
    return BenchSpec("humaneval", RunConfig(model=f"script/{CANONICAL}", workflow="zeroshot"), ids=IDS)


def test_a_bench_indexes_its_sessions_in_one_transaction(tmp_path, monkeypatch):
    connects: list[Path] = []
    commits: list[int] = []
    real_connect = SessionIndex._connect

    def counting_connect(self, timeout):
        connects.append(self.path)
        db = real_connect(self, timeout)
        db.set_trace_callback(lambda sql: commits.append(1) if sql.strip().upper() == "COMMIT" else None)
        return db

    with SessionIndex().open():
        pass  # made beforehand: its creation is a transaction of its own
    monkeypatch.setattr(SessionIndex, "_connect", counting_connect)
    records = asyncio.run(BenchRunner(_spec(), tmp_path / "bench").run())
    assert sorted(r["id"] for r in records) == sorted(IDS) and all(r["passed"] for r in records)
    assert len(connects) == 1 and len(commits) == 1  # one each per problem before
    # Every session is in the index, as a listing finds it.
    listed = SessionIndex().listing(tmp_path / "bench" / "sessions")
    assert sorted(s.task_id for s in listed.sessions) == sorted(IDS)


def test_outside_a_batch_a_session_is_indexed_at_once_and_a_busy_index_is_left_to_the_listing(tmp_path, monkeypatch):
    index = SessionIndex(tmp_path / "index.sqlite3")
    monkeypatch.setattr(index_module, "SessionIndex", lambda: index)
    asyncio.run(BenchRunner(_spec(), tmp_path / "bench").run())  # indexed at its end, with the others
    folder = tmp_path / "bench" / "sessions"
    assert len(index.listing(folder).sessions) == 3
    path = sorted(folder.iterdir())[0]
    with batched_notes(index) as batch:
        assert note_session(path) and batch == [path]  # waits for the block's end
    # Inside no block: noted at once (the index is free); a missing file is passed by.
    assert note_session(path) and index.note_many([tmp_path / "gone.jsonl", path])
    # A locked index: False, and the folder's time is renewed for the next listing.
    with index.open() as db:
        db.execute("BEGIN IMMEDIATE")
        before = folder.stat().st_mtime_ns
        assert not index.note_many([path], timeout=0.01)
        db.execute("ROLLBACK")
    assert folder.stat().st_mtime_ns >= before


def test_the_report_of_a_bench_just_run_reads_the_runners_problems_and_results(tmp_path, monkeypatch):
    runner = BenchRunner(_spec(), tmp_path / "bench")
    asyncio.run(runner.run())
    data = load_bench(runner.folder)
    read_again = render_report(data)  # a folder's report alone reads the dataset
    assert "humaneval/38" in read_again.split("## Problems run without visible tests")[1]

    def no_second_parse(*args, **kwargs):
        raise AssertionError("the dataset was parsed a second time")

    def no_second_read(*args, **kwargs):
        raise AssertionError("results.jsonl was read a second time")

    monkeypatch.setattr(report, "load_dataset", no_second_parse)
    monkeypatch.setattr(data_layer, "read_lines", no_second_read)
    assert runner.results_read is not None  # what run() read back as it ended
    assert load_bench(runner.folder, runner.results_read) == data
    assert render_report(data, problems=runner.problems) == read_again
    # Problems that do not cover the bench's: read from the dataset, as before.
    monkeypatch.undo()
    assert render_report(data, problems=runner.problems[:1]) == read_again


def test_a_bench_syncs_its_files_off_the_event_loop_each_session_before_its_results_line(tmp_path, monkeypatch):
    """The ``fsync`` calls (each session, and the results file once for each
    group of lines written together) and the results lines' writes wait for
    the disk in a thread, never on the event loop that runs the other
    problems; and a results line is written only once its session is on the
    disk, and synced itself before the bench reports the problem done."""
    from qflow_tui.core.bench import bench_runner, results_writer

    log: list[tuple[str, str]] = []
    real_fsync = os.fsync
    real_append = results_writer._append_line

    def watched_fsync(fd: int) -> None:
        on_loop = threading.current_thread() is threading.main_thread()
        log.append(("sync on the loop" if on_loop else "sync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def watched_append(path: Path, obj: dict) -> str:
        line = real_append(path, obj)
        on_loop = threading.current_thread() is threading.main_thread()
        log.append(("line on the loop" if on_loop else "line", str((tmp_path / "bench" / obj["session"]).resolve())))
        return line

    monkeypatch.setattr(os, "fsync", watched_fsync)
    monkeypatch.setattr(results_writer, "_append_line", watched_append)
    last_at_done: list[tuple[str, str]] = []

    def sink(update: bench_runner.ProblemUpdate) -> None:
        if update.state == "done":
            last_at_done.append(log[-1])

    records = asyncio.run(BenchRunner(_spec(), tmp_path / "bench", sinks=[sink]).run())
    assert all(r["passed"] for r in records)
    # The problem's line is written and synced when it is reported done.
    assert last_at_done == [("sync", str((tmp_path / "bench" / "results.jsonl").resolve()))] * 3
    syncs = [(kind, path) for kind, path in log if kind.startswith("sync")]
    assert {kind for kind, _ in syncs} == {"sync"}  # none on the loop
    results = str((tmp_path / "bench" / "results.jsonl").resolve())
    assert 1 <= syncs.count(("sync", results)) <= 3 and len(syncs) == 3 + syncs.count(("sync", results))
    for rec in records:
        session = str((tmp_path / "bench" / rec["session"]).resolve())
        assert log.index(("sync", session)) < log.index(("line", session))


def test_a_session_closed_outside_a_bench_is_synced_by_its_writer(tmp_path, monkeypatch):
    from qflow_tui.core.session.writer import SessionWriter, synced_by_caller

    synced: list[str] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(os.readlink(f"/proc/self/fd/{fd}")), real_fsync(fd)))
    kw = {"workflow": "zeroshot", "model": "m", "config": {}, "problem": {}, "index": False}
    SessionWriter(tmp_path / "alone.jsonl", **kw).close()
    with synced_by_caller():
        SessionWriter(tmp_path / "in-a-bench.jsonl", **kw).close()
    assert synced == [str(tmp_path / "alone.jsonl")]
    assert (tmp_path / "in-a-bench.jsonl").read_text().startswith("{")  # written and flushed all the same


def test_the_read_back_checks_only_the_lines_this_run_did_not_write(tmp_path, monkeypatch):
    """Each line a bench writes is checked as it is written, in the writer
    thread; reading results.jsonl back at the end checks only the others
    (an earlier run's), and gives what checking every line gives."""
    from qflow_tui.core.bench import results

    on_loop: list[int] = []
    real_problem = results.line_problem

    def counted(record: object) -> str | None:
        if threading.current_thread() is threading.main_thread():
            on_loop.append(1)
        return real_problem(record)

    monkeypatch.setattr(results, "line_problem", counted)
    first = BenchRunner(
        BenchSpec("humaneval", _spec().config, ids=IDS[:2]), tmp_path / "bench"
    )  # two runs' lines, then a resume that adds a third
    asyncio.run(first.run())
    assert on_loop == []
    runner = BenchRunner(_spec(), tmp_path / "bench")
    asyncio.run(runner.run())
    # The first run's two lines, read when the resume starts and again at its
    # end; the new line was checked as it was written.
    assert len(on_loop) == 4
    monkeypatch.undo()
    assert runner.results_read == results.read_lines(tmp_path / "bench")
    assert sorted(r["id"] for r in runner.results_read.records) == sorted(IDS)
