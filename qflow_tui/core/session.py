"""Session files: one JSONL file per run, a header line then one event per line.

Each line is flushed as it is written, so a crash or ``kill -9`` loses at most
the event being written. Known secret values from the environment are redacted
before anything reaches the disk. Besides writing and reading, this module
lists a folder of sessions with summary metadata, exports a session as clean
JSONL or as a readable Markdown transcript, and deletes one.

Where sessions go is the caller's choice (``session_dir`` of the runner): the
user data folder by default; a benchmark passes its own output folder.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import secrets as _secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .. import __version__
from .events import EVENT_FORMAT_VERSION, Event, event_kinds

SESSION_FORMAT = "qflow-session"
SESSION_FORMAT_VERSION = 1
#: Oldest format version this build can still replay (older ones are upgraded
#: line by line with :data:`UPGRADES`).
OLDEST_READABLE_VERSION = 1
SESSION_SUFFIX = ".jsonl"

#: ``UPGRADES[v]`` turns one line (header or event dict) of format ``v`` into
#: format ``v + 1``. Empty while format 1 is the only one there has been; a
#: file is readable when every step from its version up to the current one is
#: here.
UPGRADES: dict[int, Callable[[dict[str, Any], bool], dict[str, Any]]] = {}

#: Environment variables whose values must never be written anywhere.
SECRET_ENV_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_AUTH_TOKEN", "AZURE_OPENAI_API_KEY")
_SECRET_NAME_RE = re.compile(r"(API_KEY|TOKEN|SECRET|PASSWORD)$")
#: Shapes of provider keys, redacted even when they do not come from the
#: environment (a key pasted into a problem statement, a base URL with a key).
_KEY_SHAPES = re.compile(r"\bsk-(?:ant-)?[A-Za-z0-9_\-]{32,}")
_URL_CREDENTIALS = re.compile(r"(?<=://)[^/\s:@\"]+:[^/\s@\"]+@")

#: Events that end a run.
TERMINAL_KINDS = ("run_finished", "run_failed")
#: The first line may hold the problem and config; never read more than this
#: looking for it (a big file that is not a session is refused quickly).
_MAX_HEADER_BYTES = 8 * 1024 * 1024


class SessionError(ValueError):
    """A file that cannot be replayed; the message says why, in one line."""


# -- secrets ----------------------------------------------------------------------


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
    if "sk-" in text:
        text = _KEY_SHAPES.sub("[redacted]", text)
    if "://" in text and "@" in text:
        text = _URL_CREDENTIALS.sub("[redacted]@", text)
    return text


# -- writing ----------------------------------------------------------------------


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


# -- reading ----------------------------------------------------------------------


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
        return summarize(self)


def session_title(header: dict[str, Any]) -> str:
    problem = header.get("problem") if isinstance(header.get("problem"), dict) else {}
    return str(header.get("title") or problem.get("title") or problem.get("entry_point") or "untitled")


def _check_header(path: Path, first: bytes) -> dict[str, Any]:
    text = first.decode("utf-8", errors="replace").lstrip("\ufeff").strip()
    if not text:
        raise SessionError(f"{path}: empty file, not a qflow session")
    try:
        header = json.loads(text)
    except json.JSONDecodeError:
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


def _upgrade(obj: dict[str, Any], version: int, is_header: bool) -> dict[str, Any]:
    for v in range(version, SESSION_FORMAT_VERSION):
        obj = UPGRADES[v](obj, is_header)
    return obj


def _open_for_read(path: Path) -> IO[bytes]:
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise SessionError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise SessionError(f"{path}: is a folder, not a session file") from None
    except PermissionError:
        raise SessionError(f"{path}: cannot be read (permission denied)") from None
    except OSError as exc:
        raise SessionError(f"{path}: cannot be read ({exc.strerror or exc})") from None


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
    if version != SESSION_FORMAT_VERSION:
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
                if version != SESSION_FORMAT_VERSION:
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


def _tokens_from_calls(events: Iterable[Event]) -> tuple[int, dict[str, dict[str, int]]]:
    tokens: dict[str, dict[str, int]] = {}
    calls = 0
    for e in events:
        if e.kind == "llm_call_finished":
            calls += 1
            t = tokens.setdefault(e.agent or "unknown", {"input": 0, "output": 0, "calls": 0})
            t["input"] += getattr(e, "input_tokens", 0) or 0
            t["output"] += getattr(e, "output_tokens", 0) or 0
            t["calls"] += 1
    return calls, dict(sorted(tokens.items()))


def summarize(data: SessionData) -> dict[str, Any]:
    """The ``qflow solve --json`` object for a recorded run, plus ``warnings``."""
    warnings = list(data.warnings)
    end = data.finished
    events = data.events
    duration = (events[-1].ts - events[0].ts) if len(events) > 1 else 0.0
    if end is not None and end.kind == "run_finished":
        return {
            "final_program": getattr(end, "final_program", ""),
            "outcome": getattr(end, "outcome", ""),
            "accepted_at": getattr(end, "accepted_at", None),
            "progression": end.progression,
            "llm_calls": getattr(end, "llm_calls", 0),
            "tokens": getattr(end, "tokens", {}),
            "session": str(data.path),
            "duration": round(getattr(end, "duration", duration) or 0.0, 3),
            "warnings": warnings,
        }
    calls, tokens = _tokens_from_calls(events)
    if end is not None:  # run_failed
        outcome = "cancelled" if getattr(end, "cancelled", False) else "failed"
        warnings.append(f"the run did not finish: {getattr(end, 'error', '')}")
    else:
        outcome = "incomplete"
        warnings.append("the session ends before the run finished (the writing process stopped)")
    return {
        "final_program": "",
        "outcome": outcome,
        "accepted_at": None,
        "progression": None,
        "llm_calls": calls,
        "tokens": tokens,
        "session": str(data.path),
        "duration": round(duration, 3),
        "warnings": warnings,
    }


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
    problem = header.get("problem") if isinstance(header.get("problem"), dict) else {}
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
    if header.get("format_version") == SESSION_FORMAT_VERSION:
        summary = _summary_from_tail(path, st.st_size)
    if summary is None:
        summary = read_session(path).summary()
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
    tokens = data.get("tokens") if isinstance(data.get("tokens"), dict) else {}
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
        from ..locations import sessions_dir

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


# -- export and delete ----------------------------------------------------------------


def export_jsonl(data: SessionData, dest: Path | str) -> Path:
    """Write the session's readable part as a clean session file (header and
    valid events; a corrupt tail is left behind). Secrets are redacted again."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    values = secret_values()
    tmp = dest.with_name(dest.name + ".part")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(redact(_dumps(data.header), values) + "\n")
        for e in data.events:
            fh.write(redact(_dumps(e.to_dict()), values) + "\n")
    os.replace(tmp, dest)
    return dest


