"""The sessions index: a SQLite database in the user data folder that knows
every session file's header and outcome, with full-text search (FTS5) over
problem statements and final programs, so listing and searching ten thousand
sessions reads the files' metadata from one table instead of the files.

It is a cache and never the only copy of anything: each listing first checks
the folders' times (one ``stat`` per folder; a file added, removed or renamed
changes its folder's time), compares the files of a changed folder with it
(names, sizes and times only) and reads the header and last line of the files
it does not know yet; a missing, damaged or older-version
database is rebuilt from the files; a database another qflow process holds
locked is passed by (the listing reads the files directly, and a session
finished meanwhile is indexed by the next listing).
"""

from __future__ import annotations

import calendar
import contextlib
import contextvars
import functools
import json
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...locations import data_dir, sessions_dir
from ..safe_text import valid_text
from .fileformat import SessionError, is_bench_folder, is_session_name
from .index_sql import COLUMNS, SCHEMA, SORTS, fts_query, like_escaped, numbered, row_info, scope
from .listing import BAD_NAME, SessionInfo, Unreadable, WrittenEnds, list_sessions, scan_session, stored_path
from .query import FILTER_WORDS as FILTER_WORDS
from .query import OUTCOMES as OUTCOMES
from .query import Query as Query
from .query import SearchError as SearchError
from .query import check_outcome as check_outcome
from .query import parse_date as parse_date
from .query import parse_search as parse_search

#: Bumped whenever the schema or what is stored changes: an index of another
#: version is rebuilt from the files.
INDEX_VERSION = 3
INDEX_NAME = "sessions-index.sqlite3"

#: How long a listing waits for another process's lock before reading the files
#: directly, and how long the end of a run waits before leaving the session to
#: the next listing.
LIST_TIMEOUT = 2.0
#: A folder's modification time younger than this is not trusted to mean "no
#: change since" (file times have a coarse clock).
FOLDER_SETTLE_NS = 2_000_000_000
NOTE_TIMEOUT = 0.5
#: Sessions of folders that are gone a listing forgets at most, in one
#: transaction; an index holding more of them is started afresh instead
#: (each listing fills in what it lists, from the files).
PRUNE_AT_MOST = 5000
_PRUNED: set[str] = set()
"""The indexes (by path) this process has pruned (see ``SessionIndex._prune``)."""


def index_path() -> Path:
    return data_dir() / INDEX_NAME


class IndexUnavailable(Exception):
    """The index cannot be used just now (locked by another process, or the
    disk refuses it); the caller reads the files instead."""


@dataclass
class Listing:
    """One page of a listing."""

    sessions: list[SessionInfo]
    total: int
    """How many match the query in all (the page holds at most ``limit``)."""
    unreadable: list[Unreadable] = field(default_factory=list)
    folders: list[FolderGroup] = field(default_factory=list)


@dataclass
class FolderGroup:
    """A sub-folder of sessions (a benchmark's), shown as one group."""

    folder: str
    sessions: int
    accepted: int
    newest: str
    benchmark: str = ""


def _epoch(created: str, fallback: float) -> float:
    try:
        return _seconds_of(created)
    except (ValueError, TypeError, OverflowError):
        return fallback


@functools.lru_cache(maxsize=256)
def _seconds_of(created: str) -> float:
    """``created`` (``2026-12-03T17:33:03+0000``) as seconds since the epoch:
    a bench's sessions share a few seconds, each parsed once."""
    t = time.strptime(created, "%Y-%m-%dT%H:%M:%S%z")
    return float(calendar.timegm(t) - (t.tm_gmtoff or 0))


