"""A listing's query: what the session browser's search line and
``qflow sessions`` filters ask for (:class:`Query`), and reading a search line
into one (``outcome:accepted since:3d words``), each bad filter one line."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass


@dataclass
class Query:
    """What a listing asks for. Empty fields do not filter."""

    search: str = ""
    """Full-text search over the title, problem statement, final program,
    model, workflow, outcome and task id: every word must occur (the last one
    as a prefix); a line of code finds the programs containing it."""
    workflow: str = ""
    model: str = ""
    """A part of the model name."""
    outcome: str = ""
    since: float | None = None
    """Runs started at or after this time (seconds since the epoch)."""
    until: float | None = None
    folder: str | None = None
    """Only the sessions in this sub-folder of the listed folder ("" = the
    folder itself); None = every folder in scope."""
    benchmark: str = ""
    sort: str = "date"
    limit: int | None = None
    offset: int = 0


#: Words of a search that filter instead of searching: ``outcome:accepted``.
FILTER_WORDS = ("workflow", "model", "outcome", "since", "until", "bench")


#: Every outcome a listing shows: a finished run's, or the reader's word for
#: one that did not finish.
OUTCOMES = ("accepted", "reverted", "rejected", "unchecked", "failed", "cancelled", "incomplete")


class SearchError(ValueError):
    """A filter whose value cannot match anything; the message says what to give."""


_RELATIVE = re.compile(r"(\d+)([dw])")


def parse_date(text: str, what: str, *, now: float | None = None) -> float:
    """A date as a person types it: ``YYYY-MM-DD`` (optionally with ``THH:MM``),
    ``today``, ``yesterday``, or ``3d`` / ``2w`` ago; seconds since the epoch
    (local midnight for a day). Raises SearchError naming ``what``."""
    now = time.time() if now is None else now
    word = text.strip().lower()
    midnight = time.mktime((*time.localtime(now)[:3], 0, 0, 0, 0, 0, -1))
    if word in ("today", "yesterday"):
        return midnight - (86400 if word == "yesterday" else 0)
    relative = _RELATIVE.fullmatch(word)
    if relative:
        return midnight - int(relative[1]) * (7 if relative[2] == "w" else 1) * 86400
    for fmt in ("%Y-%m-%d", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"):
        try:
            return time.mktime(time.strptime(text.strip(), fmt))
        except (ValueError, OverflowError):
            continue
    raise SearchError(f"{what} {text!r}: give a date as YYYY-MM-DD, today, yesterday, or 3d / 2w ago")


def check_outcome(value: str, what: str = "outcome:") -> str:
    """The outcome ``value`` names (in full, or a prefix of one only: ``acc``);
    else SearchError."""
    word = value.lower()
    matches = [o for o in OUTCOMES if o == word] or [o for o in OUTCOMES if o.startswith(word)]
    if len(matches) == 1:
        return matches[0]
    choose = ", ".join(matches or OUTCOMES)
    raise SearchError(f"{what}{value}: {'which one' if matches else 'no session has that outcome'}? choose {choose}")


def parse_search(text: str) -> Query:
    """A search line as the browser takes it: ``key:value`` words filter
    (``workflow:``, ``model:``, ``outcome:``, ``bench:``, ``since:`` and
    ``until:`` with a date, see :func:`parse_date`), the other words are
    searched. A filter value that cannot match (``outcome:bogus``,
    ``since:someday``) raises SearchError rather than silently matching
    nothing."""
    query = Query()
    words = []
    for word in text.split():
        key, sep, value = word.partition(":")
        key = key.lower()
        if not sep or not value or key not in FILTER_WORDS:
            words.append(word)
        elif key in ("since", "until"):
            setattr(query, key, parse_date(value, f"{key}:"))
        elif key == "bench":
            query.benchmark = value
        elif key == "outcome":
            query.outcome = check_outcome(value)
        else:
            setattr(query, key, value)
    query.search = " ".join(words)
    return query