def export_markdown(data: SessionData, dest: Path | str) -> Path:
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    text = redact(markdown_transcript(data), secret_values())
    tmp = dest.with_name(dest.name + ".part")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, dest)
    return dest


EXPORT_FORMATS = {"jsonl": export_jsonl, "md": export_markdown}


def export_session(path: Path | str, dest: Path | str, fmt: str | None = None) -> Path:
    """Export a session as ``jsonl`` or ``md`` (guessed from ``dest``'s suffix
    when not given). Raises :class:`SessionError`."""
    dest = Path(dest)
    fmt = fmt or ("md" if dest.suffix.lower() in (".md", ".markdown") else "jsonl")
    if fmt not in EXPORT_FORMATS:
        raise SessionError(f"unknown export format {fmt!r}: choose jsonl or md")
    data = read_session(path)
    if dest.resolve() == Path(path).resolve():
        raise SessionError(f"{dest}: exporting a session onto itself")
    try:
        return EXPORT_FORMATS[fmt](data, dest)
    except OSError as exc:
        raise SessionError(f"{dest}: cannot write the export ({exc.strerror or exc})") from None


def default_export_name(path: Path | str, fmt: str) -> str:
    stem = Path(path).stem
    return f"{stem}.md" if fmt == "md" else f"{stem}-export.jsonl"


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


# -- the Markdown transcript -----------------------------------------------------------


