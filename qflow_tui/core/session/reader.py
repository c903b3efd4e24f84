"""Reading a session back: the header checked, every whole event parsed, a
truncated or corrupt tail reported in words while the valid prefix still
replays; and the run's summary from what was read."""

from __future__ import annotations

import itertools
import json
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..events import (
    Event,
    LLMCallFailed,
    LLMCallFinished,
    LLMCallStarted,
    RunFailed,
    RunFinished,
    TextDelta,
    event_kinds,
)
from ..jsontypes import JSONObject
from ..llm._http import is_local
from ..llm.prices import PriceError, load_prices, run_cost
from ..run_state import RunState
from ..safe_text import valid_json_text
from ..summary import RunSummary, SummaryRecord
from ..workflows.described import read_as_now
from . import fileformat
from .fileformat import (
    _MAX_HEADER_BYTES,
    READ_ERRORS,
    SessionError,
    _check_header,
    _open_for_read,
    _upgrade,
    session_title,
)


@dataclass
class SessionData:
    path: Path
    header: dict[str, Any]
    events: list[Event]
    warnings: list[str] = field(default_factory=list)
    """What could not be read (a truncated or corrupt tail, skipped events), in
    words to show a user; the events before it are still here."""

    @property
    def finished(self) -> RunFinished | RunFailed | None:
        """The run's last event when it ended (finished or failed), else None."""
        for e in reversed(self.events):
            if isinstance(e, RunFinished | RunFailed):
                return e
        return None

    @property
    def format_version(self) -> int:
        return int(self.header.get("format_version", 0))

    @property
    def title(self) -> str:
        return session_title(self.header)

    @property
    def model(self) -> str:
        return str(self.header.get("model", ""))

    def summary(self) -> SummaryRecord:
        """The run's result in the ``qflow solve --json`` shape, plus ``warnings``
        (read problems, and why there is no result when the run did not finish)."""
        return summarize(self).to_dict()


#: One line longer than this is damage, not an event (a model answer is far
#: smaller): reading stops there, so memory stays bounded whatever the file.
MAX_LINE_BYTES = 64 * 1024 * 1024
#: Header fields and the type each must have; a field of another type is
#: dropped with a warning rather than trusted.
_HEADER_TYPES: dict[str, type | tuple[type, ...]] = {
    "created": str,
    "workflow": str,
    "model": str,
    "title": str,
    "app_version": str,
    "config": dict,
    "problem": dict,
    "parent": (str, dict),
}


def read_header(path: Path | str) -> JSONObject:
    """Read and check only the header line. Raises :class:`SessionError`."""
    path = Path(path)
    with _open_for_read(path) as fh:
        try:
            first = fh.readline(_MAX_HEADER_BYTES)
        except READ_ERRORS as exc:
            raise SessionError(f"{path}: cannot be read ({_why(exc)})") from None
    header = _check_header(path, first)
    _clean_header(header)
    return header


def header_from_line(path: Path, first: bytes) -> JSONObject:
    """The header of the session at ``path`` from its first line, checked as
    :func:`read_header` checks the file's. Raises :class:`SessionError`."""
    header = _check_header(path, first)
    _clean_header(header)
    return header


def _why(exc: BaseException) -> str:
    return str(getattr(exc, "strerror", None) or exc) or type(exc).__name__


def _clean_header(header: JSONObject) -> list[str]:
    warnings = []
    for name, kind in _HEADER_TYPES.items():
        if name in header and header[name] is not None and not isinstance(header[name], kind):
            warnings.append(f"the header's {name!r} is not {_type_words(kind)}; ignored")
            del header[name]
    return warnings