class SessionIndex:
    """The index database (see the module docstring)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else index_path()

    # -- opening ---------------------------------------------------------------------------------

    def _connect(self, timeout: float) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
        db.row_factory = sqlite3.Row
        return db

    @contextlib.contextmanager
    def open(self, timeout: float = LIST_TIMEOUT) -> Iterator[sqlite3.Connection]:
        """A connection to a usable index: created when missing, rebuilt (empty,
        to be refilled from the files) when damaged or of another version.
        Raises :class:`IndexUnavailable` when it is locked or cannot be written."""
        try:
            db = self._open_checked(timeout)
        except sqlite3.OperationalError as exc:
            raise IndexUnavailable(str(exc)) from None
        except OSError as exc:
            raise IndexUnavailable(exc.strerror or str(exc)) from None
        try:
            yield db
        except sqlite3.OperationalError as exc:
            raise IndexUnavailable(str(exc)) from None
        finally:
            db.close()

    def _open_checked(self, timeout: float) -> sqlite3.Connection:
        try:
            db = self._connect(timeout)
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version != INDEX_VERSION:
                self._create(db)
            return db
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise
            # Not a database, or damaged: it is only a cache, start again.
            with contextlib.suppress(Exception):
                db.close()
            self._discard()
            db = self._connect(timeout)
            self._create(db)
            return db

    def _discard(self) -> None:
        """Remove the database's files (the next connection starts it afresh)."""
        for suffix in ("", "-journal", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{self.path}{suffix}")

    def _create(self, db: sqlite3.Connection) -> None:
        db.execute("BEGIN IMMEDIATE")
        try:
            for table in ("sessions", "unreadable", "folders", "sessions_fts", "fork_numbers", "fork_numbers_stamp"):
                db.execute(f"DROP TABLE IF EXISTS {table}")
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {INDEX_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise

    # -- keeping it in step with the files --------------------------------------------------------

    def refresh(self, root: Path, *, recursive: bool = False, db: sqlite3.Connection | None = None) -> int:
        """Compare ``root`` (and its sub-folders with ``recursive``) with the
        index: read the header and last line of new or changed files, forget
        removed ones. Returns how many files were read."""
        if db is None:
            with self.open() as conn:
                return self.refresh(root, recursive=recursive, db=conn)
        root = root.resolve()
        if self._folders_unchanged(db, root, recursive):
            return 0
        on_disk, folders = _stat_tree(root, recursive)
        # Files are known to the index by their path as text (see stored_path).
        stored = {stored_path(p): p for p in on_disk}
        known: dict[str, tuple[int, int]] = {}
        where, args = scope(root, recursive)
        for table in ("sessions", "unreadable"):
            for row in db.execute(f"SELECT path, mtime_ns, size FROM {table} WHERE {where}", args):
                known[row[0]] = (row[1], row[2])
        changed = [p for key, p in stored.items() if known.get(key) != on_disk[p]]
        gone = [key for key in known if key not in stored]
        db.execute("BEGIN IMMEDIATE")
        try:
            for key in gone:
                self._forget(db, key)
            for p in changed:
                self._upsert(db, Path(p), on_disk[p])
            # A folder's time is trusted only once it is a little old: a file
            # made in the same clock tick as this scan leaves it unchanged.
            settled = time.time_ns() - FOLDER_SETTLE_NS
            db.execute(f"DELETE FROM folders WHERE {where}", args)
            db.executemany(
                "INSERT OR REPLACE INTO folders (dir, mtime_ns, recursive) VALUES (?, ?, ?)",
                [
                    (d, m, int(recursive and d == str(root)))
                    for d, m in folders.items()
                    if m < settled and stored_path(d) == d  # a folder whose name is not text is scanned each time
                ],
            )
            db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise
        return len(changed)

    def _folders_unchanged(self, db: sqlite3.Connection, root: Path, recursive: bool) -> bool:
        """Whether no session file can have come, gone or changed under ``root``
        since the last scan: every folder it scanned still has the time it had
        (adding, removing or renaming a file changes its folder's time; a run
        that ends rewrites its own row, or touches its folder when it could not).
        Costs one ``stat`` per folder instead of one per file."""
        where, args = scope(root, recursive)
        rows = db.execute(f"SELECT dir, mtime_ns, recursive FROM folders WHERE {where}", args).fetchall()
        top = next((r for r in rows if r[0] == str(root)), None)
        if top is None or (recursive and not top[2]):
            return False
        for folder, mtime_ns, _recursive in rows:
            try:
                if os.stat(folder).st_mtime_ns != mtime_ns:
                    return False
            except OSError:
                return False
        return True

    def note(self, path: Path, *, timeout: float = NOTE_TIMEOUT, written: WrittenEnds | None = None) -> bool:
        """Index one session now (the end of a run). False when the index is
        busy or unwritable: the next listing picks the file up. ``written``:
        its first and last lines from the writer (see :func:`scan_session`)."""
        return self.note_many([path], timeout=timeout, written={Path(path): written} if written else None)

    def note_many(
        self, paths: Iterable[Path], *, timeout: float = NOTE_TIMEOUT, written: Mapping[Path, WrittenEnds] | None = None
    ) -> bool:
        """Index these sessions now, through one connection in one transaction
        (a bench's sessions at its end: one commit instead of one each). False
        when the index is busy or unwritable: the next listing picks the files up.
        ``written``: the first and last lines of those whose writer gave them,
        by the path it was given (the file is not read again)."""
        paths = list(paths)
        real = resolve_all([*paths, *(written or {})])
        ends = {real[Path(p)]: lines for p, lines in (written or {}).items()}
        resolved = list(dict.fromkeys(real[Path(p)] for p in paths))
        if not resolved:
            return True
        try:
            with self.open(timeout) as db:
                db.execute("BEGIN IMMEDIATE")
                try:
                    for path in resolved:
                        try:
                            st = path.stat()
                        except FileNotFoundError:
                            continue  # removed meanwhile: nothing to index
                        self._upsert(db, path, (st.st_mtime_ns, st.st_size), ends.get(path))
                    db.execute("COMMIT")
                except BaseException:
                    with contextlib.suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                    raise
        except (IndexUnavailable, OSError, sqlite3.Error):
            # Left to the next listing: a new time on its folder makes that scan the files.
            for folder in {p.parent for p in resolved}:
                with contextlib.suppress(OSError):
                    os.utime(folder)
            return False
        return True

    def forget(self, path: Path) -> None:
        with contextlib.suppress(IndexUnavailable, sqlite3.Error), self.open(NOTE_TIMEOUT) as db:
            self._forget(db, stored_path(str(Path(path).resolve())))

    def _forget(self, db: sqlite3.Connection, path: str) -> None:
        row = db.execute("SELECT id FROM sessions WHERE path = ?", (path,)).fetchone()
        if row is not None:
            db.execute("DELETE FROM sessions_fts WHERE rowid = ?", (row[0],))
            db.execute("DELETE FROM sessions WHERE id = ?", (row[0],))
        db.execute("DELETE FROM unreadable WHERE path = ?", (path,))

    def _upsert(
        self, db: sqlite3.Connection, path: Path, stamp: tuple[int, int], written: WrittenEnds | None = None
    ) -> None:
        """Index one file, or note it as unreadable with why: one bad file never
        stops the others from being indexed (its own rows are rolled back)."""
        key = stored_path(str(path))
        self._forget(db, key)
        if key != str(path):
            self._unreadable(db, key, stamp, BAD_NAME)
            return
        db.execute("SAVEPOINT one_session")
        try:
            info, texts = scan_session(path, written)
            self._insert(db, path, info, texts, stamp)
        except SessionError as exc:
            reason = str(exc).removeprefix(f"{path}: ")
        except (ValueError, OverflowError, RecursionError) as exc:
            # Content the index cannot hold (a number beyond SQLite's, say).
            reason = f"cannot be indexed ({type(exc).__name__}: {exc}); `qflow replay` may still read it"
        else:
            db.execute("RELEASE one_session")
            return
        db.execute("ROLLBACK TO one_session")
        db.execute("RELEASE one_session")
        self._unreadable(db, key, stamp, reason)

    def _unreadable(self, db: sqlite3.Connection, key: str, stamp: tuple[int, int], reason: str) -> None:
        db.execute(
            "INSERT INTO unreadable (path, dir, mtime_ns, size, reason) VALUES (?, ?, ?, ?, ?)",
            (key, os.path.dirname(key), *stamp, valid_text(reason)),
        )

    def _insert(
        self, db: sqlite3.Connection, path: Path, info: SessionInfo, texts: dict[str, str], stamp: tuple[int, int]
    ) -> None:
        cur = db.execute(
            f"INSERT INTO sessions ({COLUMNS}, mtime_ns, created_ts) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                str(path),
                str(path.parent),
                path.name,
                info.created,
                info.title,
                info.model,
                info.workflow,
                info.outcome,
                info.accepted_at,
                info.tokens_in,
                info.tokens_out,
                info.llm_calls,
                info.duration,
                stamp[1],
                info.format_version,
                info.task_id,
                info.parent,
                info.forked_at,
                texts.get("benchmark", ""),
                json.dumps(info.warnings),
                stamp[0],
                _epoch(info.created, stamp[0] / 1e9),
            ),
        )
        db.execute(
            "INSERT INTO sessions_fts (rowid, title, statement, final_program, model, workflow, outcome, task_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                cur.lastrowid,
                info.title,
                texts.get("statement", ""),
                texts.get("final_program", ""),
                info.model,
                info.workflow,
                info.outcome,
                info.task_id or "",
            ),
        )

    def rebuild(self, root: Path, *, recursive: bool = True) -> int:
        """Forget everything and index ``root`` again from its files."""
        with self.open() as db:
            self._create(db)
            return self.refresh(root, recursive=recursive, db=db)

    # -- reading ---------------------------------------------------------------------------------

    def listing(self, root: Path, query: Query | None = None, *, recursive: bool = False) -> Listing:
        """Bring the index up to date with ``root`` and return one page of the
        sessions matching ``query``. Raises :class:`IndexUnavailable`."""
        query = query or Query()
        if query.sort not in SORTS:
            raise ValueError(f"unknown sort {query.sort!r}: choose {', '.join(SORTS)}")
        root = root.resolve()
        with self.open() as db:
            if not self._prune(db):
                self.refresh(root, recursive=True, db=db)
                return self._listing(db, root, query, recursive)
        # Mostly sessions that are gone: started afresh (dropping its tables
        # and shrinking the file took 13 s for 423 MB; removing it, nothing).
        try:
            self._discard()
        except OSError as exc:
            raise IndexUnavailable(exc.strerror or str(exc)) from None
        with self.open() as db:
            self.refresh(root, recursive=True, db=db)
            return self._listing(db, root, query, recursive)

    def _prune(self, db: sqlite3.Connection) -> bool:
        """Forget the sessions of folders that no longer exist, once per
        process: a listing reconciles only the folders it lists, so a deleted
        bench folder's sessions stayed in the index for good (one machine's
        grew to 175,625 sessions, 423 MB, 81,254 of them in deleted folders,
        and noting a bench's sessions into it took up to seconds). True when
        more than :data:`PRUNE_AT_MOST` are gone: the caller starts the index
        afresh instead."""
        if str(self.path) in _PRUNED:
            return False
        dirs = [
            row[0]
            for row in db.execute(
                "SELECT DISTINCT dir FROM sessions UNION SELECT dir FROM unreadable UNION SELECT dir FROM folders"
            )
        ]
        gone = [d for d in dirs if not os.path.isdir(d)]
        forgotten = 0
        for start in range(0, len(gone), 500):
            part = gone[start : start + 500]
            marks = ",".join("?" * len(part))
            forgotten += db.execute(f"SELECT count(*) FROM sessions WHERE dir IN ({marks})", part).fetchone()[0]
        if forgotten > PRUNE_AT_MOST:
            _PRUNED.add(str(self.path))
            return True
        if gone:
            db.execute("BEGIN IMMEDIATE")
            try:
                for d in gone:
                    db.execute("DELETE FROM sessions_fts WHERE rowid IN (SELECT id FROM sessions WHERE dir = ?)", (d,))
                    for table in ("sessions", "unreadable", "folders"):
                        db.execute(f"DELETE FROM {table} WHERE dir = ?", (d,))
                db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
                raise
        _PRUNED.add(str(self.path))
        return False

    def _listing(self, db: sqlite3.Connection, root: Path, query: Query, recursive: bool) -> Listing:
        # Numbers count every session under the folder, sub-folders included,
        # whatever this listing shows: a number means one session everywhere.
        where, args = scope(root, True)
        numbers, nargs = numbered(db, where, args)
        filters: list[str] = []
        fargs: list[Any] = []
        if query.search.strip():
            match = fts_query(query.search)
            if match:
                filters.append("s.id IN (SELECT rowid FROM sessions_fts WHERE sessions_fts MATCH ?)")
                fargs.append(match)
        for column, value in (("workflow", query.workflow), ("outcome", query.outcome)):
            if value:
                filters.append(f"s.{column} = ?")
                fargs.append(value)
        if query.model:
            filters.append("instr(lower(s.model), lower(?)) > 0")
            fargs.append(query.model)
        if query.benchmark:
            filters.append("(s.benchmark = ? OR s.dir = ? OR s.dir LIKE ? ESCAPE '\\')")
            fargs += [query.benchmark, str(root / query.benchmark), "%/" + like_escaped(query.benchmark)]
        if query.since is not None:
            filters.append("s.created_ts >= ?")
            fargs.append(query.since)
        if query.until is not None:
            filters.append("s.created_ts < ?")
            fargs.append(query.until)
        if query.folder is not None:
            filters.append("s.dir = ?")
            fargs.append(str(root / query.folder) if query.folder else str(root))
        elif not recursive and not query.benchmark:
            filters.append("s.dir = ?")
            fargs.append(stored_path(str(root)))
        cond = " AND ".join(filters) or "1"
        base = f"SELECT {{what}} FROM sessions s JOIN {numbers} n ON n.nid = s.id WHERE {cond}"
        try:
            # Every session in a listing is under the root, so counting needs no numbers.
            counted = f"SELECT COUNT(*) FROM sessions s WHERE ({where.replace('dir', 's.dir')}) AND {cond}"
            total = db.execute(counted, [*args, *fargs]).fetchone()[0]
            page = f" ORDER BY {SORTS[query.sort]}"
            pargs: list[Any] = []
            if query.limit is not None:
                page += " LIMIT ? OFFSET ?"
                pargs = [query.limit, query.offset]
            rows = db.execute(base.format(what=f"{COLUMNS}, number") + page, [*nargs, *fargs, *pargs]).fetchall()
        except sqlite3.OperationalError as exc:
            if "fts5" in str(exc).lower() or "syntax" in str(exc).lower():
                rows, total = [], 0
            else:
                raise
        sessions = [row_info(row, root) for row in rows]
        uwhere, uargs = scope(root, recursive)
        unreadable = [
            Unreadable(Path(r[0]), r[1])
            for r in db.execute(f"SELECT path, reason FROM unreadable WHERE {uwhere} ORDER BY path", uargs)
        ]
        return Listing(sessions=sessions, total=total, unreadable=unreadable)

    def folders(self, root: Path) -> list[FolderGroup]:
        """The sub-folders of ``root`` holding sessions (a benchmark's), with
        counts: what the browser shows as groups."""
        root = root.resolve()
        where, args = scope(root, True)
        out = []
        with self.open() as db:
            self.refresh(root, recursive=True, db=db)
            for row in db.execute(
                f"SELECT dir, COUNT(*), SUM(outcome = 'accepted'), MAX(created), MAX(benchmark) FROM sessions "
                f"WHERE {where} AND dir != ? GROUP BY dir ORDER BY MAX(created_ts) DESC",
                [*args, str(root)],
            ):
                out.append(FolderGroup(str(Path(row[0]).relative_to(root)), row[1], row[2] or 0, row[3], row[4] or ""))
        return out


