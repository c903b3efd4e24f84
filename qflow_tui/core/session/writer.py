"""Writing a session: a header line, then each event appended and flushed as it
happens, so a crash or ``kill -9`` loses at most the event being written."""

from __future__ import annotations

import json
import os
import re
import secrets as _secrets
import time
from pathlib import Path
from typing import IO, Any

from ... import __version__
from ..events import EVENT_FORMAT_VERSION, Event
from .fileformat import SESSION_FORMAT, SESSION_FORMAT_VERSION, SESSION_SUFFIX
from .redaction import redact, secret_values


def _slug(text: str) -> str:
    s = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()
    return s[:40].strip("-") or "run"


def new_session_path(directory: Path, title: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path(directory) / f"{stamp}-{_slug(title)}-{_secrets.token_hex(3)}{SESSION_SUFFIX}"


def _dumps(obj: dict[str, Any]) -> str:
    # default=str: an odd value in an event must not stop the recording.
    return json.dumps(obj, ensure_ascii=False, default=str)


class SessionWriter:
    """An event sink that appends each event to a JSONL file as it happens.

    The file is created fresh (an existing non-empty file is never appended to:
    two headers would make it unreadable). Every line is flushed at once; the
    operating system keeps it even if this process is killed the next moment.
    """

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
        self.events_written = 0
        mode = "w" if self.path.exists() and self.path.stat().st_size == 0 else "x"
        self._fh: IO[str] | None = open(self.path, mode, encoding="utf-8")  # noqa: SIM115 (held open for the run; closed by close())
        header = {
            "format": SESSION_FORMAT,
            "format_version": SESSION_FORMAT_VERSION,
            "event_version": EVENT_FORMAT_VERSION,
            "app_version": __version__,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "workflow": workflow,
            "model": model,
            "title": problem.get("title") or problem.get("entry_point") or "",
            "config": config,
            "problem": problem,
        }
        self._write(header)

    def _write(self, obj: dict[str, Any]) -> None:
        if self._fh is None:
            return
        line = redact(_dumps(obj), self._secrets)
        self._fh.write(line + "\n")
        self._fh.flush()

    def __call__(self, event: Event) -> None:
        self._write(event.to_dict())
        self.events_written += 1

    @property
    def closed(self) -> bool:
        return self._fh is None

    def close(self) -> None:
        if self._fh is not None:
            fh, self._fh = self._fh, None
            try:
                fh.flush()
                os.fsync(fh.fileno())
            except OSError:
                pass
            fh.close()

    def __enter__(self) -> SessionWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
