"""Writing a session: a header line, then each event appended and flushed as it
happens, so a crash or ``kill -9`` loses at most the event being written.

Streamed text is recorded compactly: the text of a model call is kept once, on
its ``llm_call_finished`` line (``response``), and its stream is recorded as a
``text_deltas`` line written just before it, holding for each chunk only its
sequence number, time and length (``d``: each counted from the chunk before, see
:func:`relative_chunks`), with the chunks of one call that came within
:data:`COALESCE_SECONDS` of each other merged (and a slow model's single tokens
gathered up to :data:`MIN_CHUNK_CHARS`). Replay cuts the response back
into those chunks, so it streams as it happened (calls interleaving in their
order and at their times). A failed call's line carries the text it had
streamed. What a ``kill -9`` loses is the streamed text of calls still in
flight, which never had a response.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import gzip
import json
import os
import re
import secrets as _secrets
import shutil
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO

from ... import __version__
from ..events import (
    EVENT_FORMAT_VERSION,
    Event,
    LLMCallFailed,
    LLMCallFinished,
    LLMCallGivenUp,
    LLMCallRetry,
    TextDelta,
)
from ..jsontypes import JSONObject, JSONValue
from ..safe_text import valid_text
from .fileformat import (
    COMPRESSED_SUFFIX,
    SESSION_FORMAT,
    SESSION_FORMAT_VERSION,
    SESSION_SUFFIX,
    SessionError,
    SessionHeader,
    TextDeltasLine,
    session_stem,
)
from .index import SessionIndex, note_session
from .reader import read_session
from .redaction import redact, secret_values


def _slug(text: str) -> str:
    s = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()
    return s[:40].strip("-") or "run"


def new_session_path(directory: Path, title: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path(directory) / f"{stamp}-{_slug(title)}-{_secrets.token_hex(3)}{SESSION_SUFFIX}"


def _dumps(obj: Mapping[str, object]) -> str:
    """One line of JSON for ``obj``, whatever it holds: the writer is the last
    line of defence, so content never stops the recording. An odd value is
    written as its ``str`` (``default``); keys JSON cannot take, a cycle or
    nesting too deep are written as far as they go (:func:`_plain`); text that
    is not valid Unicode (a lone surrogate from a program or a provider) is
    made valid, with its lone surrogates marked as U+FFFD."""
    try:
        line = json.dumps(obj, ensure_ascii=False, default=_text_of)
    except (TypeError, ValueError, RecursionError):
        line = json.dumps(_plain(obj, 0, set()), ensure_ascii=False)
    return valid_text(line)


def _event_dict(event: Event) -> dict[str, object]:
    try:
        return event.to_dict()
    except (TypeError, ValueError, RecursionError):  # a field holding a cycle, or an object asdict cannot copy
        fields = {f.name: _plain(getattr(event, f.name, None), 1, set()) for f in dataclasses.fields(event)}
        return {"kind": event.kind, **fields}


def _text_of(value: object) -> str:
    try:
        return str(value)
    except Exception:  # an object whose __str__ fails still leaves a trace
        return f"<{type(value).__name__}>"


def _plain(value: object, depth: int, path: set[int]) -> JSONValue:
    """``value`` as plain JSON data: string keys, lists for tuples, the text of
    anything else, and a mark where a cycle closes or nesting goes too deep."""
    if isinstance(value, int) and value.bit_length() > 14_000:
        return f"<a whole number of {value.bit_length()} bits>"  # beyond int-to-text's digit limit
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if not isinstance(value, (dict, list, tuple)):
        return _text_of(value)
    if depth > 100 or id(value) in path:
        return "…"
    path.add(id(value))
    try:
        if isinstance(value, dict):
            return {k if isinstance(k, str) else _text_of(k): _plain(v, depth + 1, path) for k, v in value.items()}
        return [_plain(v, depth + 1, path) for v in value]
    finally:
        path.discard(id(value))


#: Chunks of one call's stream closer together than this are recorded as one.
COALESCE_SECONDS = 0.25
#: A recorded chunk shorter than this many characters takes in the next delta
#: up to :data:`SLOW_COALESCE_SECONDS` after it started: a slow model streams a
#: token at a time, and a chunk's record (about 10 bytes) would outweigh its text.
MIN_CHUNK_CHARS = 32
SLOW_COALESCE_SECONDS = 1.0


class _Stream:
    """The recorded chunks of one call in flight: ``[seq, ts, chars, merged]``."""

    __slots__ = ("chunks", "text")

    def __init__(self) -> None:
        self.chunks: list[list[float]] = []
        self.text: list[str] = []

    def add(self, seq: int, ts: float, text: str, merged: int = 1) -> None:
        last = self.chunks[-1] if self.chunks else None
        since = ts - last[1] if last is not None else 0.0
        if last is not None and (
            since < COALESCE_SECONDS or (last[2] < MIN_CHUNK_CHARS and since < SLOW_COALESCE_SECONDS)
        ):
            last[2] += len(text)
            last[3] += merged
        else:
            self.chunks.append([seq, round(ts, 3), len(text), merged])
        self.text.append(text)


def relative_chunks(chunks: list[list[float]]) -> list[list[int]]:
    """Chunks as written: each ``[seq, ms, chars]`` (``, merged`` when more than
    one delta) with seq and time in milliseconds counted from the chunk before
    (the first from zero): a few bytes a chunk instead of two absolute numbers."""
    out: list[list[int]] = []
    seq0, ms0 = 0, 0
    for seq_at, ts, chars, merged in chunks:  # whole numbers but the time
        seq, ms = int(seq_at), round(ts * 1000)
        entry = [seq - seq0, ms - ms0, int(chars)]
        if merged != 1:
            entry.append(int(merged))
        out.append(entry)
        seq0, ms0 = seq, ms
    return out


#: True inside a :func:`synced_by_caller` block: a writer's close leaves the
#: file's ``fsync`` to the code that opened the block.
_CALLER_SYNCS: contextvars.ContextVar[bool] = contextvars.ContextVar("qflow_caller_syncs", default=False)


@contextlib.contextmanager
def synced_by_caller() -> Iterator[None]:
    """Sessions closed inside the block (in this context and the tasks it
    starts) are flushed to the operating system as always but not synced to
    the disk: the caller syncs each one with :func:`sync_file`, off its event
    loop, before it records anything that points at the session (a bench's
    results line). An ``fsync`` waits for the disk (10 ms or more on a busy
    machine), and a bench of 164 problems made 164 of them on its event loop."""
    token = _CALLER_SYNCS.set(True)
    try:
        yield
    finally:
        _CALLER_SYNCS.reset(token)


def sync_file(path: Path) -> None:
    """Wait until what was written to ``path`` is on the disk (best effort:
    a file that cannot be opened or synced is passed by, as a writer's close
    passes by a failed sync). Blocks: call it in a thread from async code."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _create(path: Path) -> IO[str]:
    """``path`` opened for writing, made new (its folders too), or an empty
    file there taken over; a file with anything in it raises
    ``FileExistsError`` (two headers would make it unreadable). The open comes
    first: a bench makes hundreds in one folder, which exists after the first."""
    try:
        return open(path, "x", encoding="utf-8")
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        return open(path, "x", encoding="utf-8")
    except FileExistsError:
        try:
            empty = path.stat().st_size == 0
        except OSError:
            empty = False  # a link to nothing: as taken as any other name
        if not empty:
            raise
        return open(path, "w", encoding="utf-8")


