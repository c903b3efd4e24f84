"""The sessions index: a cache of the files that can always be rebuilt from
them, kept up to date as runs end, with full-text search and filters; numbers
that mean one session everywhere."""

from __future__ import annotations

import calendar
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from qflow_tui.cli import main
from qflow_tui.core.session import (
    Query,
    SessionIndex,
    SessionWriter,
    compress_session,
    delete_session,
    find_sessions,
    read_session,
)
from qflow_tui.core.session import index as index_module
from qflow_tui.locations import demo_session

DEMO = read_session(demo_session())
LINE_OF_CODE = "s = s[:first] + s[first + 1:]"


def write_session(folder: Path, name: str, *, title: str, model: str = "script/r.py", created: str, **changes) -> Path:
    """A copy of the demo run under another name, title, model and date (the
    workflow, outcome and program can be changed too)."""
    header = {**DEMO.header, "title": title, "model": model, "created": created}
    header["problem"] = {**header["problem"], "title": title, "statement": changes.pop("statement", title)}
    header.update({k: v for k, v in changes.items() if k in ("workflow", "benchmark", "parent")})
    path = folder / f"{name}.jsonl"
    with SessionWriter(path, workflow="", model="", config={}, problem={}, copy_header=header, index=False) as w:
        for e in DEMO.events:
            if e.kind == "run_finished" and ("outcome" in changes or "program" in changes):
                e = type(e)(**e.__dict__)
                e.outcome = changes.get("outcome", e.outcome)  # type: ignore[attr-defined]
                e.final_program = changes.get("program", e.final_program)  # type: ignore[attr-defined]
            w(e)
    return path


@pytest.fixture
def folder(tmp_path) -> Path:
    root = tmp_path / "sessions"
    root.mkdir()
    write_session(root, "a", title="Reverse a list", created="2026-11-01T10:00:00+0000", outcome="reverted")
    write_session(root, "b", title="Remove occurrences", created="2026-11-02T10:00:00+0000", model="anthropic/claude-x")
    write_session(
        root,
        "c",
        title="Sum of squares",
        created="2026-11-03T10:00:00+0000",
        workflow="agentcoder",
        program="def sum_squares(xs):\n    return sum(x * x for x in xs)\n",
    )
    bench = root / "bench" / "humaneval-run1"
    bench.mkdir(parents=True)
    for i in range(3):
        write_session(
            bench, f"he{i}", title=f"HumanEval/{i}", created=f"2026-11-04T10:0{i}:00+0000", benchmark="humaneval-run1"
        )
    return root


def rows(listing) -> list[dict]:
    return [s.to_dict() for s in listing.sessions]


