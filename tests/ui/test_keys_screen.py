"""``?`` (or F1) on any screen lists every key of that screen, the ones the
footer has no room for included, and closes with Escape."""

from __future__ import annotations

from ui_app import SIZE, build_app

from qflow_tui.ui.screens.compose import ComposeScreen
from qflow_tui.ui.screens.keys import KeysScreen, keys_of
from qflow_tui.ui.screens.sessions import SessionsScreen


def listed(screen: KeysScreen) -> str:
    return "\n".join(str(w.render()) for w in screen.query(".keys-key, .keys-what, .keys-group"))


async def test_question_mark_lists_the_browsers_keys_the_footer_has_no_room_for(tmp_path, monkeypatch):
    monkeypatch.setenv("QFLOW_DATA_DIR", str(tmp_path))
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        await app.workers.wait_for_complete()
        browser = app.screen
        assert isinstance(browser, SessionsScreen)
        browser.query_one("#sessions-table").focus()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, KeysScreen)
        text = listed(app.screen)
        for words in ("Open: Replay the selected session", "Export .jsonl", "Resume", "Demo", "Parent", "Reload"):
            assert words in text, words
        assert "This screen" in text and "Everywhere" in text and "Sessions" in text
        assert "Cursor up" not in text  # Textual's own keys are not what a person looks for
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is browser


async def test_f1_opens_the_keys_while_typing_in_the_compose_form():
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        compose = app.screen
        assert isinstance(compose, ComposeScreen)
        compose.query_one("#statement").focus()
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, KeysScreen)
        groups = dict(keys_of(compose))
        assert any(r.what.startswith("Run") for r in groups["This screen"])
        await pilot.press("q")
        await pilot.pause()
        assert app.screen is compose


def test_the_keys_overlay_snapshot(snap_compare, tmp_path, monkeypatch):
    monkeypatch.setenv("QFLOW_DATA_DIR", str(tmp_path))

    async def run_before(pilot):
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()

    assert snap_compare(build_app(), terminal_size=SIZE, run_before=run_before)


async def test_question_mark_types_in_a_text_field_and_lists_the_keys_elsewhere():
    """The README's promise on the compose screen: a `?` in the statement is text
    (a statement may ask a question), anywhere else it lists the keys, as F1 does."""
    app = build_app(example=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        compose = app.screen
        statement = compose.query_one("#statement")
        statement.focus()
        await pilot.press("question_mark")
        await pilot.pause()
        assert app.screen is compose and statement.text == "?"
        compose.query_one("#workflow").focus()
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, KeysScreen)


def test_the_readme_says_where_question_mark_is_text():
    from pathlib import Path

    readme = (Path(__file__).parents[2] / "README.md").read_text()
    assert "`?` lists the keys" in readme and "F1 where the cursor is in a text field" in readme
