"""The session file format: its name and version, the header check, the
upgrades of older versions, and the one error type of everything that reads
session files."""

from __future__ import annotations

import gzip
import json
import os
import stat
import zlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import IO, Any, Literal, Required, TypedDict

from ... import __version__
from ..jsontypes import JSONObject
from ..problem import title_from
from ..safe_text import valid_json_text

SESSION_FORMAT = "qflow-session"
#: Version 2 records streamed text compactly (see :mod:`.writer`); a version 1
#: file is a version 2 file without ``text_deltas`` lines.
#: Version 3 writes a ``text_deltas`` line's chunks relative to each other
#: (``d``); version 2's absolute ``chunks`` are still read.
SESSION_FORMAT_VERSION = 3
#: Oldest format version this build can still replay (older ones are upgraded
#: line by line with :data:`UPGRADES`).
OLDEST_READABLE_VERSION = 1
SESSION_SUFFIX = ".jsonl"
#: A finished session compressed with gzip (``gzip -d`` opens it).
COMPRESSED_SUFFIX = ".jsonl.gz"
SESSION_SUFFIXES = (SESSION_SUFFIX, COMPRESSED_SUFFIX)


class ForkParent(TypedDict):
    """A forked session's ``parent``: where it was forked from."""

    session: str
    forked_at: str
    progression: int | None


class SessionHeader(TypedDict, total=False):
    """A session file's first line, as :class:`.writer.SessionWriter` writes it.

    A reader still checks every field: a file may come from anywhere."""

    format: Required[str]
    format_version: Required[int]
    event_version: int
    app_version: str
    created: str
    workflow: str
    model: str
    title: str
    """The problem's title (or its entry point): what lists show."""
    config: JSONObject
    """The run's settings, as :func:`qflow_tui.core.workflows.values.recorded_config` gives them."""
    problem: JSONObject
    """The problem, as :meth:`qflow_tui.core.problem.Problem.to_dict` gives it."""
    streams: Literal["compact"]
    """Present when streamed text is written as ``text_deltas`` lines."""
    # Fields a run adds (``extra``):
    sampling: dict[str, str]
    """The sampling settings really sent to the model, in words."""
    parent: ForkParent
    forked_at: str
    edits: list[str]
    """A fork's edits, in words."""
    benchmark: str


class TextDeltasLine(TypedDict, total=False):
    """The streamed chunks of one model call (format version 3, compact streams)."""

    kind: Required[Literal["text_deltas"]]
    call_id: Required[str]
    d: Required[list[list[int]]]
    """Each chunk ``[seq, ms, chars]`` (``, merged``), counted from the chunk before."""
    text: str
    """What streamed, when the call's ``response`` cannot give it back."""


#: ``UPGRADES[v]`` turns one line (header or event dict) of format ``v`` into
#: format ``v + 1``; a file is readable when every step from its version up to
#: the current one is here.
UPGRADES: dict[int, Callable[[JSONObject, bool], JSONObject]] = {
    1: lambda obj, is_header: {**obj, "format_version": 2} if is_header else obj,
    2: lambda obj, is_header: {**obj, "format_version": 3} if is_header else obj,
}

#: Events that end a run.
TERMINAL_KINDS = ("run_finished", "run_failed")
#: The first line may hold the problem and config; never read more than this
#: looking for it (a big file that is not a session is refused quickly).
_MAX_HEADER_BYTES = 8 * 1024 * 1024


class SessionError(ValueError):
    """A file that cannot be replayed; the message says why, in one line."""


def section(header: Mapping[str, object], name: str) -> dict[str, Any]:
    """A header's ``problem`` or ``config`` object; empty when missing or not an object."""
    value = header.get(name)
    return value if isinstance(value, dict) else {}


def session_title(header: Mapping[str, object]) -> str:
    """The session's title as recorded; for one recorded before benchmark
    problems were titled by id (a HumanEval title was its prompt's first line,
    ``from typing import List``), the title they get now."""
    problem = section(header, "problem")
    title = str(header.get("title") or problem.get("title") or problem.get("entry_point") or "untitled")
    if title.startswith(("from ", "import ")) and isinstance(problem.get("statement"), str):
        task_id = problem.get("task_id")
        entry = problem.get("entry_point")
        title = title_from(
            problem["statement"], task_id if isinstance(task_id, str) else None, entry if isinstance(entry, str) else ""
        )
    return title


