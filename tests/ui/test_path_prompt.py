"""The one path prompt, in both its uses (saving the program from a run,
exporting a session from the browser): a default path, no overwriting without
a yes, one line for a path that cannot be written, the typed path kept."""

from __future__ import annotations

import shutil

from ui_app import SIZE, build_app
from ui_steps import finish_run, start_run, wait_until

from qflow_tui.core.config import RunConfig
from qflow_tui.core.session import read_session
from qflow_tui.locations import demo_session, sessions_dir
from qflow_tui.ui.app import create_app
from qflow_tui.ui.screens.confirm import Confirm
from qflow_tui.ui.screens.path_prompt import PathPrompt
from qflow_tui.ui.screens.run_screen import RunScreen
from qflow_tui.ui.screens.sessions import SessionsScreen


async def submit(pilot, text: str | None = None) -> None:
    prompt = pilot.app.screen
    assert isinstance(prompt, PathPrompt)
    if text is not None:
        prompt.query_one("#path-prompt-input").value = text
    await pilot.press("enter")
    await pilot.pause()


def field(app) -> str:
    return app.screen.query_one("#path-prompt-input").value


async def test_saving_the_program(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = build_app(config=RunConfig(model="script/tests/scripts/mbpp11.py").replace(prompts=2))
    async with app.run_test(size=SIZE) as pilot:
        await start_run(pilot)
        view = await finish_run(pilot)
        program = view.program_text().rstrip("\n") + "\n"
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, PathPrompt), "the path prompt")
        prompt = app.screen
        assert field(app) == "remove_Occ.py"  # the default: the entry point's name

        # A path that cannot be written: one line, the dialog and the typed path stay.
        (tmp_path / "a-file").write_text("x")
        bad = str(tmp_path / "a-file" / "p.py")
        await submit(pilot, bad)
        assert app.screen is prompt and field(app) == bad
        assert prompt.hint.startswith("✗ cannot write") and "\n" not in prompt.hint

        # An existing file is not overwritten without a yes.
        old = tmp_path / "old.py"
        old.write_text("# mine\n")
        await submit(pilot, str(old))
        assert isinstance(app.screen, Confirm)
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is prompt and field(app) == str(old)
        assert old.read_text() == "# mine\n" and "exists and was kept" in prompt.hint
        await submit(pilot)
        assert isinstance(app.screen, Confirm)
        await pilot.press("y")
        await wait_until(pilot, lambda: isinstance(app.screen, RunScreen), "back on the run")
        assert old.read_text() == program
        assert not list(tmp_path.glob("*.part"))

        # The default, in the current folder; a folder gets the default name inside it.
        await pilot.press("s")
        await pilot.pause()
        await submit(pilot)
        assert (tmp_path / "remove_Occ.py").read_text() == program
        (tmp_path / "out").mkdir()
        await pilot.press("s")
        await pilot.pause()
        await submit(pilot, str(tmp_path / "out"))
        assert (tmp_path / "out" / "remove_Occ.py").read_text() == program
        assert isinstance(app.screen, RunScreen)


async def test_exporting_a_session(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sessions_dir().mkdir(parents=True, exist_ok=True)
    shutil.copy(demo_session(), sessions_dir() / "demo.jsonl")
    app = create_app(RunConfig(model="script/tests/scripts/mbpp11.py"), remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.loaded, "browser")
        browser = app.screen
        await pilot.press("J")
        await wait_until(pilot, lambda: isinstance(app.screen, PathPrompt), "the path prompt")
        prompt = app.screen
        assert field(app) == str(tmp_path / "demo-export.jsonl")

        # The session itself is never a target: one line, nothing lost.
        await submit(pilot, str(sessions_dir() / "demo.jsonl"))
        assert isinstance(app.screen, Confirm)  # it exists: asked first...
        await pilot.press("y")
        await pilot.pause()
        assert app.screen is prompt and "exporting a session onto itself" in prompt.hint  # ...then refused
        assert read_session(sessions_dir() / "demo.jsonl").warnings == []

        bad = str(tmp_path / "nowhere" / "\0bad.jsonl")
        await submit(pilot, bad)
        assert app.screen is prompt and prompt.hint.startswith("✗") and "\n" not in prompt.hint

        old = tmp_path / "old.jsonl"
        old.write_text("mine\n")
        await submit(pilot, str(old))
        await pilot.press("n")
        await pilot.pause()
        assert old.read_text() == "mine\n" and app.screen is prompt
        await submit(pilot)
        await pilot.press("y")
        await wait_until(pilot, lambda: app.screen is browser, "back in the browser")
        assert read_session(old).warnings == [] and len(read_session(old).events) > 10

        await pilot.press("m")
        await pilot.pause()
        await submit(pilot, str(tmp_path))  # a folder: the default name inside it
        assert (tmp_path / "demo.md").read_text().startswith("# ")
        assert app.screen is browser
