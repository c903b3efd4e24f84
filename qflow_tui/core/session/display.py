"""How a session listing shows its numbers and names, shared by ``qflow
sessions`` and the app's browser."""

from __future__ import annotations

import calendar
import time
from collections.abc import Mapping
from pathlib import Path


def human_time(created: str) -> str:
    """``2026-11-22T04:50:19+0000`` -> ``2026-11-22 04:50`` in local time."""
    try:
        t = time.strptime(created, "%Y-%m-%dT%H:%M:%S%z")
        offset = t.tm_gmtoff or 0
        stamp = calendar.timegm(t) - offset
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))
    except (ValueError, TypeError, OverflowError):
        return str(created)[:16].replace("T", " ")


def human_duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    m, s = divmod(round(seconds), 60)
    return f"{m}m{s:02d}s" if m < 60 else f"{m // 60}h{m % 60:02d}m"


def human_tokens(n: int) -> str:
    """A token count in one format wherever it is shown: whole below a
    thousand, then thousands with one decimal (``4.2k``, ``10.4k``), whole
    thousands from 100k, millions with two decimals (``1.25M``). Two counts side
    by side (``10.4k in / 4.2k out``) never mix ``10.4k`` with ``4158``."""
    if n < 1000:
        return str(n)
    if n < 99_950:
        return f"{n / 1000:.1f}k"
    if n < 999_500:
        return f"{n / 1000:.0f}k"
    return f"{n / 1_000_000:.2f}M"


def short_model(model: str) -> str:
    """``replay//long/path/x.jsonl`` -> ``replay/x.jsonl``: paths shortened to their file name."""
    provider, sep, rest = model.partition("/")
    if sep and provider in ("script", "replay") and "/" in rest:
        return f"{provider}/{Path(rest).name}"
    return model


def fork_place(forked_at: str | None, *, parent_shown: bool, parent_exists: bool = True, loop: int = 0) -> str:
    """Where a fork stands, said the same way by ``qflow sessions`` and the
    browser in place of its model (a fork's model is the recording of its
    parent, ``replay/…``, which tells a reader nothing): ``fork @self_debug:1``,
    and why it is not under its parent when it is not (``· parent not shown``,
    ``· parent deleted``, ``· parents loop (3)``)."""
    at = f"fork @{forked_at}" if forked_at else "fork"
    if loop:
        return f"{at} · parents loop ({loop})"
    if parent_shown:
        return at
    return f"{at} · {'parent not shown' if parent_exists else 'parent deleted'}"


def model_words(header: Mapping[str, object], *, since: bool = True) -> str:
    """The model a session's run asked, as a reader wants it: a fork's or a
    resumed run's header names the recording it replays (``replay//path``), so
    its live model is said instead, with the step it took over from
    (``anthropic/claude-x from self_debug:1``); other names are shortened by
    :func:`short_model`. ``since=False`` leaves the step out, for a line
    that says where the fork branched already."""
    model = str(header.get("model") or "")
    config = header.get("config")
    live = config.get("fallback_model") if isinstance(config, Mapping) else None
    if model.startswith("replay/") and isinstance(live, str) and live:
        at = header.get("forked_at")
        return short_model(live) + (f" from {at}" if since and isinstance(at, str) and at else "")
    return short_model(model)