def _stat_tree(root: Path, recursive: bool) -> tuple[dict[str, tuple[int, int]], dict[str, int]]:
    """The session files under ``root``: path -> (mtime_ns, size); and the
    folders scanned: path -> mtime_ns (taken before their entries are read)."""
    out: dict[str, tuple[int, int]] = {}
    folders: dict[str, int] = {}
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            folders[str(folder)] = os.stat(folder).st_mtime_ns
            entries = list(os.scandir(folder))
        except OSError:
            continue
        bench = is_bench_folder(e.name for e in entries)
        for entry in entries:
            try:
                if not bench and is_session_name(entry.name) and entry.is_file():
                    st = entry.stat()
                    out[os.path.join(str(folder), entry.name)] = (st.st_mtime_ns, st.st_size)
                elif recursive and not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
            except OSError:
                continue
    return out, folders


#: The sessions a :func:`batched_notes` block has finished, to index at its end
#: (None outside one: each session is indexed as it ends).
class _Batch(list[Path]):
    """The sessions of a :func:`batched_notes` block, with the first and last
    lines of those whose writer gave them."""

    def __init__(self) -> None:
        super().__init__()
        self.written: dict[Path, WrittenEnds] = {}


_BATCH: contextvars.ContextVar[_Batch | None] = contextvars.ContextVar("qflow_index_batch", default=None)


