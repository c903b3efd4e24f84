"""Notifications: a toast never covers the compose form's inline error, one
thing is said once, and Ctrl+L lists every notice of the session."""

from __future__ import annotations

import sys
from pathlib import Path

from ui_app import SIZE, build_app
from ui_steps import open_tests_tab_at_first_debug, wait_until

from qflow_tui.core.config import RunConfig
from qflow_tui.ui.app import CUT_HINT, toast_line
from qflow_tui.ui.screens.steer_edit import SteerEditScreen

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))  # the stub model server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))  # the stub model server

from qflow_tui.ui.screens.message_log import MessagesScreen


async def test_a_toast_never_covers_the_inline_error(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    app = build_app()
    app.client = None
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        app.screen.query_one("#model").value = "anthropic/claude-sonnet-5-5"
        await pilot.press("f4", "ctrl+r")  # F4 toasts; Ctrl+R shows an inline error
        await pilot.pause()

        error = app.screen.query_one("#compose-error")
        assert error.has_class("-visible")
        toasts = list(app.screen.query("Toast"))
        assert toasts, "the example's toast is on screen"
        for toast in toasts:
            assert not toast.region.overlaps(error.region), (toast.region, error.region)


async def test_one_thing_is_said_once_and_the_log_keeps_it():
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for _ in range(3):
            app.notify("could not reach the server", title="Run failed", severity="error")
        app.notify("could not reach the server", title="Progression 2", severity="error")
        await pilot.pause()
        shown = [t for t in app._notifications if "could not reach the server" in t.message]
        assert len(shown) == 1
        assert [(m.title, m.repeats) for m in app.message_log if "reach" in m.message] == [
            ("Run failed", 2),
            ("Progression 2", 0),
        ]
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert isinstance(app.screen, MessagesScreen)
        text = "\n".join(str(w.render()) for w in app.screen.query(".message"))
        assert "Run failed  (×3)" in text and "Progression 2" in text
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, MessagesScreen)


def shown_toasts(app) -> list:
    return [t for t in app.screen.query("Toast") if t.region]


async def test_a_toast_is_one_line_over_the_header_never_over_the_tests_table_or_a_dialog_hint():
    app = build_app(config=RunConfig(model="script/tests/scripts/mbpp11.py").replace(prompts=1), stepping=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        _screen, grid = await open_tests_tab_at_first_debug(pilot)
        app.notify("test 3 kept; the run takes it when it goes on.", title="Tests")
        app.notify("a longer notice " * 12, title="Second", severity="warning")
        await wait_until(pilot, lambda: shown_toasts(app), "a toast")
        await pilot.pause()
        toasts = shown_toasts(app)
        # The newest only, one line, on the header's row: the table is not covered.
        assert len(toasts) == 1 and toasts[0].region.height == 1 and toasts[0].region.y == 0, toasts
        assert not toasts[0].region.overlaps(grid.region), (toasts[0].region, grid.region)
        text = str(toasts[0].render())
        assert text.startswith("Second: a longer notice") and text.endswith(CUT_HINT), text
        # The log keeps both whole.
        assert [m.title for m in app.message_log][-2:] == ["Tests", "Second"]
        assert app.message_log[-1].message == "a longer notice " * 12
        # A dialog's key hint is not covered either.
        await pilot.press("plus")
        await wait_until(pilot, lambda: isinstance(app.screen, SteerEditScreen), "the test editor")
        app.notify("something happened while the editor was open", title="Notice")
        await wait_until(pilot, lambda: shown_toasts(app), "a toast over the editor")
        await pilot.pause()
        hints = [w for w in app.screen.query(".dialog-hint") if w.region]
        assert hints
        for toast in shown_toasts(app):
            for hint in hints:
                assert not toast.region.overlaps(hint.region), (toast.region, hint.region)


def test_a_toast_line_says_the_title_first_and_where_the_rest_is():
    assert toast_line("Run failed", "no server", 80) == "Run failed: no server"
    assert toast_line("", "line one\nline two", 80) == "line one line two"
    cut = toast_line("T", "x" * 200, 40)
    assert len(cut) == 37 and cut.endswith(CUT_HINT) and cut.startswith("T: xxx")
    # A long title gives the message, the news, most of the line.
    cut = toast_line("Not resumed: " + "a long session title " * 4, "this run finished", 80)
    assert "this run finished" in cut and len(cut) <= 77, cut


def test_the_messages_snapshot(snap_compare):
    async def run_before(pilot):
        await pilot.pause()
        pilot.app.notify("The run was cancelled; its session is kept.", title="Cancelled")
        pilot.app.notify("could not reach http://localhost:11434/v1", title="Run failed", severity="error")
        await pilot.pause()
        pilot.app.clear_notifications()
        await pilot.press("ctrl+l")
        await pilot.pause()

    assert snap_compare(build_app(), terminal_size=SIZE, run_before=run_before)


async def test_the_model_field_completes_from_the_price_table_and_the_local_server():
    from stub_server import StubServer

    stub = StubServer().start()
    try:
        await _completes_from(stub)
    finally:
        stub.stop()


async def _completes_from(stub) -> None:  # type: ignore[no-untyped-def]
    from qflow_tui.core.config import RunConfig

    app = build_app(config=RunConfig(model="script/tests/scripts/mbpp11.py", base_url=stub.url + "/v1"))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        field = app.screen.query_one("#model")
        # A retiring model is never the one offered first.
        assert await field.suggester.get_suggestion("anthropic/claude-so") == "anthropic/claude-sonnet-4-6"
        assert await field.suggester.get_suggestion("anthropic/claude-sonnet-5") == "anthropic/claude-sonnet-5"
        assert await field.suggester.get_suggestion("openai/o") == "openai/ok"
        assert not app.screen.query_one("#model-hint").has_class("-visible")


async def test_a_server_list_cut_short_is_said_under_the_model_field():
    from stub_server import StubServer

    from qflow_tui.core.config import RunConfig
    from qflow_tui.core.llm.catalog import MAX_LISTED

    stub = StubServer().start()
    stub.more_models = MAX_LISTED + 4  # ok, m0 .. m10003
    try:
        app = build_app(config=RunConfig(model="script/tests/scripts/mbpp11.py", base_url=stub.url + "/v1"))
        async with app.run_test(size=SIZE) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            hint = app.screen.query_one("#model-hint")
            assert hint.has_class("-visible")
            assert str(hint.content).startswith(f"{stub.url}/v1 offers {MAX_LISTED + 5} models: the first {MAX_LISTED}")
            field = app.screen.query_one("#model")
            assert await field.suggester.get_suggestion("openai/m9998") == "openai/m9998"
            assert await field.suggester.get_suggestion("openai/m9999") is None
    finally:
        stub.stop()


async def test_an_unreachable_server_is_one_line_under_the_model_field():
    import socket

    from qflow_tui.core.config import RunConfig

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = build_app(config=RunConfig(model="script/tests/scripts/mbpp11.py", base_url=f"http://127.0.0.1:{port}/v1"))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        hint = app.screen.query_one("#model-hint")
        assert hint.has_class("-visible")
        assert str(hint.content).startswith("could not reach http://127.0.0.1:")
