"""What a reader does on a bench's page, with the keyboard alone, in chromium
driven over the DevTools protocol: sort the problems by a column (Enter on its
heading, again to reverse), filter them, open a problem's session (Enter on
its id) and close it (Esc, the focus back on the row), with no console error."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.helpers import qflow
from tests.htmlpage.browser import needs_chromium
from tests.htmlpage.conftest import ok

pytestmark = needs_chromium

TOKENS = "Array.from(document.querySelectorAll('#problems tbody tr')).map(r => Number(r.cells[4].dataset.v))"


async def _drive(page: Path, profile: Path) -> None:
    from tests.htmlpage.devtools import close, open_page

    b = await open_page(page.as_uri(), profile)
    try:
        await b.until("document.documentElement.dataset.readyMs !== undefined")
        before = await b.js(TOKENS)
        assert len(before) == 3
        await b.js("document.querySelector('button.sort[data-col=\"4\"]').focus()")
        await b.key("Enter", "Enter", 13)
        await b.until("document.querySelectorAll('th[aria-sort=ascending]').length === 1")
        assert await b.js(TOKENS) == sorted(before)
        await b.key("Enter", "Enter", 13)
        await b.until("document.querySelectorAll('th[aria-sort=descending]').length === 1")
        assert await b.js(TOKENS) == sorted(before, reverse=True)

        await b.js("document.getElementById('search').focus()")
        await b.send("Input.insertText", text="humaneval/1")
        await b.until("document.getElementById('shown').textContent === '1 of 3 shown'")
        for _ in "humaneval/1":
            await b.key("Backspace", "Backspace", 8)
        await b.until("document.getElementById('shown').textContent === '3 of 3 shown'")

        await b.js("document.querySelector('button.open[data-s=\"s2\"]').focus()")
        await b.key("Enter", "Enter", 13)
        await b.until("document.getElementById('session-view').textContent.includes('humaneval/2')")
        assert await b.js("document.activeElement.id") == "session-view"
        assert await b.js("document.getElementById('session-view').textContent.includes('self_debugger')")
        await b.key("Escape", "Escape", 27)
        await b.until("document.getElementById('session-view').childElementCount === 0")
        assert await b.js("document.activeElement.dataset.s") == "s2"
        assert b.errors == []
    finally:
        await close(b)


def test_sort_filter_and_open_a_session_with_the_keyboard(bench, tmp_path):
    page = tmp_path / "report.html"
    ok(qflow("bench", "report", str(bench), "--format", "html", "-o", str(page)))
    asyncio.run(_drive(page, tmp_path / "profile"))
