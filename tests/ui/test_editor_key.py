"""E on the run screen (issue 57, lazygit's e): the program in the user's own
$EDITOR, the app suspended. At a stop that allows a program edit, what the
editor leaves is taken as that edit; elsewhere the file is read-only and
nothing is taken; with no editor set, one line says what to do."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import pytest
from test_steer_live import FIXED, ONE
from ui_app import SIZE, build_app
from ui_steps import finish_run, start_run, step_to, wait_until

from qflow_tui.ui.editor import NO_EDITOR, editor_command

EDITOR = """import os, stat, sys
seen, path = sys.argv[1], sys.argv[2]
read_only = not os.stat(path).st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
with open(seen, "w") as out:
    out.write("read-only" if read_only else open(path).read())
open(path, "w").write(os.environ["QF_NEW_TEXT"])  # root may write a read-only file: it must not be taken
"""


@pytest.fixture
def editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An $EDITOR that notes what it was given (in ``seen``) and writes FIXED."""
    script = tmp_path / "editor.py"
    script.write_text(EDITOR)
    seen = tmp_path / "seen"
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script} {seen}")
    monkeypatch.setenv("QF_NEW_TEXT", FIXED)
    return seen


def seen_text(path: Path) -> str:
    return path.read_text()


def no_suspend(app) -> None:
    """The test driver cannot hand the terminal over; the editor runs all the same."""
    app.suspend = contextlib.nullcontext  # type: ignore[method-assign]


async def test_at_a_stop_the_editors_text_is_taken_as_the_program_edit(editor: Path) -> None:
    app = build_app(config=ONE, stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        no_suspend(app)
        screen = await start_run(pilot)
        await step_to(pilot, screen, "check:program_generator", 0)
        await pilot.press("E")
        await wait_until(pilot, lambda: bool(screen.steering.programs), "the edit to be taken")
        assert "def remove_Occ" in seen_text(editor)  # the stopped program was what it opened
        assert screen.steering.programs == {("program_generator", 0): FIXED}
        await pilot.press("c")
        view = await finish_run(pilot)
        assert view.state.finished is not None and view.state.finished.final_program == FIXED


async def test_after_the_run_the_program_opens_read_only(editor: Path) -> None:
    app = build_app(config=ONE)
    async with app.run_test(size=SIZE) as pilot:
        no_suspend(app)
        screen = await start_run(pilot)
        await finish_run(pilot)
        await pilot.press("E")
        await wait_until(pilot, editor.exists, "the editor to run")
        assert seen_text(editor) == "read-only"
        assert not screen.steering.programs


async def test_with_no_editor_set_one_line_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    app = build_app(config=ONE)
    said: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await start_run(pilot)
        await finish_run(pilot)
        app.notify = lambda message, **kw: said.append(str(message))  # type: ignore[method-assign]
        await pilot.press("E")
        await pilot.pause()
    assert said == [NO_EDITOR]


def test_the_editor_command_is_split_like_a_shell_line() -> None:
    assert editor_command({"VISUAL": "code -w", "EDITOR": "vi"}) == ["code", "-w"]
    assert editor_command({"EDITOR": "  "}) is None
    assert editor_command({"EDITOR": "'my editor' --wait"}) == ["my editor", "--wait"]


async def test_ctrl_g_on_the_form_opens_the_statement_or_the_focused_tests(editor: Path, monkeypatch) -> None:
    """Issue 57: 'open the program or statement in $EDITOR'. On the compose form
    Ctrl+G hands the statement to the editor (the tests when their box has the
    focus) and what the editor saves replaces the box's text."""
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        no_suspend(app)
        await pilot.pause()
        form = app.screen
        statement = form.query_one("#statement")
        original = statement.text
        monkeypatch.setenv("QF_NEW_TEXT", "Remove the first and last occurrence of a character.\n")
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: statement.text.startswith("Remove the first and last"), "the new statement")
        assert seen_text(editor) == original  # the editor was given the statement as it stood
        tests = form.query_one("#tests")
        tests.focus()
        await pilot.pause()
        monkeypatch.setenv("QF_NEW_TEXT", 'assert remove_Occ("hello", "l") == "heo"\n')
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: tests.text.startswith('assert remove_Occ("hello"'), "the new tests")
        assert "remove_Occ" in seen_text(editor)
        assert statement.text.startswith("Remove the first and last")  # the statement kept


async def test_ctrl_g_with_no_editor_set_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = app.screen.query_one("#statement").text
        await pilot.press("ctrl+g")
        await wait_until(
            pilot, lambda: any("No editor set" in str(n.message) for n in app._notifications), "the notice"
        )
        assert app.screen.query_one("#statement").text == text