def resolve_all(paths: Iterable[Path | str]) -> dict[Path, Path]:
    """Each path (as ``Path``) to what ``Path.resolve()`` makes of it, each
    folder resolved once: a bench's sessions share one folder, and resolving
    each whole path again walked every folder above it, twice per session.
    The name itself is followed only where it is a link."""
    folders: dict[Path, Path] = {}
    out: dict[Path, Path] = {}
    for raw in paths:
        path = Path(raw)
        if path in out:
            continue
        if path.name in ("", ".", ".."):
            out[path] = path.resolve()
            continue
        parent = folders.get(path.parent)
        if parent is None:
            parent = folders[path.parent] = path.parent.resolve()
        joined = parent / path.name
        out[path] = joined.resolve() if joined.is_symlink() else joined
    return out


def note_session(path: Path, written: WrittenEnds | None = None) -> bool:
    """Index a session that has just been written (best effort: a busy index
    leaves it to the next listing). Inside :func:`batched_notes` the session
    waits for the block's end, indexed there with the others. ``written``:
    its first and last lines, from the writer that closed it, so that the
    index need not read the file again."""
    batch = _BATCH.get()
    if batch is not None:
        batch.append(Path(path))
        if written is not None:
            batch.written[Path(path)] = written
        return True
    return SessionIndex().note(path, written=written)