def _type_words(kind: type | tuple[type, ...]) -> str:
    names = {str: "text", dict: "an object", int: "a whole number"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def read_session(path: Path | str, *, max_bytes: int | None = None) -> SessionData:
    """Read a session file (plain or gzip). A truncated or corrupt tail is
    reported as a warning and the valid prefix is returned; a file that is not
    a session, or one of a format version this build cannot read, raises
    :class:`SessionError`. ``max_bytes`` stops reading after that many bytes
    (of decompressed text), with a warning."""
    path = Path(path)
    with _open_for_read(path) as fh:
        try:
            first = fh.readline(_MAX_HEADER_BYTES)
        except READ_ERRORS as exc:
            raise SessionError(f"{path}: cannot be read ({_why(exc)})") from None
        header = _check_header(path, first)
        version = header["format_version"]
        if version != fileformat.SESSION_FORMAT_VERSION:
            header = _upgrade(header, version, True)
        header_warnings = _clean_header(header)
        events, warnings = _parse_events(_lines(fh, max_bytes), version, compact=header.get("streams") == "compact")
    # What an older build recorded is read as this build records it (the first
    # event's description, typed stops), so no reader needs a fallback.
    read_as_now(events)
    if not first.endswith(b"\n"):
        warnings.insert(0, "truncated after the header: the run recorded no events")
    return SessionData(path=path, header=header, events=events, warnings=header_warnings + warnings)


class _Line:
    """One line of the file as read: its bytes, whether it ended with a newline,
    and why reading stopped at it (if it did)."""

    __slots__ = ("data", "stop", "whole")

    def __init__(self, data: bytes, whole: bool, stop: str = "") -> None:
        self.data = data
        self.whole = whole
        self.stop = stop


def _lines(fh: IO[bytes], max_bytes: int | None) -> Iterator[_Line]:
    read = 0
    while True:
        try:
            raw = fh.readline(MAX_LINE_BYTES + 1)
        except READ_ERRORS as exc:
            yield _Line(b"", False, f"the file cannot be read further ({_why(exc)})")
            return
        if not raw:
            return
        read += len(raw)
        if len(raw) > MAX_LINE_BYTES:
            yield _Line(b"", False, f"a line longer than {MAX_LINE_BYTES // 2**20} MB")
            return
        yield _Line(raw, raw.endswith(b"\n"))
        if max_bytes is not None and read >= max_bytes:
            yield _Line(b"", False, f"stopped reading after {read // 2**20} MB")
            return


def _count_rest(lines: Iterator[_Line]) -> int:
    return sum(1 for line in lines if line.data.strip())


# -- checking an event's fields against its declared types --------------------------------------


_FIELD_TYPES: dict[str, dict[str, object]] = {}


def _field_types(cls: type[Event]) -> dict[str, object]:
    hints = _FIELD_TYPES.get(cls.kind)
    if hints is None:
        try:
            hints = typing.get_type_hints(cls)
        except Exception:  # an annotation this check cannot resolve: trust the field
            hints = {}
        _FIELD_TYPES[cls.kind] = hints
    return hints


def conforms(value: object, hint: object) -> bool:
    """Whether a decoded JSON value fits a field's annotation. Types it does not
    know are accepted (a check, not a schema language)."""
    return _checker(hint)(value)


_CHECKERS: dict[object, Callable[[object], bool]] = {}


def _anything(value: object) -> bool:
    return True


def _checker(hint: object) -> Callable[[object], bool]:
    """The check of one annotation, built once: a session of a million events
    asks it for every field of every event, and taking the annotation apart
    each time was most of the reading."""
    try:
        found = _CHECKERS.get(hint)
    except TypeError:  # an annotation that cannot be a key: built each time
        found = None
    if found is not None:
        return found
    check = _build_checker(hint)
    try:
        _CHECKERS[hint] = check
    except TypeError:
        pass
    return check


def _build_checker(hint: object) -> Callable[[object], bool]:
    if hint is Any:
        return _anything
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        parts = [_checker(h) for h in typing.get_args(hint)]
        return lambda value: any(part(value) for part in parts)
    if hint is type(None):
        return lambda value: value is None
    if hint is bool:
        return lambda value: isinstance(value, bool)
    if hint is int:
        return lambda value: isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return lambda value: isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is str:
        return lambda value: isinstance(value, str)
    if origin is list or hint is list:
        args = typing.get_args(hint)
        if not args:
            return lambda value: isinstance(value, list)
        item = _checker(args[0])
        return lambda value: isinstance(value, list) and all(item(v) for v in value)
    if origin is dict or hint is dict:
        args = typing.get_args(hint)
        if len(args) != 2:
            return lambda value: isinstance(value, dict)
        key, val = _checker(args[0]), _checker(args[1])
        return lambda value: isinstance(value, dict) and all(key(k) and val(v) for k, v in value.items())
    return _anything


def _wrong_field(cls: type[Event], data: Mapping[str, object]) -> str | None:
    hints = _field_types(cls)
    for name, value in data.items():
        hint = hints.get(name)
        if hint is not None and not _checker(hint)(value):
            return name
    return None


def event_from_line(data: object) -> tuple[Event | None, str]:
    """An event from one decoded line, or ``(None, what is wrong)``. Unknown
    kinds give ``(None, "")``."""
    if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
        return None, "not an event"
    cls = event_kinds().get(data["kind"])
    if cls is None:
        return None, ""
    wrong = _wrong_field(cls, data)
    if wrong is not None:
        return None, f"a {data['kind']} event whose {wrong!r} has the wrong type"
    try:
        event = Event.from_dict(data)
    except (TypeError, ValueError, KeyError):
        return None, f"a {data['kind']} event with missing fields"
    if isinstance(event.seq, bool) or not isinstance(event.seq, int):
        return None, "an event without a sequence number"
    return event, ""


def _decode(line: bytes) -> tuple[Any, str]:
    try:
        # Bytes that are not UTF-8 become U+FFFD, and so do escaped lone
        # surrogates: everything read from a session is valid text.
        return json.loads(valid_json_text(line.decode("utf-8", errors="replace"))), ""
    except json.JSONDecodeError:
        return None, "not JSON"
    except RecursionError:
        return None, "JSON nested too deeply"


# -- compact streamed text ------------------------------------------------------------------------


def _chunks_ok(chunks: object) -> bool:
    return isinstance(chunks, list) and all(
        isinstance(c, list)
        and len(c) == 4
        and conforms(c[0], int)
        and conforms(c[1], float)
        and conforms(c[2], int)
        and conforms(c[3], int)
        and c[2] >= 0
        and c[3] >= 1
        for c in chunks
    )


def _absolute(d: object) -> list[list[Any]] | None:
    """A version 3 ``d`` list back to absolute ``[seq, ts, chars, merged]`` chunks;
    None when it is malformed."""
    if not isinstance(d, list):
        return None
    out: list[list[Any]] = []
    seq, ms = 0, 0
    for entry in d:
        if not isinstance(entry, list) or len(entry) not in (3, 4) or not all(conforms(x, int) for x in entry):
            return None
        seq += entry[0]
        ms += entry[1]
        out.append([seq, ms / 1000, entry[2], entry[3] if len(entry) == 4 else 1])
    return out


def _expand(chunks: list[list[Any]], text: str, start: Event | None, call_id: str) -> list[Event]:
    """The streamed text of one call as it was streamed: one event per recorded
    chunk, cut from the call's full text."""
    common: dict[str, Any] = {}
    if start is not None:
        common = {"step": start.step, "agent": start.agent, "progression": start.progression}
    out: list[Event] = []
    at = 0
    for i, (seq, ts, n, merged) in enumerate(chunks):
        piece = text[at:] if i == len(chunks) - 1 else text[at : at + n]
        at += n
        if piece:
            delta = TextDelta(seq=seq, ts=float(ts), call_id=call_id, text=piece, **common)
            # How many streamed deltas this one stands for: an export keeps it.
            delta.merged = merged  # type: ignore[attr-defined]
            out.append(delta)
    return out


def _parse_events(lines: Iterator[_Line], version: int, *, compact: bool = False) -> tuple[list[Event], list[str]]:
    kinds = event_kinds()
    events: list[Event] = []
    warnings: list[str] = []
    unknown: dict[str, int] = {}
    started: dict[str, Event] = {}
    pending: dict[str, tuple[list[list[Any]], str | None]] = {}
    ended: set[str] = set()
    merged = 0
    expanded = False
    number = 1  # the header is line 1
    for line in lines:
        number += 1
        if line.stop:
            warnings.append(f"{line.stop} at line {number}: replaying the {len(events)} events before it")
            break
        if not line.data.strip():
            continue
        data, problem = _decode(line.data)
        if not problem:
            if version != fileformat.SESSION_FORMAT_VERSION and isinstance(data, dict):
                data = _upgrade(data, version, False)
            if isinstance(data, dict) and data.get("kind") == "text_deltas":
                call_id, text = data.get("call_id"), data.get("text")
                chunks = _absolute(data["d"]) if "d" in data else data.get("chunks")
                if (
                    isinstance(call_id, str)
                    and isinstance(chunks, list)
                    and _chunks_ok(chunks)
                    and (text is None or isinstance(text, str))
                ):
                    if text is not None:
                        events.extend(_expand(chunks, text, started.get(call_id), call_id))
                        expanded = True
                    else:
                        pending[call_id] = (chunks, None)
                    merged += sum(c[3] - 1 for c in chunks)
                    continue
                problem = "a text_deltas line with the wrong fields"
            else:
                event, problem = event_from_line(data)
                if event is not None:
                    match event:
                        case LLMCallStarted(call_id=call_id) if isinstance(call_id, str):
                            started[call_id] = event
                        case LLMCallFinished(call_id=call_id) | LLMCallFailed(call_id=call_id):
                            ended.add(str(call_id))
                    if isinstance(event, LLMCallFinished) and event.call_id in pending:
                        chunks, _ = pending.pop(event.call_id)
                        events.extend(_expand(chunks, event.response, started.get(event.call_id), event.call_id))
                        expanded = True
                    events.append(event)
                    continue
                if not problem:  # a newer qflow's event kind: skip it, keep the rest
                    kind = str(data.get("kind"))
                    if kind not in kinds:
                        unknown[kind] = unknown.get(kind, 0) + 1
                    continue
        if not line.whole:
            warnings.append(f"truncated last line (line {number}): replaying the {len(events)} whole events before it")
        else:
            later = _count_rest(lines)
            warnings.append(
                f"corrupt line {number} ({problem}): replaying the {len(events)} events before it"
                + (f"; {later} later line{'s' if later != 1 else ''} skipped" if later else "")
            )
        break
    if expanded:
        events.sort(key=lambda e: e.seq)
    if unknown:
        names = ", ".join(f"{k} x{n}" for k, n in sorted(unknown.items()))
        warnings.append(f"skipped events of kinds this qflow does not know ({names}); a newer qflow wrote them")
    # A compact file keeps a call's stream only once the call ends: after a
    # crash the deltas of calls in flight are gone, which is no damage.
    in_flight = compact and any(c not in ended for c in started)
    if not unknown and events and not in_flight:
        if merged or compact:
            if events[-1].seq - events[0].seq + 1 != len(events) + merged:
                warnings.append("some events are missing: the replay may skip a moment")
        else:
            gaps = [b.seq for a, b in itertools.pairwise(events) if b.seq != a.seq + 1]
            if gaps:
                warnings.append(f"events are missing before sequence number {gaps[0]}: the replay may skip a moment")
    return events, warnings


# -- summaries --------------------------------------------------------------------


def summarize(data: SessionData) -> RunSummary:
    """The ``qflow solve --json`` summary of a recorded run, with ``warnings``
    (read problems, and why there is no result when the run did not finish):
    the run's projection (core/run_state.py) read at its last event."""
    state = RunState()
    for e in data.events:
        state.apply(e)
    summary = state.result(session=str(data.path), warnings=data.warnings)
    summary.cost = recorded_cost(data.header, summary.tokens)
    return summary


def recorded_cost(header: Mapping[str, object], tokens: object) -> dict[str, Any]:
    """What a recorded run's tokens cost at today's price table (see core/llm/prices.py)."""
    model = str(header.get("model") or "")
    raw = header.get("config")
    config: dict[str, Any] = raw if isinstance(raw, dict) else {}
    if not model or not isinstance(tokens, dict):
        return {}
    try:
        prices = load_prices()
    except PriceError as exc:
        return {"unpriced": model, "error": str(exc)}
    return run_cost(model, tokens, prices, local=is_local(str(config.get("base_url") or "")))
