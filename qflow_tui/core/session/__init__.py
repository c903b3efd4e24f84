"""Session files: one JSONL file per run, a header line then one event per line.

The package's parts: the file format (:mod:`.fileformat`), keeping secrets out
(:mod:`.redaction`), writing (:mod:`.writer`), reading and the run's summary
(:mod:`.reader`), answering model calls from a recording (:mod:`.replay`, the
``replay/`` provider), listing a folder (:mod:`.listing`), export (:mod:`.export`)
and the Markdown transcript (:mod:`.transcript`). Callers import from here.

Where sessions go is the caller's choice (``session_dir`` of the runner): the
user data folder by default; a benchmark passes its own output folder.
"""

from __future__ import annotations

from .export import EXPORT_FORMATS, default_export_name, export_jsonl, export_markdown, export_session
from .fileformat import (
    OLDEST_READABLE_VERSION,
    SESSION_FORMAT,
    SESSION_FORMAT_VERSION,
    SESSION_SUFFIX,
    TERMINAL_KINDS,
    UPGRADES,
    SessionError,
    session_title,
)
from .index import (
    FolderGroup,
    IndexUnavailable,
    Listing,
    Query,
    SearchError,
    SessionIndex,
    find_sessions,
    parse_search,
)
from .listing import SessionInfo, Unreadable, delete_session, list_sessions, session_info
from .reader import SessionData, read_header, read_session, summarize
from .redaction import SECRET_ENV_VARS, redact, secret_values
from .replay import ReplayClient
from .transcript import markdown_transcript
from .writer import SessionWriter, compress_session, new_session_path

__all__ = [
    "EXPORT_FORMATS",
    "OLDEST_READABLE_VERSION",
    "SECRET_ENV_VARS",
    "SESSION_FORMAT",
    "SESSION_FORMAT_VERSION",
    "SESSION_SUFFIX",
    "TERMINAL_KINDS",
    "UPGRADES",
    "FolderGroup",
    "IndexUnavailable",
    "Listing",
    "Query",
    "ReplayClient",
    "SearchError",
    "SessionData",
    "SessionError",
    "SessionIndex",
    "SessionInfo",
    "SessionWriter",
    "Unreadable",
    "compress_session",
    "default_export_name",
    "delete_session",
    "export_jsonl",
    "export_markdown",
    "export_session",
    "find_sessions",
    "list_sessions",
    "markdown_transcript",
    "new_session_path",
    "parse_search",
    "read_header",
    "read_session",
    "redact",
    "secret_values",
    "session_info",
    "session_title",
    "summarize",
]
