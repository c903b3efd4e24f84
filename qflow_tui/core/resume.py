"""Resuming a run that did not finish: its recorded problem and settings, the
recording as the model for every call it finished, a live model for the rest.
The one core behind ``qflow solve --resume SESSION`` and the session browser's
resume key."""

from __future__ import annotations

import dataclasses
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .config import ConfigError, RunConfig
from .events import RunFinished
from .llm import LLMClient, LLMError
from .llm._http import is_local
from .problem import Problem, ProblemError
from .session import SessionData, SessionError, read_session
from .workflow_run import build_client
from .workflows.values import coerce, config_from_record, validate

#: Settings a recording never hands on: the model is the recording itself.
_NOT_RECORDED = ("model", "base_url", "fallback_model")


class ResumeError(Exception):
    """The session cannot be resumed; the message is one line a user can act on."""


def recorded_settings(data: SessionData, overrides: Mapping[str, object] | None = None) -> RunConfig:
    """The recorded settings with ``overrides`` (flag name -> value; None: keep
    the recorded one) on top, and the recording itself as the model. Raises
    :class:`ConfigError`."""
    raw = data.header.get("config")
    recorded: dict[str, Any] = raw if isinstance(raw, dict) else {}
    kept = {k: v for k, v in recorded.items() if k not in _NOT_RECORDED}
    config = config_from_record(kept, where=f"{data.path.name} config")
    for key, value in (overrides or {}).items():
        if value is not None and key != "model":
            config = config.replace(**{key: coerce(key, value, f"--{key.replace('_', '-')}", workflow=config.workflow)})
    return validate(config.replace(model=f"replay/{data.path}"))


@dataclasses.dataclass
class Resumption:
    """What resuming a session runs: its problem under its settings, the
    recording answering the calls it finished (``config.model`` is
    ``replay/SESSION``, ``config.fallback_model`` the live model)."""

    data: SessionData
    problem: Problem
    config: RunConfig

    @property
    def live_model(self) -> str:
        return self.config.fallback_model or ""


def plan_resume(
    path: Path | str,
    *,
    model: str | None = None,
    base_url: str | None = None,
    overrides: Mapping[str, object] | None = None,
    unfinished_only: bool = False,
) -> Resumption:
    """How to resume the session at ``path``: the live model is ``model`` or the
    recorded one. With ``unfinished_only`` a run that finished is refused
    (there is nothing left to do; a replay shows it). Raises :class:`ResumeError`."""
    path = Path(path).expanduser()
    try:
        data = read_session(path)
    except SessionError as exc:
        raise ResumeError(str(exc)) from None
    end = data.finished
    if unfinished_only and isinstance(end, RunFinished):
        outcome = end.outcome or "finished"
        raise ResumeError(f"{data.title}: this run finished ({outcome}); there is nothing to resume (Enter replays it)")
    try:
        problem = Problem.from_dict(data.header["problem"])
    except (KeyError, TypeError, ProblemError) as exc:
        raise ResumeError(f"{path}: the recorded problem cannot be read ({exc})") from None
    raw = data.header.get("config")
    recorded: dict[str, Any] = raw if isinstance(raw, dict) else {}
    live = model or str(data.header.get("model") or "")
    if live.startswith("replay/") and not model and recorded.get("fallback_model"):
        live = str(recorded["fallback_model"])  # a resumed run that stopped again: its live model
    if not live:
        raise ResumeError(f"{path}: the session names no model; give --model for the calls it did not finish")
    if live.startswith("replay/"):
        raise ResumeError(
            f"{data.title}: this run's model was itself a recording ({live}); "
            "resume it with a live model: qflow solve --resume SESSION --model MODEL"
        )
    try:
        config = recorded_settings(data, overrides).replace(
            fallback_model=live, base_url=base_url or recorded.get("base_url")
        )
        validate(config)
    except ConfigError as exc:
        raise ResumeError(str(exc)) from None
    return Resumption(data, problem, config)


def reach_model(resumption: Resumption) -> LLMClient:
    """Build the client a resumed run uses (the recording, then the live model),
    as the runner would: a live model that cannot be reached from here (no API
    key, no such script file, the local extra missing, a bad base URL) is a
    :class:`ResumeError` naming it. The caller closes the client."""
    try:
        client = build_client(resumption.config)
    except LLMError as exc:
        raise ResumeError(f"cannot resume with {resumption.live_model}: {exc}") from None
    live = getattr(client, "fallback", None)
    url = str(getattr(live, "base_url", "") or "")
    if url and not server_answers(url):
        raise ResumeError(
            f"cannot resume with {resumption.live_model}: nothing answers at {url} "
            "(start the server, or resume with another model: qflow solve --resume SESSION --model MODEL)"
        )
    return client


def server_answers(url: str, timeout: float = 2.0) -> bool:
    """Whether a server on this machine listens at ``url`` (a local model server
    that is not running refuses at once). A remote host is not probed: the
    model's own calls say what is wrong there, and retry what may pass."""
    if not is_local(url):
        return True
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        with socket.create_connection((parts.hostname or "localhost", port), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False