def test_the_index_rebuilt_from_files_equals_the_incrementally_kept_one(folder, tmp_path):
    kept = SessionIndex(tmp_path / "kept.sqlite3")
    kept.listing(folder, recursive=True)
    # Changes as they happen: a run ends, one is deleted, one compressed.
    new = write_session(folder, "d", title="Late run", created="2026-11-05T10:00:00+0000")
    assert kept.note(new)
    (folder / "a.jsonl").unlink()
    kept.forget(folder / "a.jsonl")
    compress_session(folder / "b.jsonl")
    (folder / "junk.jsonl").write_text("not a session\n")
    # A run still going is listed as incomplete, then as what it came to.
    whole = (folder / "c.jsonl").read_bytes()
    (folder / "c.jsonl").write_bytes(whole[: len(whole) // 2])
    going = {s.title: s.outcome for s in kept.listing(folder, recursive=True).sessions}
    assert going["Sum of squares"] == "incomplete"
    (folder / "c.jsonl").write_bytes(whole)
    incremental = kept.listing(folder, Query(), recursive=True)
    assert {s.title: s.outcome for s in incremental.sessions}["Sum of squares"] == "accepted"
    rebuilt_index = SessionIndex(tmp_path / "rebuilt.sqlite3")
    assert rebuilt_index.rebuild(folder) == 7
    rebuilt = rebuilt_index.listing(folder, Query(), recursive=True)
    assert rows(incremental) == rows(rebuilt) and incremental.total == rebuilt.total == 6
    assert [u.path.name for u in incremental.unreadable] == [u.path.name for u in rebuilt.unreadable] == ["junk.jsonl"]
    # And both equal reading the files directly.
    from qflow_tui.core.session import list_sessions

    direct, _ = list_sessions(folder, recursive=True)
    assert [s.to_dict() for s in direct] == rows(rebuilt)


@pytest.mark.parametrize("damage", ["garbage", "deleted", "old version"])
def test_a_damaged_deleted_or_old_index_is_rebuilt_without_losing_a_session(folder, tmp_path, damage):
    index = SessionIndex(tmp_path / "index.sqlite3")
    before = rows(index.listing(folder, recursive=True))
    assert len(before) == 6
    if damage == "garbage":
        index.path.write_bytes(b"this is not a database" * 100)
    elif damage == "deleted":
        index.path.unlink()
    else:
        db = sqlite3.connect(index.path)
        db.execute("PRAGMA user_version = 0")
        db.execute("DELETE FROM sessions")
        db.commit()
        db.close()
    assert rows(index.listing(folder, recursive=True)) == before


LOCKER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.readline()
db.execute("COMMIT")
"""


def test_a_session_written_while_another_process_locks_the_index_is_indexed_later(folder, monkeypatch):
    index = SessionIndex()
    index.listing(folder, recursive=True)
    monkeypatch.setattr(index_module, "LIST_TIMEOUT", 0.2)
    locker = subprocess.Popen(
        [sys.executable, "-c", LOCKER, str(index.path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert locker.stdout.readline().strip() == "locked"
        new = write_session(folder, "late", title="Written under a lock", created="2026-11-06T10:00:00+0000")
        assert not index.note(new)  # busy: left to the next listing
        # Meanwhile a listing reads the files themselves: nothing is missing.
        during = find_sessions(folder, recursive=True)
        assert "Written under a lock" in [s.title for s in during.sessions]
    finally:
        locker.communicate("\n", timeout=60)
    db = sqlite3.connect(index.path)
    assert db.execute("SELECT COUNT(*) FROM sessions WHERE title = 'Written under a lock'").fetchone()[0] == 0
    db.close()
    after = find_sessions(folder, recursive=True)
    assert after.sessions[0].title == "Written under a lock" and after.total == 7
    db = sqlite3.connect(index.path)
    assert db.execute("SELECT COUNT(*) FROM sessions WHERE title = 'Written under a lock'").fetchone()[0] == 1
    db.close()


def test_a_run_that_ends_is_in_the_index_at_once(tmp_path):
    root = tmp_path / "s"
    root.mkdir()
    path = root / "x.jsonl"
    with SessionWriter(path, workflow="w", model="m", config={}, problem={"title": "noted"}):
        pass
    db = sqlite3.connect(SessionIndex().path)
    assert db.execute("SELECT title FROM sessions WHERE path = ?", (str(path.resolve()),)).fetchone() == ("noted",)
    db.close()


def test_search_finds_a_program_by_a_line_of_its_code(folder):
    found = find_sessions(folder, Query(search=LINE_OF_CODE), recursive=True)
    assert found.total == 5  # every copy of the demo's program; not the sum of squares
    assert "Sum of squares" not in [s.title for s in found.sessions]
    found = find_sessions(folder, Query(search="return sum(x * x for x in xs)"), recursive=True)
    assert [s.title for s in found.sessions] == ["Sum of squares"]
    assert find_sessions(folder, Query(search="return s[:first] * 3"), recursive=True).total == 0
    # Statements are searched too, and the last word is a prefix (search as you type).
    assert [s.title for s in find_sessions(folder, Query(search="revers"), recursive=True).sessions] == [
        "Reverse a list"
    ]


def test_filters_sorting_and_paging(folder):
    def titles(**q) -> list[str]:
        return [s.title for s in find_sessions(folder, Query(**q), recursive=True).sessions]

    assert titles(workflow="agentcoder") == ["Sum of squares"]
    assert titles(model="claude") == ["Remove occurrences"]
    assert titles(outcome="reverted") == ["Reverse a list"]
    assert titles(benchmark="humaneval-run1") == ["HumanEval/2", "HumanEval/1", "HumanEval/0"]
    nov4, nov5 = (calendar.timegm((2026, 11, d, 0, 0, 0)) for d in (4, 5))
    assert titles(since=nov4, until=nov5) == ["HumanEval/2", "HumanEval/1", "HumanEval/0"]
    assert titles(sort="oldest", limit=2) == ["Reverse a list", "Remove occurrences"]
    page = find_sessions(folder, Query(limit=2, offset=2), recursive=True)
    assert [s.number for s in page.sessions] == [3, 4] and page.total == 6
    # Without -r: the top folder only, numbered as in the whole folder.
    top = find_sessions(folder)
    assert [(s.number, s.title) for s in top.sessions] == [
        (4, "Sum of squares"),
        (5, "Remove occurrences"),
        (6, "Reverse a list"),
    ]
    groups = SessionIndex().folders(folder)
    assert [(g.folder, g.sessions, g.accepted, g.benchmark) for g in groups] == [
        ("bench/humaneval-run1", 3, 3, "humaneval-run1")
    ]


def test_a_number_shown_by_a_search_is_the_session_replay_and_delete_use(folder, capsys):
    assert main(["sessions", "--dir", str(folder), "--search", "reverse", "--json"]) == 0
    (shown,) = json.loads(capsys.readouterr().out)["sessions"]
    assert shown["title"] == "Reverse a list" and shown["number"] == 6
    from qflow_tui.commands.sessions import resolve_session_arg

    assert resolve_session_arg("6", folder) == Path(shown["path"])
    assert resolve_session_arg(shown["id"], folder) == Path(shown["path"])
    assert main(["sessions", "--dir", str(folder), "delete", "6", "--yes"]) == 0
    assert not Path(shown["path"]).exists()
    assert [s.title for s in find_sessions(folder).sessions] == ["Sum of squares", "Remove occurrences"]
    # The table shows the same numbers as --json.
    assert main(["sessions", "--dir", str(folder), "--search", "sum squares"]) == 0
    (line,) = [line for line in capsys.readouterr().out.splitlines() if "Sum of squares" in line]
    assert line.split()[0] == "4"


def test_reindex_command_rebuilds_from_the_files(folder, capsys):
    assert main(["sessions", "--dir", str(folder), "reindex"]) == 0
    assert "indexed 6 session files" in capsys.readouterr().out
    delete_session(folder / "a.jsonl")
    assert find_sessions(folder, recursive=True).total == 5


def _age_folders(root: Path) -> None:
    """Give ``root`` and its sub-folders a time well in the past (a folder just
    made is too young for the index to trust its time)."""
    import os

    old = 1_700_000_000_000_000_000
    for folder in [root, *(p for p in root.rglob("*") if p.is_dir())]:
        os.utime(folder, ns=(old, old))


def test_unchanged_folders_are_not_scanned_file_by_file(folder, monkeypatch):
    _age_folders(folder)
    index = SessionIndex()
    assert index.listing(folder, recursive=True).total == 6
    scans: list[Path] = []
    real = index_module._stat_tree
    monkeypatch.setattr(index_module, "_stat_tree", lambda root, rec: scans.append(root) or real(root, rec))
    assert index.listing(folder, recursive=True).total == 6
    assert scans == []  # one stat per folder told it nothing changed
    # A session copied in by hand changes its folder's time: the next listing scans and finds it.
    write_session(folder / "bench" / "humaneval-run1", "he9", title="Copied in", created="2026-11-05T10:00:00+0000")
    listing = index.listing(folder, recursive=True)
    assert listing.total == 7 and "Copied in" in [s.title for s in listing.sessions] and scans


def test_a_run_the_index_could_not_note_is_found_by_the_next_listing(folder, monkeypatch):
    _age_folders(folder)
    index = SessionIndex()
    index.listing(folder)
    path = folder / "a.jsonl"
    _age_folders(folder)
    # The file changes in place (a run ended) while the index is busy.
    write_session(folder, "a-new", title="Ended while busy", created="2026-11-07T10:00:00+0000").replace(path)
    _age_folders(folder)
    monkeypatch.setattr(index_module.SessionIndex, "open", lambda self, timeout=0: (_ for _ in ()).throw(OSError()))
    assert not index.note(path)
    monkeypatch.undo()
    assert "Ended while busy" in [s.title for s in index.listing(folder).sessions]


def test_filters_refuse_a_value_that_cannot_match():
    from qflow_tui.core.session import SearchError, parse_search
    from qflow_tui.core.session.index import parse_date

    assert parse_search("outcome:acc mbpp").outcome == "accepted"
    assert parse_search("outcome:acc mbpp").search == "mbpp"
    for text, said in (
        ("outcome:bogus", "no session has that outcome"),
        ("outcome:re", r"which one\? choose reverted, rejected"),
        ("since:yesterdayish", "give a date as YYYY-MM-DD"),
        ("until:2026-13-01", "give a date"),
    ):
        with pytest.raises(SearchError, match=said):
            parse_search(text)
    import time

    noon = time.mktime((2026, 11, 25, 12, 0, 0, 0, 0, -1))
    midnight = time.mktime((2026, 11, 25, 0, 0, 0, 0, 0, -1))
    assert parse_date("today", "since:", now=noon) == midnight
    assert parse_date("yesterday", "since:", now=noon) == midnight - 86400
    assert parse_date("2w", "since:", now=noon) == midnight - 14 * 86400
    assert parse_date("2026-11-20", "since:") == time.mktime((2026, 11, 20, 0, 0, 0, 0, 0, -1))


def test_numbers_follow_the_fork_tree_as_listings_show_it(folder, monkeypatch):
    """A fork is newer than its parent: numbered by time alone, a parent with
    two forks listed 1, 3, 2 down the screen. Numbers run in the order shown
    (newest root first, each fork under its parent), in the index, in the
    listing read from the files when the index is busy, and in what a number
    names on the command line."""
    from qflow_tui.commands.sessions import resolve_session_arg

    parent = folder / "b.jsonl"
    for name, day in (("fork1", "05"), ("fork2", "06")):
        write_session(
            folder,
            name,
            title="Remove occurrences",
            created=f"2026-11-{day}T10:00:00+0000",
            parent={"session": str(parent), "step": "self_debug:1"},
        )
    expected = [
        (1, "he2.jsonl"),
        (2, "he1.jsonl"),
        (3, "he0.jsonl"),
        (4, "c.jsonl"),
        (5, "b.jsonl"),
        (6, "fork2.jsonl"),
        (7, "fork1.jsonl"),
        (8, "a.jsonl"),
    ]
    listing = find_sessions(folder, recursive=True)
    assert [(s.number, s.path.name) for s in listing.sessions] == expected
    page = find_sessions(folder, Query(limit=2, offset=4), recursive=True)
    assert [(s.number, s.path.name) for s in page.sessions] == expected[4:6]
    for number, name in expected:
        assert resolve_session_arg(str(number), folder).name == name
    # The walked order is kept between listings; a new fork and a deletion renumber.
    write_session(
        folder,
        "fork3",
        title="Remove occurrences",
        created="2026-11-07T10:00:00+0000",
        parent={"session": str(parent), "step": "self_debug:1"},
    )
    delete_session(folder / "fork1.jsonl")
    listing = find_sessions(folder, recursive=True)
    assert [s.path.name for s in listing.sessions][4:] == ["b.jsonl", "fork3.jsonl", "fork2.jsonl", "a.jsonl"]
    assert [s.number for s in listing.sessions] == list(range(1, 9))
    expected = [(s.number, s.path.name) for s in listing.sessions]

    # The index busy: the files themselves, numbered the same way.
    def busy(*_a, **_k):
        raise index_module.IndexUnavailable("locked")

    monkeypatch.setattr(SessionIndex, "listing", busy)
    assert [(s.number, s.path.name) for s in find_sessions(folder, recursive=True).sessions] == expected


def test_the_sessions_of_a_deleted_folder_leave_the_index_at_the_next_listing(folder, tmp_path, monkeypatch):
    """A listing reconciles only the folders it lists: a bench folder deleted
    elsewhere left its sessions in the index for good. The first listing of a
    process forgets them (past a bound, it starts the index afresh)."""
    import shutil

    index = SessionIndex(tmp_path / "index.sqlite3")
    elsewhere = tmp_path / "benches" / "run1" / "sessions"
    elsewhere.mkdir(parents=True)
    for i in range(3):
        write_session(elsewhere, f"x{i}", title=f"Elsewhere {i}", created="2026-11-06T10:00:00+0000")
    assert index.listing(elsewhere).total == 3
    assert index.listing(folder, recursive=True).total == 6

    def stored() -> dict[str, int]:
        with sqlite3.connect(index.path) as db:
            return {
                table: db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in ("sessions", "sessions_fts")
            }

    assert stored() == {"sessions": 9, "sessions_fts": 9}
    shutil.rmtree(tmp_path / "benches")
    monkeypatch.setattr(index_module, "_PRUNED", set())
    before = rows(index.listing(folder, recursive=True))
    assert stored() == {"sessions": 6, "sessions_fts": 6}  # the deleted folder's three are gone
    assert before == rows(SessionIndex(tmp_path / "fresh.sqlite3").listing(folder, recursive=True))
    # Past the bound the index starts afresh; the listing fills in what it lists.
    write_session(elsewhere.parent.parent.parent / "b2", "y", title="Soon gone", created="2026-11-06T10:00:00+0000")
    assert index.listing(tmp_path / "b2").total == 1
    shutil.rmtree(tmp_path / "b2")
    monkeypatch.setattr(index_module, "_PRUNED", set())
    monkeypatch.setattr(index_module, "PRUNE_AT_MOST", 0)
    assert rows(index.listing(folder, recursive=True)) == before
    assert stored() == {"sessions": 6, "sessions_fts": 6}
    # An index that cannot be removed is passed by: the listing reads the files.
    (tmp_path / "b4").mkdir()
    write_session(tmp_path / "b4", "w", title="Stuck", created="2026-11-06T10:00:00+0000")
    index.listing(tmp_path / "b4")
    shutil.rmtree(tmp_path / "b4")
    monkeypatch.setattr(index_module, "_PRUNED", set())

    def refused(path: object) -> None:
        raise PermissionError(13, "Permission denied")

    with monkeypatch.context() as m:
        m.setattr(index_module.os, "unlink", refused)
        with pytest.raises(index_module.IndexUnavailable):
            index.listing(folder, recursive=True)
        assert rows(find_sessions(folder, recursive=True, index=index)) == before
    monkeypatch.setattr(index_module, "_PRUNED", set())
    assert rows(index.listing(folder, recursive=True)) == before
    # Once a process: a folder deleted after the first listing waits for the next process.
    (tmp_path / "b3").mkdir()
    write_session(tmp_path / "b3", "z", title="Later", created="2026-11-06T10:00:00+0000")
    index.listing(tmp_path / "b3")
    shutil.rmtree(tmp_path / "b3")
    index.listing(folder, recursive=True)
    assert stored()["sessions"] == 7