def _fence(text: str, lang: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=2)
    ticks = "`" * (longest + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"{ticks}{lang}\n{body}{ticks}\n"


def _where(e: Event) -> str:
    return f"p{e.progression}" if e.progression is not None else "run"


def _fmt_duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    m, s = divmod(round(seconds), 60)
    return f"{m} min {s} s"


def markdown_transcript(data: SessionData) -> str:
    """A readable Markdown transcript of a session: the problem, every model
    exchange in full (prompt in a fold, response open), checks, verdicts,
    decisions and the final program."""
    h = data.header
    s = data.summary()
    cfg = h.get("config") if isinstance(h.get("config"), dict) else {}
    problem = h.get("problem") if isinstance(h.get("problem"), dict) else {}
    tokens = s.get("tokens") or {}
    t_in = sum(int(t.get("input", 0)) for t in tokens.values())
    t_out = sum(int(t.get("output", 0)) for t in tokens.values())
    out: list[str] = [f"# {data.title}\n"]
    settings = ", ".join(
        f"{k} {cfg[k]}" for k in ("checker", "prompts", "epochs", "clarify", "tqc", "revert") if k in cfg
    )
    rows = [
        ("Session", f"`{data.path.name}`"),
        ("Recorded", str(h.get("created", ""))),
        ("Model", f"`{h.get('model', '')}`"),
        ("Workflow", f"{h.get('workflow', '')}" + (f" ({settings})" if settings else "")),
        (
            "Outcome",
            f"**{str(s['outcome']).upper()}**"
            + (f" at `{s['accepted_at']}`" if s.get("accepted_at") else "")
            + (f", progression {s['progression']}" if s.get("progression") is not None else ""),
        ),
        ("Model calls", f"{s['llm_calls']} ({t_in} tokens in, {t_out} out)"),
        ("Duration", _fmt_duration(float(s.get("duration") or 0))),
        ("qflow", f"{h.get('app_version', '?')} (session format {h.get('format_version')})"),
    ]
    out.append("| | |\n|---|---|")
    out.extend(f"| {k} | {v} |" for k, v in rows)
    out.append("")
    for w in s["warnings"]:
        out.append(f"> **Warning:** {w}\n")
    out.append("## Problem\n")
    out.append(str(problem.get("statement", "")).strip() + "\n")
    if problem.get("tests"):
        out.append("Visible tests:\n")
        out.append(_fence("\n".join(problem["tests"]), "python"))
    out.append("## Transcript\n")
    pending: dict[str, Event] = {}
    current_step: str | None = None
    for e in data.events:
        k = e.kind
        if k in ("text_delta", "run_started"):
            continue
        if e.step and e.step != current_step and k not in ("run_finished", "run_failed"):
            current_step = e.step
            out.append(f"### Step `{current_step}`\n")
        if k == "llm_call_started":
            pending[e.call_id] = e  # type: ignore[attr-defined]
        elif k == "llm_call_finished":
            out.append("\n" + _md_call(pending.pop(e.call_id, None), e))  # type: ignore[attr-defined]
        elif k == "llm_call_failed":
            start = pending.pop(e.call_id, None)  # type: ignore[attr-defined]
            out.append(f"\n**{_where(e)} · {e.agent}: model call failed** — {getattr(e, 'error', '')}\n")
            if start is not None:
                out.append(_md_prompt(start))
        elif k == "step_started":
            detail = f" ({e.detail})" if getattr(e, "detail", "") else ""
            out.append(f"- {_where(e)} · `{e.agent or e.step}` starts{detail}")
        elif k == "step_finished":
            detail = f" — {e.detail}" if getattr(e, "detail", "") else ""
            out.append(f"- {_where(e)} · `{e.agent or e.step}`: **{getattr(e, 'outcome', '')}**{detail}\n")
        elif k == "program_candidate":
            out.append(f"\nProgram from `{e.agent}` ({_where(e)}):\n")
            out.append(_fence(getattr(e, "program", ""), "python"))
        elif k == "imagined_check":
            verdict = getattr(e, "verdict", "")
            out.append(
                f"- Imagined execution ({_where(e)}) of `{getattr(e, 'test', '')}`: **{verdict.upper()}**"
                + (f", model's value `{e.value}`" if getattr(e, "value", None) else "")  # type: ignore[attr-defined]
                + (f" — {e.detail}" if getattr(e, "detail", "") else "")  # type: ignore[attr-defined]
            )
        elif k == "tests_designed":
            new = getattr(e, "tests", [])
            out.append(
                f"\nTest designer round {getattr(e, 'round', '?')}: "
                f"{len(new)} new tests, {getattr(e, 'total', 0)} in all.\n"
            )
            if new:
                out.append(_fence("\n".join(new), "python"))
        elif k == "tqc_verdict":
            verdict = getattr(e, "verdict", "")
            mark = "kept" if verdict == "kept" else "**rejected**"
            out.append(
                f"- TQC #{getattr(e, 'index', '?')} `{getattr(e, 'test', '')}`: {mark}"
                + (f" (model's value `{e.value}`)" if getattr(e, "value", None) else "")  # type: ignore[attr-defined]
                + (f" — {e.detail}" if getattr(e, "detail", "") else "")  # type: ignore[attr-defined]
            )
        elif k == "sandbox_run":
            out.append(_md_sandbox(e))
        elif k == "decision":
            out.append(
                f"\n**Decision ({_where(e)}): {getattr(e, 'decision', '').upper()}** — {getattr(e, 'reason', '')}\n"
            )
        elif k == "notice":
            out.append(f"> {getattr(e, 'level', 'info')}: {getattr(e, 'message', '')}\n")
        elif k == "run_failed":
            out.append(f"\n## Run failed\n\n{getattr(e, 'error', '')}\n")
        elif k == "run_finished":
            out.append("\n## Final program\n")
            where = f" at `{e.accepted_at}`" if getattr(e, "accepted_at", None) else ""  # type: ignore[attr-defined]
            out.append(f"**{getattr(e, 'outcome', '').upper()}**{where}.\n")
            out.append(_fence(getattr(e, "final_program", ""), "python"))
    for start in pending.values():
        out.append(f"**{_where(start)} · {start.agent}: model call never finished** (the recording stops here)\n")
        out.append(_md_prompt(start))
    return "\n".join(out).rstrip() + "\n"


def _md_prompt(start: Event) -> str:
    parts = [
        f"<details><summary>Prompt ({len(getattr(start, 'messages', []))} message(s), temperature "
        f"{getattr(start, 'temperature', '')}, hash <code>{getattr(start, 'prompt_hash', '')}</code>)</summary>\n"
    ]
    system = getattr(start, "system", "")
    if system:
        parts.append("*system*\n")
        parts.append(_fence(system, "text"))
    for m in getattr(start, "messages", []):
        parts.append(f"*{m.get('role', '?')}*\n")
        parts.append(_fence(str(m.get("content", "")), "text"))
    parts.append("</details>\n")
    return "\n".join(parts)


def _md_call(start: Event | None, end: Event) -> str:
    where: list[str] = []
    if start is not None:
        for name in ("turn", "epoch", "attempt"):
            v = getattr(start, name, None)
            if v is not None and not (name == "turn" and v == 1):
                where.append(f"{name} {v}")
    est = " (estimated)" if getattr(end, "tokens_estimated", False) else ""
    head = (
        f"**{_where(end)} · `{end.agent}`**"
        + (f" ({', '.join(where)})" if where else "")
        + f" — {getattr(end, 'input_tokens', 0)} tokens in, {getattr(end, 'output_tokens', 0)} out{est}, "
        + f"{getattr(end, 'latency', 0.0):.2f} s\n"
    )
    parts = [head]
    test = getattr(start, "test", None) if start is not None else None
    if test:
        parts.append(f"Test: `{test}`\n")
    if start is not None:
        parts.append(_md_prompt(start))
    parts.append("Response:\n")
    parts.append(_fence(getattr(end, "response", ""), "text"))
    return "\n".join(parts)


def _md_sandbox(e: Event) -> str:
    passed, total = getattr(e, "passed", 0), getattr(e, "total", 0)
    lines = [f"\nSandbox run ({getattr(e, 'purpose', '')}, {_where(e)}): **{passed}/{total} passed**\n"]
    if getattr(e, "load_error", None):
        lines.append(f"The program failed to load: {e.load_error}\n")  # type: ignore[attr-defined]
    results = getattr(e, "results", []) or []
    if results:
        lines.append("| test | result |\n|---|---|")
        for r in results:
            status = r.get("status", "")
            extra = r.get("error") or (
                f"returned {r.get('actual')}" if r.get("actual") is not None and status != "pass" else ""
            )
            cell = status + (f": {extra}" if extra else "")
            test = str(r.get("test", "")).replace("|", "\\|").replace("\n", " ")
            lines.append(f"| `{test}` | {cell.replace('|', '/').replace(chr(10), ' ')} |")
        lines.append("")
    return "\n".join(lines)
