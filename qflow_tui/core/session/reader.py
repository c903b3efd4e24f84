"""Reading a session back: the header checked, every whole event parsed, a
truncated or corrupt tail reported in words while the valid prefix still
replays; and the run's summary from what was read."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..events import Event, event_kinds
from ..summary import RunSummary, tally_events, tokens_to_dict
from . import fileformat
from .fileformat import (
    _MAX_HEADER_BYTES,
    TERMINAL_KINDS,
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
    def finished(self) -> Event | None:
        for e in reversed(self.events):
            if e.kind in TERMINAL_KINDS:
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

    def summary(self) -> dict[str, Any]:
        """The run's result in the ``qflow solve --json`` shape, plus ``warnings``
        (read problems, and why there is no result when the run did not finish)."""
        return summarize(self).to_dict()


def read_header(path: Path | str) -> dict[str, Any]:
    """Read and check only the header line. Raises :class:`SessionError`."""
    path = Path(path)
    with _open_for_read(path) as fh:
        try:
            first = fh.readline(_MAX_HEADER_BYTES)
        except OSError as exc:
            raise SessionError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return _check_header(path, first)


def read_session(path: Path | str) -> SessionData:
    """Read a session file. A truncated or corrupt tail is reported as a warning
    and the valid prefix is returned; a file that is not a session, or one of a
    format version this build cannot read, raises :class:`SessionError`."""
    path = Path(path)
    with _open_for_read(path) as fh:
        try:
            first = fh.readline(_MAX_HEADER_BYTES)
            header = _check_header(path, first)
            rest = fh.read()
        except OSError as exc:
            raise SessionError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    version = header["format_version"]
    if version != fileformat.SESSION_FORMAT_VERSION:
        header = _upgrade(header, version, True)
    header_line_whole = first.endswith(b"\n")
    events, warnings = _parse_events(rest.decode("utf-8", errors="replace"), version)
    if not header_line_whole:
        warnings.insert(0, "truncated after the header: the run recorded no events")
    return SessionData(path=path, header=header, events=events, warnings=warnings)


def _parse_events(text: str, version: int) -> tuple[list[Event], list[str]]:
    kinds = event_kinds()
    events: list[Event] = []
    warnings: list[str] = []
    unknown: dict[str, int] = {}
    lines = text.split("\n")
    # A whole file ends with "\n", so the last element is "" unless the last
    # line was cut off mid-write.
    truncated_tail = bool(lines) and lines[-1] != ""
    for index, line in enumerate(lines):
        number = index + 2  # the header is line 1
        if not line.strip():
            continue
        is_last = all(not rest.strip() for rest in lines[index + 1 :])
        problem = None
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            problem = "not JSON"
            data = None
        if data is not None:
            if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
                problem = "not an event"
            else:
                if version != fileformat.SESSION_FORMAT_VERSION:
                    data = _upgrade(data, version, False)
                if data["kind"] not in kinds:
                    # A newer qflow's event kind: skip it, keep the rest.
                    unknown[data["kind"]] = unknown.get(data["kind"], 0) + 1
                    continue
                try:
                    event = Event.from_dict(data)
                except (TypeError, ValueError, KeyError):
                    problem = f"a {data['kind']} event with missing fields"
                else:
                    if not isinstance(event.seq, int):
                        problem = "an event without a sequence number"
                    else:
                        events.append(event)
                        continue
        if is_last and truncated_tail:
            warnings.append(f"truncated last line (line {number}): replaying the {len(events)} whole events before it")
        else:
            later = sum(1 for rest in lines[index + 1 :] if rest.strip())
            warnings.append(
                f"corrupt line {number} ({problem}): replaying the {len(events)} events before it"
                + (f"; {later} later line{'s' if later != 1 else ''} skipped" if later else "")
            )
        break
    if unknown:
        names = ", ".join(f"{k} x{n}" for k, n in sorted(unknown.items()))
        warnings.append(f"skipped events of kinds this qflow does not know ({names}); a newer qflow wrote them")
    gaps = [b.seq for a, b in itertools.pairwise(events) if b.seq != a.seq + 1]
    if gaps and not unknown:
        warnings.append(f"events are missing before sequence number {gaps[0]}: the replay may skip a moment")
    return events, warnings


# -- summaries --------------------------------------------------------------------


def summarize(data: SessionData) -> RunSummary:
    """The ``qflow solve --json`` summary of a recorded run, with ``warnings``
    (read problems, and why there is no result when the run did not finish)."""
    warnings = list(data.warnings)
    end = data.finished
    events = data.events
    duration = (events[-1].ts - events[0].ts) if len(events) > 1 else 0.0
    if end is not None and end.kind == "run_finished":
        return RunSummary(
            final_program=getattr(end, "final_program", ""),
            outcome=getattr(end, "outcome", ""),
            accepted_at=getattr(end, "accepted_at", None),
            progression=end.progression,
            llm_calls=getattr(end, "llm_calls", 0),
            tokens=getattr(end, "tokens", {}),
            session=str(data.path),
            duration=getattr(end, "duration", duration) or 0.0,
            warnings=warnings,
        )
    tokens = tally_events(events)
    if end is not None:  # run_failed
        outcome = "cancelled" if getattr(end, "cancelled", False) else "failed"
        warnings.append(f"the run did not finish: {getattr(end, 'error', '')}")
    else:
        outcome = "incomplete"
        warnings.append("the session ends before the run finished (the writing process stopped)")
    return RunSummary(
        final_program="",
        outcome=outcome,
        accepted_at=None,
        progression=None,
        llm_calls=sum(t.calls for t in tokens.values()),
        tokens=tokens_to_dict(tokens),
        session=str(data.path),
        duration=duration,
        warnings=warnings,
    )
