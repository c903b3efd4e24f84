"""Exporting a session: a clean JSONL copy (the readable part, secrets redacted
again) or a Markdown transcript."""

from __future__ import annotations

import html
import os
from pathlib import Path

from ..escape import markdown as md
from .fileformat import SessionError, session_stem
from .reader import SessionData, read_session
from .redaction import redact, secret_values
from .transcript import markdown_transcript
from .writer import SessionWriter


def export_jsonl(data: SessionData, dest: Path | str) -> Path:
    """Write the session's readable part as a clean session file (header and
    valid events; a corrupt tail is left behind). Secrets are redacted again."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    tmp.unlink(missing_ok=True)
    with SessionWriter(
        tmp, workflow="", model="", config={}, problem={}, copy_header=data.header, index=False
    ) as writer:
        for e in data.events:
            writer(e)
    os.replace(tmp, dest)
    return dest


def export_markdown(data: SessionData, dest: Path | str) -> Path:
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    secrets = secret_values()
    # A secret may stand in the transcript escaped (a key with a "|" or "&" in it).
    escaped = {form for v in secrets for form in (v, md.text(v), md.code(v), html.escape(v))}
    text = redact(markdown_transcript(data), sorted(escaped, key=len, reverse=True))
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
    stem = session_stem(Path(path))
    if fmt == "html":
        return f"{stem}.html"
    return f"{stem}.md" if fmt == "md" else f"{stem}-export.jsonl"