class SessionWriter:
    """An event sink that appends each event to a JSONL file as it happens.

    The file is created fresh (an existing non-empty file is never appended to:
    two headers would make it unreadable). Every line is flushed at once; the
    operating system keeps it even if this process is killed the next moment.
    Closing syncs the file to the disk (so a power cut keeps a finished run),
    unless a :func:`synced_by_caller` block leaves that to its caller.
    """

    def __init__(
        self,
        path: Path,
        *,
        workflow: str,
        model: str,
        config: JSONObject,
        problem: JSONObject,
        env: dict[str, str] | None = None,
        compact: bool = True,
        extra: Mapping[str, object] | None = None,
        index: bool = True,
        copy_header: Mapping[str, object] | None = None,
    ) -> None:
        """``compact=False`` writes every text delta as a line of its own (the
        version 1 layout, still valid). ``extra`` adds header fields (a
        benchmark names itself with ``{"benchmark": ...}``). ``index`` notes the
        finished session in the sessions index when the writer closes.
        ``copy_header`` writes that header instead (an export)."""
        self.path = Path(path)
        self._secrets = secret_values(env)
        self.compact = compact
        self._index = index
        self._streams: dict[str, _Stream] = {}
        self._first: str | None = None
        self._last = ""
        self._whole = True
        """Every line went to the file whole: its first and last lines are
        ``_first`` and ``_last``, and the index takes them from here."""
        self._fh: IO[str] | None = _create(self.path)
        title = problem.get("title") or problem.get("entry_point") or ""
        header: SessionHeader = {
            "format": SESSION_FORMAT,
            "format_version": SESSION_FORMAT_VERSION,
            "event_version": EVENT_FORMAT_VERSION,
            "app_version": __version__,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "workflow": workflow,
            "model": model,
            "title": title if isinstance(title, str) else str(title),
            "config": config,
            "problem": problem,
        }
        if compact:
            header["streams"] = "compact"
        written: Mapping[str, object] = {**header, **(extra or {})}
        if copy_header is not None:
            written = {**copy_header, "format_version": SESSION_FORMAT_VERSION}
        self._write(written)

    def _write(self, obj: Mapping[str, object]) -> None:
        if self._fh is None:
            return
        line = redact(_dumps(obj), self._secrets)
        try:
            self._fh.write(line + "\n")
            self._fh.flush()
        except BaseException:
            self._whole = False  # the file may hold part of the line: the index reads the file
            raise
        if self._first is None:
            self._first = line
        self._last = line

    def __call__(self, event: Event) -> None:
        if self.compact:
            # A call's stream is written once the call ends (or fails, or waits to retry).
            match event:
                case TextDelta():
                    # An event read back from a compact file stands for ``merged`` deltas.
                    merged = getattr(event, "merged", 1)
                    self._streams.setdefault(event.call_id, _Stream()).add(event.seq, event.ts, event.text, merged)
                    return
                case LLMCallFinished(call_id=call_id, response=response) if call_id in self._streams:
                    self._write_stream(call_id, response)
                case (
                    LLMCallFailed(call_id=call_id) | LLMCallRetry(call_id=call_id) | LLMCallGivenUp(call_id=call_id)
                ) if call_id in self._streams:
                    self._write_stream(call_id, None)
        self._write(_event_dict(event))

    def _write_stream(self, call_id: str, response: str | None) -> None:
        stream = self._streams.pop(call_id)
        line: TextDeltasLine = {"kind": "text_deltas", "call_id": call_id, "d": relative_chunks(stream.chunks)}
        text = "".join(stream.text)
        if response is None or text != response or redact(text, self._secrets) != text:
            # No response to cut it from (a failed call), or one that differs
            # from what streamed: keep what streamed.
            line["text"] = text
        self._write(line)

    @property
    def closed(self) -> bool:
        return self._fh is None

    def close(self) -> None:
        if self._fh is not None:
            for call_id in list(self._streams):
                self._write_stream(call_id, None)
            fh, self._fh = self._fh, None
            try:
                fh.flush()
            except OSError:
                self._whole = False
            try:
                if not _CALLER_SYNCS.get():
                    os.fsync(fh.fileno())
            except OSError:
                pass
            fh.close()
            if self._index:
                ends = (self._first.encode(), self._last.encode()) if self._whole and self._first else None
                note_session(self.path, ends)

    def __enter__(self) -> SessionWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def compress_session(path: Path | str) -> Path:
    """Compress a finished session with gzip (``x.jsonl`` -> ``x.jsonl.gz``, which
    ``gzip -d`` opens too) and remove the original once the copy is on disk.
    Refuses a run that has not finished (its writer may still be appending).
    Raises :class:`SessionError`."""
    path = Path(path)
    if path.name.endswith(COMPRESSED_SUFFIX):
        raise SessionError(f"{path}: already compressed")
    data = read_session(path)
    if data.finished is None:
        raise SessionError(f"{path}: the run has not finished; only finished sessions are compressed")
    if data.warnings:
        raise SessionError(f"{path}: not compressed, it has read problems ({data.warnings[0]})")
    dest = path.with_name(session_stem(path) + COMPRESSED_SUFFIX)
    tmp = dest.with_name(dest.name + ".part")
    try:
        with open(path, "rb") as src, gzip.open(tmp, "wb", compresslevel=6) as out:
            shutil.copyfileobj(src, out)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, dest)
        shutil.copystat(path, dest)
        path.unlink()
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise SessionError(f"{path}: cannot compress it ({exc.strerror or exc})") from None
    index = SessionIndex()
    index.forget(path)
    index.note(dest)
    return dest
