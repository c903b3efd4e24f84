"""Session files: one JSONL file per run, a header line then one event per line.

Each line is flushed as it is written, so a crash or ``kill -9`` loses at most
the event being written. Known secret values from the environment are redacted
before anything reaches the disk.
"""

from __future__ import annotations

import json
import os
import re
import secrets as _secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .. import __version__
from .events import EVENT_FORMAT_VERSION, Event

SESSION_FORMAT = "qflow-session"
SESSION_FORMAT_VERSION = 1
#: Oldest format version this build can still replay.
OLDEST_READABLE_VERSION = 1

#: Environment variables whose values must never be written anywhere.
SECRET_ENV_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_AUTH_TOKEN", "AZURE_OPENAI_API_KEY")
_SECRET_NAME_RE = re.compile(r"(API_KEY|TOKEN|SECRET|PASSWORD)$")


class SessionError(ValueError):
    """A file that cannot be replayed; the message says why."""


def secret_values(env: dict[str, str] | None = None) -> list[str]:
    env = dict(os.environ) if env is None else env
    values = []
    for name, value in env.items():
        if (name in SECRET_ENV_VARS or _SECRET_NAME_RE.search(name)) and len(value) >= 8:
            values.append(value)
    return sorted(set(values), key=len, reverse=True)


def redact(text: str, values: list[str]) -> str:
    for v in values:
        if v in text:
            text = text.replace(v, "[redacted]")
    return text


def _slug(text: str) -> str:
    s = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()
    return s[:40] or "run"


def new_session_path(directory: Path, title: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return directory / f"{stamp}-{_slug(title)}-{_secrets.token_hex(3)}.jsonl"


class SessionWriter:
    """An event sink that appends each event to a JSONL file as it happens."""

    def __init__(
        self,
        path: Path,
        *,
        workflow: str,
        model: str,
        config: dict[str, Any],
        problem: dict[str, Any],
        env: dict[str, str] | None = None,
    ) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._secrets = secret_values(env)
        self._fh: IO[str] | None = open(self.path, "a", encoding="utf-8")
        header = {
            "format": SESSION_FORMAT,
            "format_version": SESSION_FORMAT_VERSION,
            "event_version": EVENT_FORMAT_VERSION,
            "app_version": __version__,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "workflow": workflow,
            "model": model,
            "config": config,
            "problem": problem,
        }
        self._write(header)

    def _write(self, obj: dict[str, Any]) -> None:
        if self._fh is None:
            return
        line = json.dumps(obj, ensure_ascii=False)
        if self._secrets:
            line = redact(line, self._secrets)
        self._fh.write(line + "\n")
        self._fh.flush()

    def __call__(self, event: Event) -> None:
        self._write(event.to_dict())

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


@dataclass
class SessionData:
    path: Path
    header: dict[str, Any]
    events: list[Event]
    warnings: list[str] = field(default_factory=list)

    @property
    def finished(self) -> Event | None:
        for e in reversed(self.events):
            if e.kind in ("run_finished", "run_failed"):
                return e
        return None


def read_session(path: Path | str) -> SessionData:
    """Read a session file. A truncated or corrupt tail is reported as a warning
    and the valid prefix is returned; a file that is not a session raises
    :class:`SessionError` with the reason."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise SessionError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise SessionError(f"{path}: is a folder, not a session file") from None
    except OSError as exc:
        raise SessionError(f"{path}: cannot be read ({exc.strerror})") from None
    text = raw.decode("utf-8", errors="replace")
    lines = text.split("\n")
    if not lines or not lines[0].strip():
        raise SessionError(f"{path}: empty file, not a qflow session")
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError:
        raise SessionError(f"{path}: not a qflow session (the first line is not a JSON header)") from None
    if not isinstance(header, dict) or header.get("format") != SESSION_FORMAT:
        raise SessionError(f"{path}: not a qflow session (no '{SESSION_FORMAT}' header)")
    version = header.get("format_version")
    if not isinstance(version, int) or version > SESSION_FORMAT_VERSION or version < OLDEST_READABLE_VERSION:
        raise SessionError(
            f"{path}: session format version {version} is not supported by this qflow "
            f"(reads {OLDEST_READABLE_VERSION} to {SESSION_FORMAT_VERSION}); "
            + ("upgrade qflow-tui" if isinstance(version, int) and version > SESSION_FORMAT_VERSION else "it is too old")
        )
    events: list[Event] = []
    warnings: list[str] = []
    body = lines[1:]
    # A file ends with "\n": the last element is "" when the tail is whole.
    for number, line in enumerate(body, start=2):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            events.append(Event.from_dict(data))
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            is_last = all(not rest.strip() for rest in body[number - 1 :])
            what = "truncated last line" if is_last and not text.endswith("\n") else f"corrupt line {number}"
            warnings.append(
                f"{what}: replaying the {len(events)} events before it"
                + ("" if is_last else f"; {sum(1 for r in body[number - 1:] if r.strip())} later lines skipped")
            )
            _ = exc
            break
    return SessionData(path=path, header=header, events=events, warnings=warnings)
