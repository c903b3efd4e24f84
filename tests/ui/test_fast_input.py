"""Keys sent faster than the app handles them (a macro, a fast typist, a loaded
machine) act in the order they were typed: each key, a priority one (Ctrl+R)
included, sees the state the keys before it left."""

from __future__ import annotations

from textual.widgets import Input, TextArea
from ui_app import SIZE, build_app
from ui_steps import burst, wait_until

from qflow_tui.ui.screens.compose import ComposeScreen
from qflow_tui.ui.screens.run_screen import RunScreen


def tabs_ready(app) -> bool:
    from textual.widgets import TabbedContent

    found = app.screen.query("#run-tabs")
    if not found:
        return False
    tabs = found.first(TabbedContent)
    return tabs.is_mounted and bool(tabs.active)


async def test_f4_then_ctrl_r_in_one_burst_runs_the_example():
    app = build_app(example=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen) and app.screen.ready, "the form")
        burst(pilot, "f4", "ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, RunScreen), "the run to start")
        assert app.screen.problem.entry_point == "remove_Occ"
        await app.workers.wait_for_complete()
        # Leave only once the run screen's tabs are up: on a loaded machine an app
        # closed mid-mount lets Textual's tabs look for children already pruned.
        await wait_until(pilot, lambda: tabs_ready(app), "the run screen's tabs")


async def test_ctrl_r_after_typed_keys_reads_what_they_typed():
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen) and app.screen.ready, "the form")
        tests = app.screen.query_one("#tests", TextArea)
        tests.load_text(tests.text + "oops")
        tests.focus()
        await pilot.pause()
        tests.move_cursor(tests.document.end)
        await pilot.pause()
        burst(pilot, "backspace", "backspace", "backspace", "backspace", "ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, RunScreen), "the run to start")
        assert "oops" not in "\n".join(app.screen.problem.test_sources)
        await app.workers.wait_for_complete()


async def test_keys_after_a_tab_go_where_the_tab_moved_the_focus():
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen) and app.screen.ready, "the form")
        load, model = app.screen.query_one("#load", Input), app.screen.query_one("#model", Input)
        load.focus()
        await pilot.pause()
        burst(pilot, "tab", "x")
        await wait_until(pilot, lambda: "x" in model.value + load.value, "the x to be typed")
        assert app.screen.focused is model
        assert load.value == "" and model.value.endswith("x"), (load.value, model.value)


async def test_a_key_still_waiting_when_the_app_closes_is_dropped_quietly():
    """A key's wait timer may fire after the app's screens are gone (a loaded
    machine, a quick exit): the key goes with the app, it does not crash it."""
    from textual import events

    app = build_app(example=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen) and app.screen.ready, "the form")
    assert not app.screen_stack
    app._keys_waiting.append(events.Key("x", "x"))
    await app._next_key()
    assert not app._keys_waiting
