"""A name and a note a person gives a session, kept beside the sessions and
never in them: a session file is the record of a run and is never rewritten,
so renaming one or writing a note about it cannot lose a line of it.

They live in one small JSON file in the user data folder, keyed by the
session's id (its file name without the suffix, unique and unchanging), and
are written whole to a temporary file that then replaces the old one, so a
crash leaves the old notes or the new ones, never half of either."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ...locations import data_dir
from ..safe_text import one_line
from .fileformat import SessionError, session_stem
from .listing import SessionInfo

NOTES_NAME = "session-notes.json"
#: The longest name (one line) and note a session takes, in characters.
MAX_NAME = 200
MAX_NOTE = 4000
#: A notes file larger than this is not ours: it is not read.
MAX_NOTES_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class SessionNote:
    """What a person said of one session."""

    name: str = ""
    """Shown in place of the problem's title ("" : the title)."""
    note: str = ""
    """Free text, several lines."""


def notes_path() -> Path:
    return data_dir() / NOTES_NAME


def read_notes(path: Path | None = None) -> dict[str, SessionNote]:
    """Every session's name and note, by session id. A missing file is none; a
    damaged one raises SessionError (one line) rather than being overwritten."""
    path = path or notes_path()
    try:
        if path.stat().st_size > MAX_NOTES_BYTES:
            raise SessionError(f"{path}: larger than {MAX_NOTES_BYTES // 2**20} MB, not a notes file; move it away")
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise SessionError(
            f"{path}: cannot be read ({one_line(str(exc), 120)}); move it away to start afresh"
        ) from None
    if not isinstance(raw, dict):
        raise SessionError(f"{path}: not a notes file (a JSON object by session id); move it away")
    out: dict[str, SessionNote] = {}
    for key, value in raw.items():
        if isinstance(value, dict):
            name, note = value.get("name", ""), value.get("note", "")
            out[str(key)] = SessionNote(
                one_line(name, MAX_NAME) if isinstance(name, str) else "",
                note[:MAX_NOTE] if isinstance(note, str) else "",
            )
    return out


def check_name(name: str) -> str:
    """A session's new name: one line, at most MAX_NAME characters ("" clears it)."""
    name = name.strip()
    if "\n" in name:
        raise SessionError("a name is one line (a note takes several)")
    if len(name) > MAX_NAME:
        raise SessionError(f"a name takes at most {MAX_NAME} characters, not {len(name)}")
    return name


def check_note(note: str) -> str:
    note = note.strip()
    if len(note) > MAX_NOTE:
        raise SessionError(f"a note takes at most {MAX_NOTE} characters, not {len(note)}")
    return note


def set_note(
    session: Path, *, name: str | None = None, note: str | None = None, path: Path | None = None
) -> SessionNote:
    """Give ``session`` a name and/or a note (None: unchanged; "": cleared);
    returns what it now has. The session file itself is not touched."""
    path = path or notes_path()
    notes = read_notes(path)
    key = session_stem(Path(session))
    old = notes.get(key, SessionNote())
    new = SessionNote(
        check_name(name) if name is not None else old.name, check_note(note) if note is not None else old.note
    )
    if new == SessionNote():
        notes.pop(key, None)
    else:
        notes[key] = new
    data = {k: {"name": v.name, "note": v.note} for k, v in sorted(notes.items())}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".notes-", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, ensure_ascii=False)
            fh.write("\n")
        os.replace(tmp, path)
    except OSError as exc:
        raise SessionError(f"{path}: cannot save the note there ({exc.strerror or exc})") from None
    return new


def attach_notes(sessions: list[SessionInfo], notes: dict[str, SessionNote] | None = None) -> str:
    """Give each listed session its name and note. Returns "" or, when the
    notes file cannot be read, why (one line; the sessions then show their titles)."""
    if notes is None:
        try:
            notes = read_notes()
        except SessionError as exc:
            return str(exc)
    for info in sessions:
        found = notes.get(info.id)
        if found is not None:
            info.name, info.note = found.name, found.note
    return ""
