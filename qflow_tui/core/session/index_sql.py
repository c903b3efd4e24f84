"""The SQL of the sessions index (:mod:`.index`): its tables, and what a
listing asks of them (a folder's scope, a search as FTS5, the sort orders, the
numbers of a fork tree) and makes of a row."""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
from operator import itemgetter
from pathlib import Path

from .family import fork_tree
from .listing import SessionInfo, stored_path

SORTS = {
    # Newest first, each fork under its parent: the numbers' order.
    "date": "number ASC",
    "oldest": "created_ts ASC, name ASC",
    "tokens": "tokens_in + tokens_out DESC, created_ts DESC",
    "duration": "duration DESC, created_ts DESC",
    "title": "title COLLATE NOCASE ASC, created_ts DESC",
}

SCHEMA = """
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    dir TEXT NOT NULL,
    name TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    created TEXT NOT NULL,
    created_ts REAL NOT NULL,
    title TEXT NOT NULL,
    model TEXT NOT NULL,
    workflow TEXT NOT NULL,
    outcome TEXT NOT NULL,
    accepted_at TEXT,
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    llm_calls INTEGER NOT NULL,
    duration REAL NOT NULL,
    format_version INTEGER NOT NULL,
    task_id TEXT,
    parent TEXT,
    forked_at TEXT,
    benchmark TEXT NOT NULL DEFAULT '',
    warnings TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX sessions_by_dir ON sessions (dir, created_ts);
CREATE INDEX sessions_by_time ON sessions (created_ts DESC, name DESC);
CREATE TABLE unreadable (
    path TEXT PRIMARY KEY,
    dir TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    reason TEXT NOT NULL
);
CREATE TABLE folders (
    dir TEXT PRIMARY KEY,
    mtime_ns INTEGER NOT NULL,
    recursive INTEGER NOT NULL
);
CREATE VIRTUAL TABLE sessions_fts USING fts5 (
    title, statement, final_program, model, workflow, outcome, task_id, tokenize = 'unicode61'
);
"""

COLUMNS = (
    "path, dir, name, created, title, model, workflow, outcome, accepted_at, tokens_in, tokens_out, "
    "llm_calls, duration, size, format_version, task_id, parent, forked_at, benchmark, warnings"
)


def fts_query(text: str) -> str:
    """A user's words as an FTS5 query: each whitespace-separated word becomes
    a phrase of its letters-and-digits tokens (so ``s.replace(ch,`` matches
    those tokens in order), all must match, the last as a prefix."""
    phrases = []
    for word in text.split():
        tokens = re.findall(r"\w+", word)
        if tokens:
            phrases.append('"' + " ".join(tokens) + '"')
    if not phrases:
        return ""
    phrases[-1] += " *"
    return " AND ".join(phrases)


def numbered(db: sqlite3.Connection, where: str, args: list[object]) -> tuple[str, list[object]]:
    """What numbers the sessions ``where`` picks in the order a listing shows
    them, newest first with each fork under its parent (forks are newer than
    their parents, so numbering by time alone read 1, 3, 2 down a fork tree):
    a table of (nid, number) to join, and its arguments. Without a fork under
    the folder that is time order, in SQLite alone. With forks the order is
    walked here (:func:`fork_tree`, as the screens draw it), once for each
    state of the sessions: kept in ``fork_numbers`` under a stamp of what the
    order depends on, so the pages of one listing do not walk it again."""
    by_time = "ORDER BY created_ts DESC, name DESC"
    stamp_row = db.execute(
        "SELECT COUNT(*), COUNT(parent), TOTAL(id), TOTAL(created_ts), "
        "TOTAL(length(parent)), TOTAL(length(name)), MAX(id) "
        f"FROM sessions WHERE {where}",
        args,
    ).fetchone()
    if not stamp_row[1]:
        return f"(SELECT id AS nid, ROW_NUMBER() OVER ({by_time}) AS number FROM sessions WHERE {where})", args
    key = json.dumps(args)
    stamp = json.dumps(list(stamp_row))
    db.execute(
        "CREATE TABLE IF NOT EXISTS fork_numbers (scope TEXT NOT NULL, nid INTEGER NOT NULL, "
        "number INTEGER NOT NULL, PRIMARY KEY (scope, nid))"
    )
    db.execute("CREATE TABLE IF NOT EXISTS fork_numbers_stamp (scope TEXT PRIMARY KEY, stamp TEXT NOT NULL)")
    kept = db.execute("SELECT stamp FROM fork_numbers_stamp WHERE scope = ?", [key]).fetchone()
    if kept is None or kept[0] != stamp:
        rows = db.execute(f"SELECT id, path, parent FROM sessions WHERE {where} {by_time}", args).fetchall()
        # Paths as the index stores them (a listing's own; Path() on each took most of the time).
        order = fork_tree(rows, itemgetter(1), itemgetter(2)).order
        db.execute("BEGIN IMMEDIATE")  # one transaction: the connection commits each statement otherwise
        try:
            db.execute("DELETE FROM fork_numbers WHERE scope = ?", [key])
            db.executemany(
                "INSERT INTO fork_numbers VALUES (?, ?, ?)", ((key, r[0], n) for n, r in enumerate(order, start=1))
            )
            db.execute("INSERT OR REPLACE INTO fork_numbers_stamp VALUES (?, ?)", [key, stamp])
            db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise
    return "(SELECT nid, number FROM fork_numbers WHERE scope = ?)", [key]


def like_escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def scope(root: Path, recursive: bool) -> tuple[str, list[object]]:
    top = stored_path(str(root))
    if not recursive:
        return "dir = ?", [top]
    prefix = top.rstrip(os.sep) + os.sep
    return "(dir = ? OR substr(dir, 1, ?) = ?)", [top, len(prefix), prefix]


def row_info(row: sqlite3.Row, root: Path) -> SessionInfo:
    path = Path(row["path"])
    try:
        warnings = json.loads(row["warnings"])
    except (ValueError, RecursionError):
        warnings = []
    folder = "" if row["dir"] == str(root) else str(Path(row["dir"]).relative_to(root))
    return SessionInfo(
        path=path,
        created=row["created"],
        title=row["title"],
        model=row["model"],
        workflow=row["workflow"],
        outcome=row["outcome"],
        accepted_at=row["accepted_at"],
        tokens_in=row["tokens_in"],
        tokens_out=row["tokens_out"],
        llm_calls=row["llm_calls"],
        duration=row["duration"],
        size=row["size"],
        format_version=row["format_version"],
        task_id=row["task_id"],
        warnings=warnings if isinstance(warnings, list) else [],
        parent=row["parent"],
        forked_at=row["forked_at"],
        folder=folder,
        number=row["number"],
    )
