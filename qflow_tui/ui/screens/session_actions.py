"""What the session browser does to one session, apart from its widgets: the
question before a delete, the export behind its path prompt, the checks of a
name and a note, and the plans of a resume and a re-run (read on a thread)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ...core.config import ConfigError, RunConfig
from ...core.problem import Problem, ProblemError
from ...core.resume import ResumeError, Resumption, plan_resume, reach_model, recorded_settings
from ...core.safe_text import one_line
from ...core.session import SessionError, SessionInfo, export_session, read_session
from ...core.session.display import human_time
from ...core.session.notes import check_name, check_note
from ...core.steer.edits import SteerError
from .path_prompt import WriteRefused

if TYPE_CHECKING:
    from ...core.llm import LLMClient


def delete_detail(info: SessionInfo) -> str:
    """What the confirmation before a delete says of the session."""
    return (
        f"{info.title}\n{human_time(info.created)} · {info.outcome}\n{info.path}\n\n"
        "The file is removed from disk; this cannot be undone."
    )


def export_title(fmt: str) -> str:
    """The export prompt's title for ``fmt`` (``md`` or ``jsonl``)."""
    what = "a Markdown transcript" if fmt == "md" else "JSONL (a clean copy of the session)"
    return f"Export as {what}"


def exporter(path: Path, fmt: str) -> Callable[[Path], Path]:
    """The path prompt's writer: the session at ``path`` exported to the
    destination chosen; a refusal is the prompt's one line (WriteRefused)."""

    def export(dest: Path) -> Path:
        try:
            return export_session(path, dest, fmt)
        except SessionError as exc:
            raise WriteRefused(str(exc)) from None

    return export


def checked_name(text: str) -> str:
    """A session's name as typed, checked; the prompt shows why one is refused."""
    try:
        return check_name(text)
    except SessionError as exc:
        raise SteerError(str(exc)) from None


def checked_note(text: str) -> str:
    """A note as typed, checked; the editor shows why one is refused."""
    try:
        return check_note(text)
    except SessionError as exc:
        raise SteerError(str(exc)) from None


def resume_plan(path: Path) -> tuple[Resumption, LLMClient]:
    """An unfinished run's resumption and its model's client (on a thread:
    reading the session and building the client, an SDK import, take time)."""
    plan = plan_resume(path, unfinished_only=True)
    return plan, reach_model(plan)


def rerun_plan(path: Path) -> tuple[Problem, RunConfig]:
    """The recorded problem and settings of the session at ``path``, for a
    re-run answered from its recording; ResumeError (one line) when unreadable."""
    data = read_session(path)
    try:
        problem = Problem.from_dict(data.header["problem"])
    except (KeyError, TypeError, ProblemError) as exc:
        raise ResumeError(f"{path.name}: the recorded problem cannot be read ({exc})") from None
    try:
        return problem, recorded_settings(data, {})
    except ConfigError as exc:
        raise ResumeError(str(exc)) from None


def failure_line(error: BaseException | None, expected: tuple[type[BaseException], ...]) -> str:
    """A resume's or re-run's failure in one line: an expected error's own
    words, any other with its type named."""
    text = str(error) if isinstance(error, expected) else f"{type(error).__name__}: {error}"
    return one_line(text, 300)