@contextlib.contextmanager
def batched_notes(index: SessionIndex | None = None) -> Iterator[list[Path]]:
    """Index the sessions finished inside the block (in this context and the
    tasks it starts) at its end, in one transaction: a bench of 164 problems
    pays one connection and one commit instead of 164. Until then a listing
    finds them as it finds any new file (its folder's time changed)."""
    batch = _Batch()
    token = _BATCH.set(batch)
    try:
        yield batch
    finally:
        _BATCH.reset(token)
        if batch:
            (index or SessionIndex()).note_many(batch, written=batch.written)


def find_sessions(
    directory: Path | str | None = None,
    query: Query | None = None,
    *,
    recursive: bool = False,
    index: SessionIndex | None = None,
) -> Listing:
    """The sessions in ``directory`` (the user's sessions folder by default)
    matching ``query``, through the index; when the index is busy, from the
    files themselves (slower, and the search then covers what the listing
    shows rather than statements and programs)."""
    if directory is None:
        directory = sessions_dir()
    root = Path(directory)
    query = query or Query()
    if not root.is_dir():
        return Listing(sessions=[], total=0)
    try:
        return (index or SessionIndex()).listing(root, query, recursive=recursive)
    except IndexUnavailable:
        pass
    sessions, unreadable = list_sessions(root, recursive=True)

    def keep(s: SessionInfo) -> bool:
        if not recursive and not query.benchmark and query.folder is None and s.folder:
            return False
        created = _epoch(s.created, 0.0)
        return (
            s.matches(query.search)
            and (not query.workflow or s.workflow == query.workflow)
            and (not query.outcome or s.outcome == query.outcome)
            and (not query.model or query.model.lower() in s.model.lower())
            and (not query.benchmark or s.folder == query.benchmark or s.folder.endswith("/" + query.benchmark))
            and (query.since is None or created >= query.since)
            and (query.until is None or created < query.until)
            and (query.folder is None or s.folder == query.folder)
        )

    shown = [s for s in sessions if keep(s)]
    if query.sort != "date":
        keys = {
            "oldest": lambda s: (_epoch(s.created, 0.0), s.path.name),
            "tokens": lambda s: -s.tokens,
            "duration": lambda s: -s.duration,
            "title": lambda s: s.title.lower(),
        }
        shown.sort(key=keys[query.sort])
    total = len(shown)
    end = None if query.limit is None else query.offset + query.limit
    return Listing(sessions=shown[query.offset : end], total=total, unreadable=unreadable)
