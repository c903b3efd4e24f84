"""Listing a folder of sessions with summary metadata, read cheaply (the header
and the last line of a finished run), and deleting one."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import fileformat, reader
from .fileformat import SESSION_SUFFIX, SessionError, section, session_title
from .reader import read_header


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
                self.model,
                self.workflow,
                self.outcome,
                self.created,
                self.path.name,
                self.task_id or "",
            )
        ).lower()
        return all(word in hay for word in text.split())

    def to_dict(self) -> dict[str, Any]:
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
        }


def _info_from(path: Path, header: dict[str, Any], summary: dict[str, Any], size: int, mtime: float) -> SessionInfo:
    tokens = summary.get("tokens") or {}
    problem = section(header, "problem")
    return SessionInfo(
        path=path,
        created=str(header.get("created") or time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(mtime))),
        title=session_title(header),
        model=str(header.get("model", "")),
        workflow=str(header.get("workflow", "")),
        outcome=str(summary.get("outcome", "")),
        accepted_at=summary.get("accepted_at"),
        tokens_in=sum(int(t.get("input", 0)) for t in tokens.values() if isinstance(t, dict)),
        tokens_out=sum(int(t.get("output", 0)) for t in tokens.values() if isinstance(t, dict)),
        llm_calls=int(summary.get("llm_calls") or 0),
        duration=float(summary.get("duration") or 0.0),
        size=size,
        format_version=int(header.get("format_version", 0)),
        task_id=problem.get("task_id"),
        warnings=list(summary.get("warnings") or []),
    )


_TAIL_BYTES = 64 * 1024
_info_cache: dict[Path, tuple[tuple[float, int], SessionInfo]] = {}


def session_info(path: Path | str) -> SessionInfo:
    """Summary metadata of one session, read cheaply: the header and, for a
    finished run, only the last line. Raises :class:`SessionError`."""
    path = Path(path)
    try:
        st = path.stat()
    except OSError:
        raise SessionError(f"{path}: no such file") from None
    stamp = (st.st_mtime, st.st_size)
    cached = _info_cache.get(path)
    if cached and cached[0] == stamp:
        return cached[1]
    header = read_header(path)
    summary: dict[str, Any] | None = None
    if header.get("format_version") == fileformat.SESSION_FORMAT_VERSION:
        summary = _summary_from_tail(path, st.st_size)
    if summary is None:
        summary = reader.read_session(path).summary()
    info = _info_from(path, header, summary, st.st_size, st.st_mtime)
    _info_cache[path] = (stamp, info)
    return info


def _summary_from_tail(path: Path, size: int) -> dict[str, Any] | None:
    """The summary from the final run_finished line, or None when the file does
    not end with one (then the caller reads the whole file)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, size - _TAIL_BYTES))
            tail = fh.read()
    except OSError:
        return None
    if not tail.endswith(b"\n"):
        return None
    last = tail.rstrip(b"\n").rsplit(b"\n", 1)[-1]
    try:
        data = json.loads(last.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(data, dict) or data.get("kind") != "run_finished":
        return None
    tokens = section(data, "tokens")
    return {
        "outcome": data.get("outcome", ""),
        "accepted_at": data.get("accepted_at"),
        "llm_calls": data.get("llm_calls", 0),
        "tokens": tokens,
        "duration": data.get("duration", 0.0),
        "warnings": [],
    }


@dataclass
class Unreadable:
    """A file in a sessions folder that is not a readable session."""

    path: Path
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "reason": self.reason}


def list_sessions(
    directory: Path | str | None = None, *, recursive: bool = False
) -> tuple[list[SessionInfo], list[Unreadable]]:
    """Every ``*.jsonl`` session in ``directory`` (the user's sessions folder by
    default), newest first, and the files that could not be read with why."""
    if directory is None:
        from ...locations import sessions_dir

        directory = sessions_dir()
    directory = Path(directory)
    if not directory.is_dir():
        return [], []
    pattern = f"**/*{SESSION_SUFFIX}" if recursive else f"*{SESSION_SUFFIX}"
    found: list[SessionInfo] = []
    bad: list[Unreadable] = []
    for path in directory.glob(pattern):
        if not path.is_file():
            continue
        try:
            found.append(session_info(path))
        except SessionError as exc:
            bad.append(Unreadable(path, str(exc).removeprefix(f"{path}: ")))
    found.sort(key=lambda s: (s.created, s.path.name), reverse=True)
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
    _info_cache.pop(path, None)
