"""Listing a folder of sessions with summary metadata, read cheaply (the header
and the last line of a finished run), and deleting one."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ...locations import sessions_dir
from ..events import RunFinished
from ..safe_text import valid_text
from ..summary import tokens_from_dict, total
from . import reader
from .family import fork_tree
from .fileformat import (
    READ_ERRORS,
    SessionError,
    _open_for_read,
    is_bench_folder,
    is_session_name,
    section,
    session_stem,
    session_title,
)
from .reader import header_from_line, read_header


@dataclass
class SessionInfo:
    """One line of a session listing."""

    path: Path
    created: str
    """ISO time the run started (from the header; the file's time if absent)."""
    title: str
    model: str
    workflow: str
    outcome: str
    """``accepted``, ``reverted``, ``rejected``, ``unchecked``, ``failed``,
    ``cancelled`` or ``incomplete`` (killed, or still running)."""
    accepted_at: str | None
    tokens_in: int
    tokens_out: int
    llm_calls: int
    duration: float
    size: int
    format_version: int
    task_id: str | None = None
    warnings: list[str] = field(default_factory=list)
    parent: str | None = None
    """The session this one was forked from, when it is a fork."""
    forked_at: str | None = None
    """The step of the parent it branched at, when it is a fork."""
    folder: str = ""
    """The sub-folder of the listed folder it lies in (a benchmark's sessions
    lie in a folder of their own); empty at the top."""
    number: int | None = None
    """Its number in ``qflow sessions``: its place in the listing by date (1 the
    first: newest first, each fork under its parent), the same in every
    listing, search, sort and command that takes a number."""
    name: str = ""
    """The name a person gave it (``qflow sessions rename``, the browser's n), shown
    in place of its title; kept beside the sessions (:mod:`.notes`), never in the file."""
    note: str = ""
    """A person's note on it (``qflow sessions note``, the browser's a)."""

    @property
    def shown_title(self) -> str:
        """Its name when it has one, else the problem's title."""
        return self.name or self.title

    @property
    def id(self) -> str:
        """The file name without its suffix: unique, and never changes."""
        return session_stem(self.path)

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out

    def matches(self, text: str) -> bool:
        """Case-insensitive search over what the listing shows."""
        text = text.strip().lower()
        if not text:
            return True
        hay = " ".join(
            str(x)
            for x in (
                self.title,
                self.name,
                self.note,
                self.model,
                self.workflow,
                self.outcome,
                self.created,
                self.path.name,
                self.task_id or "",
            )
        ).lower()
        return all(word in hay for word in text.split())

    def to_dict(self) -> dict[str, object]:
        return {
            "path": str(self.path),
            "created": self.created,
            "title": self.title,
            "task_id": self.task_id,
            "model": self.model,
            "workflow": self.workflow,
            "outcome": self.outcome,
            "accepted_at": self.accepted_at,
            "tokens": {"input": self.tokens_in, "output": self.tokens_out},
            "llm_calls": self.llm_calls,
            "duration": round(self.duration, 3),
            "size": self.size,
            "format_version": self.format_version,
            "warnings": self.warnings,
            "id": self.id,
            "number": self.number,
            "parent": self.parent,
            "forked_at": self.forked_at,
            "folder": self.folder,
            "name": self.name,
            "note": self.note,
        }


_Number = TypeVar("_Number", int, float)


def _number(value: object, kind: type[_Number]) -> _Number:
    return kind(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else kind(0)


def parent_of_header(header: Mapping[str, object]) -> str | None:
    """The session a header says it was forked from, or None."""
    parent = header.get("parent")
    if isinstance(parent, dict):
        parent = parent.get("session")
    return str(parent) if isinstance(parent, str) else None


def forked_at_of_header(header: Mapping[str, object]) -> str | None:
    """The step a fork's header says it branched at, or None."""
    at = header.get("forked_at")
    parent = header.get("parent")
    if not isinstance(at, str) and isinstance(parent, dict):
        at = parent.get("forked_at")
    return at if isinstance(at, str) and parent_of_header(header) is not None else None


def _info_from(path: Path, header: dict[str, Any], summary: dict[str, Any], size: int, mtime: float) -> SessionInfo:
    tokens = total(tokens_from_dict(summary.get("tokens")))
    problem = section(header, "problem")
    return SessionInfo(
        path=path,
        created=str(header.get("created") or time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(mtime))),
        title=session_title(header),
        model=str(header.get("model", "")),
        workflow=str(header.get("workflow", "")),
        outcome=str(summary.get("outcome", "")),
        accepted_at=summary.get("accepted_at"),
        tokens_in=tokens.input,
        tokens_out=tokens.output,
        llm_calls=_number(summary.get("llm_calls"), int),
        duration=_number(summary.get("duration"), float),
        size=size,
        format_version=int(header.get("format_version", 0)),
        task_id=str(problem["task_id"]) if problem.get("task_id") is not None else None,
        parent=parent_of_header(header),
        forked_at=forked_at_of_header(header),
        warnings=list(summary.get("warnings") or []),
    )


#: How much of a file's end is read looking for its last line, step by step.
_TAIL_STEPS = (8 * 1024, 64 * 1024, 1024 * 1024)
#: An unfinished plain session up to this size is read whole to count its
#: tokens; a larger one is listed from its header alone.
_FULL_READ_LIMIT = 16 * 1024 * 1024
#: A compressed session is read (decompressed) up to this much for its last line.
_COMPRESSED_READ_LIMIT = 64 * 1024 * 1024


def session_info(path: Path | str) -> SessionInfo:
    """Summary metadata of one session, read cheaply: the header and, for a
    finished run, only the last line; never more than a bounded amount of any
    file. Raises :class:`SessionError`."""
    return scan_session(path)[0]


#: A session's first and last lines as its writer wrote them (UTF-8, without
#: their newlines): what :func:`scan_session` would read back from the file.
WrittenEnds = tuple[bytes, bytes]


def scan_session(path: Path | str, written: WrittenEnds | None = None) -> tuple[SessionInfo, dict[str, str]]:
    """:func:`session_info` plus the texts the index searches (the problem
    statement and the final program). ``written``: the file's first and last
    lines from the writer that has just closed it, read as the file's would
    be without opening it (a bench indexes 164 sessions at its end)."""
    path = Path(path)
    try:
        st = path.stat()
    except OSError:
        raise SessionError(f"{path}: no such file") from None
    summary: dict[str, Any] | None = None
    final_program = ""
    last: bytes | None
    if written is not None:
        header = header_from_line(path, written[0])
        compressed = False
        last = written[1]
    else:
        header = read_header(path)
        compressed = _is_gzip(path)
        last = _last_line(path, st.st_size, compressed)
    if last is not None:
        data, _ = reader._decode(last)
        event, _problem = reader.event_from_line(data)
        if isinstance(event, RunFinished):
            final_program = event.final_program
            summary = {
                "outcome": event.outcome,
                "accepted_at": event.accepted_at,
                "llm_calls": event.llm_calls,
                "tokens": event.tokens,
                "duration": event.duration,
                "warnings": [],
            }
    if summary is None:
        limit = _COMPRESSED_READ_LIMIT if compressed else _FULL_READ_LIMIT
        if compressed or st.st_size <= limit:
            summary = dict(reader.read_session(path, max_bytes=limit).summary())
        else:
            summary = {
                "outcome": "incomplete",
                "warnings": [
                    f"the session does not end with a finished run and is too large to summarise in a listing "
                    f"({st.st_size // 2**20} MB): `qflow replay` reads it whole"
                ],
            }
    info = _info_from(path, header, summary, st.st_size, st.st_mtime)
    problem = section(header, "problem")
    benchmark = header.get("benchmark")
    return info, {
        "statement": str(problem.get("statement", "")),
        "final_program": final_program,
        "benchmark": benchmark if isinstance(benchmark, str) else "",
    }


def _is_gzip(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(2) == b"\x1f\x8b"
    except OSError:
        return False


def _last_line(path: Path, size: int, compressed: bool) -> bytes | None:
    """The file's last whole line, reading a bounded amount; None when the file
    does not end with a newline (a run still writing, or cut off)."""
    try:
        if compressed:
            last = b""
            read = 0
            with _open_for_read(path) as fh:
                for line in iter(lambda: fh.readline(reader.MAX_LINE_BYTES), b""):
                    read += len(line)
                    if read > _COMPRESSED_READ_LIMIT:
                        return None
                    last = line
            tail = last
        else:
            with _open_for_read(path) as fh:
                for want in _TAIL_STEPS:
                    fh.seek(max(0, size - want))
                    tail = fh.read(want)
                    body = tail.rstrip(b"\n")
                    # Enough when the last line's start is inside what was read.
                    if b"\n" in body or want >= size:
                        break
                else:
                    return None
    except SessionError:
        return None
    except READ_ERRORS:
        return None
    if not tail.endswith(b"\n"):
        return None
    return tail.rstrip(b"\n").rsplit(b"\n", 1)[-1]


@dataclass
class Unreadable:
    """A file in a sessions folder that is not a readable session."""

    path: Path
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"path": str(self.path), "reason": self.reason}


def stored_path(path: str) -> str:
    """A path as the index keeps it and a listing names it: as it is when it is valid text; a name
    that is not valid UTF-8 (bytes Python holds as lone surrogates) spelled
    with ``\\xNN`` for those bytes, which SQLite takes and a person can read."""
    stored = valid_text(path)
    if stored is path or stored == path:
        return path
    try:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
    except UnicodeError:  # not a name from the file system
        return stored


#: Why a file whose path is not text is skipped.
BAD_NAME = "its name (or its folder's) is not valid UTF-8: rename it to list it"


def session_files(directory: Path, *, recursive: bool = False) -> list[Path]:
    """The session files (plain and compressed) in ``directory``; regular files only."""
    out: list[Path] = []
    stack = [directory]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        bench = is_bench_folder(e.name for e in entries)
        for entry in entries:
            try:
                if not bench and entry.is_file(follow_symlinks=True) and is_session_name(entry.name):
                    out.append(Path(entry.path))
                elif recursive and entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."):
                    stack.append(Path(entry.path))
            except OSError:
                continue
    return out


def list_sessions(
    directory: Path | str | None = None, *, recursive: bool = False
) -> tuple[list[SessionInfo], list[Unreadable]]:
    """Every ``*.jsonl`` session in ``directory`` (the user's sessions folder by
    default), newest first with each fork under its parent, and the files that
    could not be read with why."""
    if directory is None:
        directory = sessions_dir()
    directory = Path(directory)
    if not directory.is_dir():
        return [], []
    found: list[SessionInfo] = []
    bad: list[Unreadable] = []
    for path in session_files(directory, recursive=recursive):
        if (shown := stored_path(str(path))) != str(path):
            bad.append(Unreadable(Path(shown), BAD_NAME))
            continue
        try:
            info = session_info(path)
        except SessionError as exc:
            bad.append(Unreadable(path, str(exc).removeprefix(f"{path}: ")))
            continue
        info.folder = "" if path.parent == directory else str(path.parent.relative_to(directory))
        found.append(info)
    found.sort(key=lambda s: (s.created, s.path.name), reverse=True)
    # Numbered in the order a listing shows them: newest first, each fork
    # under its parent (as the index numbers them).
    found = fork_tree(found, lambda s: str(s.path), lambda s: s.parent).order
    for number, info in enumerate(found, start=1):
        info.number = number
    bad.sort(key=lambda u: u.path.name)
    return found, bad


def delete_session(path: Path | str) -> None:
    """Delete a session file; refuses a file that is not a session (never
    deletes what it does not recognise). Raises :class:`SessionError`."""
    path = Path(path)
    read_header(path)
    try:
        path.unlink()
    except OSError as exc:
        raise SessionError(f"{path}: cannot delete it ({exc.strerror or exc})") from None
