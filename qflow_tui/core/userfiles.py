"""Read a file the user named, and split a problem file into statement and tests.

Every command and screen that opens a user's file goes through
:func:`read_user_file`, so a missing file, a folder, unreadable bytes or a
permission problem is always one line that says what to do.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from .safe_text import valid_json_text, valid_text

#: A file larger than this is refused before it is read: no problem statement,
#: test file or program is anywhere near it, and reading it whole would stall.
MAX_USER_FILE = 64 * 1024 * 1024


class UserFileError(ValueError):
    """A user's file that cannot be used; the message is one line for the user."""


def read_user_file(path: str | Path, what: str, *, stdin: bool = True) -> str:
    """The text of ``path`` (``-`` reads standard input when ``stdin``).

    ``what`` names the file in messages: ``problem``, ``tests``, ``code``.
    Raises :class:`UserFileError` with a one-line reason."""
    if stdin and str(path) == "-":
        # Under a C locale Python reads bytes that are not UTF-8 as lone
        # surrogates: made valid here, marked as U+FFFD.
        return valid_text(sys.stdin.read())
    p = Path(path).expanduser()
    label = f"{what} file {path}"
    try:
        if p.is_dir():
            raise UserFileError(f"{label}: is a folder; give a file")
        if p.exists() and not p.is_file():
            raise UserFileError(f"{label}: not a regular file")
        if p.exists() and p.stat().st_size > MAX_USER_FILE:
            raise UserFileError(f"{label}: larger than {MAX_USER_FILE // (1024 * 1024)} MB; give a smaller file")
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserFileError(f"{label}: no such file") from None
    except PermissionError:
        raise UserFileError(f"{label}: permission denied") from None
    except UnicodeDecodeError:
        raise UserFileError(f"{label}: not UTF-8 text") from None
    except OSError as exc:
        raise UserFileError(f"{label}: {exc.strerror or exc}") from None


_TESTS_START = re.compile(r"^\s*(assert\b|import\s|from\s+\S+\s+import\s)")


def split_problem_file(text: str) -> tuple[str, str]:
    """A problem file: the statement, then the tests from the first assert (or
    import) line on."""
    lines = text.replace("\r\n", "\n").split("\n")
    for i, line in enumerate(lines):
        if _TESTS_START.match(line):
            return "\n".join(lines[:i]).strip(), "\n".join(lines[i:]).strip() + "\n"
    return text.strip(), ""


@dataclass(frozen=True)
class ProblemText:
    """A problem as the user wrote it, before it is parsed."""

    statement: str
    tests: str
    entry_point: str | None = None


def load_problem_file(path: str | Path) -> ProblemText:
    """Read a problem file: statement then tests, or a ``.json`` file with
    ``statement`` and ``tests`` (a string or a list) and an optional ``entry_point``."""
    text = read_user_file(path, "problem", stdin=False)
    if Path(path).suffix.lower() != ".json":
        return ProblemText(*split_problem_file(text))
    try:
        data = json.loads(valid_json_text(text))
    except json.JSONDecodeError as exc:
        raise UserFileError(
            f"problem file {path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            'a .json problem is an object with "statement" and "tests"'
        ) from None
    except (ValueError, RecursionError):
        raise UserFileError(f"problem file {path}: not valid JSON") from None
    try:
        statement, tests = data["statement"], data["tests"]
        tests = "\n".join(tests) if isinstance(tests, list) else str(tests)
        entry = data.get("entry_point")
        if not isinstance(statement, str) or not (entry is None or isinstance(entry, str)):
            raise TypeError
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        raise UserFileError(f'problem file {path}: a .json problem needs "statement" and "tests" keys') from None
    return ProblemText(statement, tests, entry)