def _check_header(path: Path, first: bytes) -> dict[str, Any]:
    text = first.decode("utf-8", errors="replace").lstrip("\ufeff").strip()
    if not text:
        raise SessionError(f"{path}: empty file, not a qflow session")
    try:
        header = json.loads(valid_json_text(text))
    except (json.JSONDecodeError, RecursionError):
        raise SessionError(f"{path}: not a qflow session (the first line is not a JSON header)") from None
    if not isinstance(header, dict) or header.get("format") != SESSION_FORMAT:
        raise SessionError(f"{path}: not a qflow session (no '{SESSION_FORMAT}' header)")
    version = header.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise SessionError(f"{path}: qflow session with no readable format version ({version!r}); cannot replay it")
    if version > SESSION_FORMAT_VERSION:
        raise SessionError(
            f"{path}: session format version {version} was written by a newer qflow "
            f"({header.get('app_version', 'unknown version')}); this qflow {__version__} reads up to "
            f"version {SESSION_FORMAT_VERSION}: upgrade qflow-tui to replay it"
        )
    if version < OLDEST_READABLE_VERSION or any(v not in UPGRADES for v in range(version, SESSION_FORMAT_VERSION)):
        raise SessionError(
            f"{path}: session format version {version} is too old for this qflow {__version__} "
            f"(it reads versions {OLDEST_READABLE_VERSION} to {SESSION_FORMAT_VERSION})"
        )
    return header


def _upgrade(obj: JSONObject, version: int, is_header: bool) -> JSONObject:
    for v in range(version, SESSION_FORMAT_VERSION):
        obj = UPGRADES[v](obj, is_header)
    return obj


#: A bench folder's spec: beside it, ``results.jsonl`` and exported samples are
#: the bench's own files; its sessions are in its ``sessions/`` sub-folder.
BENCH_SPEC = "bench.json"


def is_session_name(name: str) -> bool:
    return name.endswith(SESSION_SUFFIXES) and not name.startswith(".")


def is_bench_folder(names: Iterable[str]) -> bool:
    """Whether a folder with these entries is a bench's top folder (whose own
    JSONL files are not sessions)."""
    return BENCH_SPEC in names


def session_stem(path: Path) -> str:
    """``x.jsonl`` and ``x.jsonl.gz`` -> ``x``."""
    name = path.name
    for suffix in (COMPRESSED_SUFFIX, SESSION_SUFFIX):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def _open_for_read(path: Path) -> IO[bytes]:
    """Open a session file for reading, plain or gzip-compressed (told by its
    first bytes, not its name). Only regular files: a FIFO or a device would
    block or never end."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise SessionError(f"{path}: no such file") from None
    except PermissionError:
        raise SessionError(f"{path}: cannot be read (permission denied)") from None
    except (OSError, ValueError) as exc:
        raise SessionError(f"{path}: cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    if stat.S_ISDIR(st.st_mode):
        raise SessionError(f"{path}: is a folder, not a session file")
    if not stat.S_ISREG(st.st_mode):
        raise SessionError(f"{path}: not a regular file (a pipe, socket or device); give a session file")
    try:
        # O_NONBLOCK: should the path have become a FIFO since the check, the
        # open does not wait for a writer.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        fh = os.fdopen(fd, "rb")
    except PermissionError:
        raise SessionError(f"{path}: cannot be read (permission denied)") from None
    except OSError as exc:
        raise SessionError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
        fh.close()
        raise SessionError(f"{path}: not a regular file (a pipe, socket or device); give a session file")
    try:
        magic = fh.peek(2)[:2]
    except OSError as exc:
        fh.close()
        raise SessionError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if magic == b"\x1f\x8b":
        fh.close()
        try:
            return gzip.open(path, "rb")  # type: ignore[return-value]  # a GzipFile is an IO[bytes] in all but name
        except OSError as exc:
            raise SessionError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return fh


#: What reading a compressed file can raise when it is cut or damaged.
READ_ERRORS: tuple[type[BaseException], ...] = (OSError, EOFError, zlib.error)
