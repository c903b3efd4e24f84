"""A bench or a session as one self-contained HTML page (DESIGN.md, "What
leaves the terminal"): styles, script and data inline, nothing fetched,
everything from outside escaped (:mod:`..escape.htmltext`). The session page
is :mod:`.session_page`, the bench and comparison pages :mod:`.bench_page`,
their charts inline SVG (:mod:`.charts`), the shared shell :mod:`.page`."""

from __future__ import annotations

import os
from pathlib import Path

from ..bench.bench_runner import BenchError
from ..bench.report import compare_problem, load_bench
from ..session import SessionError, read_session
from .bench_page import render_bench_page, render_compare_page
from .session_page import render_session_page


class PageError(Exception):
    """A page could not be written (one line, for the user)."""


def write_text(dest: Path, text: str) -> None:
    """Write ``text`` to ``dest`` whole or not at all (a ``.part`` file renamed)."""
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + ".part")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, dest)
    except OSError as exc:
        raise PageError(f"{dest}: cannot write the page ({exc.strerror or exc})") from None


def write_session_page(session: Path, dest: Path) -> Path:
    """``qflow sessions export SESSION --format html``. Raises SessionError, PageError."""
    if dest.resolve() == session.resolve():
        raise SessionError(f"{dest}: exporting a session onto itself")
    write_text(dest, render_session_page(read_session(session)))
    return dest


def write_bench_page(folders: list[Path], dest: Path, family: str | None = None, split: bool = False) -> list[str]:
    """``qflow bench report DIR... --format html``: one bench's page, or several
    side by side; with ``split`` one bench's sessions as sibling pages in
    ``<page>-sessions/``. Returns what to tell the user (sessions not read).
    Raises BenchError (a folder that is no bench, benches of different
    problems) and PageError."""
    benches = [load_bench(f) for f in folders]
    if len(benches) > 1:
        problem = compare_problem(benches)
        if problem is not None:
            raise BenchError(problem)
        if split:
            raise BenchError("--split writes one bench's sessions beside its page: give one bench folder")
        written = render_compare_page(benches)
    else:
        written = render_bench_page(benches[0], family, f"{dest.stem}-sessions" if split else None)
    for rel, text in written.siblings.items():
        write_text(dest.parent / rel, text)
    write_text(dest, written.html)
    return written.notes
