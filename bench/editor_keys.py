"""Backspaces typed at once in the step editor (``e`` at a stopped run), against
a bare Textual code editor holding the same text: milliseconds a key, side by
side in one run, at 80x24.

    .venv/bin/python bench/editor_keys.py [--keys 300]

Issue 46 reported 300 backspaces taking about 7 s. Both figures include
Textual's own per-edit work (a tree-sitter reparse and highlight map of the
whole document); the difference is what the app adds around a key."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "ui")]

from textual import events  # noqa: E402
from textual.app import App, ComposeResult  # noqa: E402
from textual.widgets import TextArea  # noqa: E402

TEXT = "def remove_Occ(s, ch):\n    return s\n" + "\n".join(f"    x = {i} + 1  # a line" for i in range(60))


async def _type_backspaces(app: App, editor: TextArea, keys: int) -> float:
    editor.focus()
    editor.load_text(TEXT)
    editor.move_cursor(editor.document.end)
    await asyncio.sleep(0.05)
    start = len(editor.text)
    began = time.perf_counter()
    for _ in range(keys):
        app.post_message(events.Key("backspace", None))
    while len(editor.text) > start - keys:  # noqa: ASYNC110 (the app edits; this only watches)
        await asyncio.sleep(0.002)
    return time.perf_counter() - began


class Bare(App[None]):
    def compose(self) -> ComposeResult:
        yield TextArea.code_editor(TEXT, language="python")


async def bare(keys: int) -> float:
    app = Bare()
    async with app.run_test(size=(80, 24)):
        return await _type_backspaces(app, app.query_one(TextArea), keys)


async def step_editor(keys: int) -> float:
    from ui_app import build_app
    from ui_steps import start_run, step_to, wait_until

    from qflow_tui.ui.screens.steer_edit import SteerEditScreen

    app = build_app(stepping=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start_run(pilot)
        await step_to(pilot, screen, "check:program_generator")
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, SteerEditScreen), "the editor")
        return await _type_backspaces(app, app.screen.query_one("#steer-editor", TextArea), keys)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=300)
    keys = parser.parse_args().keys
    a = asyncio.run(bare(keys))
    b = asyncio.run(step_editor(keys))
    print(f"{keys} backspaces typed at once, 80x24")
    print(f"  bare Textual code editor  {a:6.2f} s  {a / keys * 1000:5.1f} ms a key")
    print(f"  qflow step editor         {b:6.2f} s  {b / keys * 1000:5.1f} ms a key  ({b / a:.1f}x)")


if __name__ == "__main__":
    main()
