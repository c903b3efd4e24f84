"""Names, notes and sorting of sessions (issue 57): ``qflow sessions rename`` /
``note`` and the browser's n / a keep them beside the sessions, never in a
session file (which stays byte for byte as written); the browser sorts with s
and keeps each session's number; Ctrl+R re-runs the selected session."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Static, TextArea

from qflow_tui.cli import main
from qflow_tui.commands.demo import demo_session
from qflow_tui.core.config import RunConfig
from qflow_tui.core.session.notes import notes_path, read_notes
from qflow_tui.locations import sessions_dir
from qflow_tui.ui.app import create_app
from qflow_tui.ui.screens.line_prompt import LinePrompt
from qflow_tui.ui.screens.run_screen import RunScreen
from qflow_tui.ui.screens.sessions import SessionsScreen
from qflow_tui.ui.screens.steer_edit import SteerEditScreen
from tests.helpers import TestSandbox
from tests.ui.ui_steps import wait_until

SIZE = (80, 24)


@pytest.fixture
def folder() -> Path:
    """Two sessions of the demo, a day apart, with different token counts."""
    sessions = sessions_dir()
    sessions.mkdir(parents=True, exist_ok=True)
    header, rest = demo_session().read_text().split("\n", 1)
    h = json.loads(header)
    (sessions / "old-run.jsonl").write_text(json.dumps({**h, "created": "2026-02-01T10:00:00+0000"}) + "\n" + rest)
    (sessions / "new-run.jsonl").write_text(
        json.dumps({**h, "created": "2026-02-02T10:00:00+0000", "title": "Newer run"}) + "\n" + rest
    )
    return sessions


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_rename_and_note_from_the_cli_keep_the_session_file_as_it_was(capsys, folder):
    before = digest(folder / "old-run.jsonl")
    code, out, _ = run(capsys, "sessions", "rename", "2", "my first try")
    assert code == 0 and "old-run.jsonl: named 'my first try'" in out
    code, out, _ = run(capsys, "sessions", "note", "old-run", "the checker was too strict")
    assert code == 0 and "note saved" in out
    assert digest(folder / "old-run.jsonl") == before  # the record of the run is never rewritten
    code, out, _ = run(capsys, "sessions", "note", "2")
    assert out.strip() == "the checker was too strict"
    code, out, _ = run(capsys, "sessions", "--json")
    shown = {Path(s["path"]).name: s for s in json.loads(out)["sessions"]}
    assert shown["old-run.jsonl"]["name"] == "my first try"
    assert shown["old-run.jsonl"]["note"] == "the checker was too strict"
    assert shown["new-run.jsonl"]["name"] == "" and shown["new-run.jsonl"]["title"] == "Newer run"
    code, out, _ = run(capsys, "sessions")
    assert "my first try ✎" in out and "Newer run" in out
    # "" gives the title back and clears the note: nothing is left in the notes file.
    run(capsys, "sessions", "rename", "2", "")
    run(capsys, "sessions", "note", "2", "")
    assert read_notes() == {}


def test_bad_names_and_sessions_are_one_line(capsys, folder):
    code, _, err = run(capsys, "sessions", "rename", "2", "two\nlines")
    assert code != 0 and err.strip() == "qflow: a name is one line (a note takes several)"
    code, _, err = run(capsys, "sessions", "note", "9", "x")
    assert code != 0 and len(err.strip().splitlines()) == 1 and "no session #9" in err
    assert "numbered as listed by date" in err
    notes_path().parent.mkdir(parents=True, exist_ok=True)
    notes_path().write_text('["a list"]')
    code, _, err = run(capsys, "sessions", "rename", "2", "x")
    assert code != 0 and "not a notes file" in err and "Traceback" not in err
    assert notes_path().read_text() == '["a list"]'  # a damaged notes file is never overwritten


def browser_app():
    return create_app(
        RunConfig(model="script/qflow_tui/data/demo/responder.py"), sandbox=TestSandbox(), remember_theme=False
    )


async def open_browser(pilot) -> SessionsScreen:
    await pilot.press("f2")
    screen = pilot.app.screen
    assert isinstance(screen, SessionsScreen)
    await wait_until(pilot, lambda: screen.loaded, "the listing")
    await pilot.pause()
    return screen


def titles(screen: SessionsScreen) -> list[str]:
    table = screen.query_one(DataTable)
    column = next(i for i, c in enumerate(table.columns.values()) if c.label.plain == "problem")
    return [str(table.get_row_at(row)[column]) for row in range(table.row_count)]


async def test_the_browser_renames_notes_and_sorts(folder):
    before = digest(folder / "old-run.jsonl")
    app = browser_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_browser(pilot)
        assert [s.path.name for s in screen.sessions] == ["new-run.jsonl", "old-run.jsonl"]
        await pilot.press("down", "n")
        # A name is one line: Enter takes it (a text box would take Enter as a newline).
        await wait_until(pilot, lambda: isinstance(app.screen, LinePrompt), "the name prompt")
        app.screen.query_one(Input).value = ""
        await pilot.press(*"my first try", "enter")
        await wait_until(pilot, lambda: app.screen is screen, "back in the browser")
        await wait_until(pilot, lambda: "my first try" in titles(screen)[1], "the new name")
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, SteerEditScreen), "the note editor")
        app.screen.query_one(TextArea).load_text("too strict a checker")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.screen is screen, "back in the browser")
        line = screen.query_one("#sessions-parent", Static)
        await wait_until(pilot, lambda: "too strict a checker" in str(line.render()), "the note shown")
        assert titles(screen)[1].endswith("✎")
        # s sorts (oldest first); each session keeps its number.
        numbers = {s.path.name: s.number for s in screen.sessions}
        await pilot.press("s")
        await wait_until(pilot, lambda: screen.sort == "oldest" and screen.sessions[0].path.name == "old-run.jsonl",
                         "the oldest first")  # fmt: skip
        await wait_until(pilot, lambda: screen.loaded and "oldest first" in str(screen.query_one("#sessions-where", Static).render()), "said")  # fmt: skip
        assert {s.path.name: s.number for s in screen.sessions} == numbers
        assert "my first try" in titles(screen)[0]  # read again from the notes file
    assert digest(folder / "old-run.jsonl") == before
    assert read_notes()["old-run"].note == "too strict a checker"


async def test_ctrl_r_re_runs_the_selected_session_from_its_recording(folder):
    app = browser_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(pilot)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, RunScreen), "the re-run", limit=3000)
        screen = app.screen
        assert screen.problem.entry_point == "remove_Occ"
        assert screen.config.model.startswith("replay/") and "new-run.jsonl" in screen.config.model
        await wait_until(pilot, lambda: not screen.running, "the re-run to end", limit=6000)
        assert screen.outcome is not None and screen.outcome.outcome == "accepted"
