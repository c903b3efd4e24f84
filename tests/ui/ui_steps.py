"""Pilot steps the UI tests share: start a run, wait for the gate or the end."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import DataTable

from qflow_tui.ui.screens.run_screen import RunScreen
from qflow_tui.ui.widgets.run_view import RunView


async def start_run(pilot: Pilot) -> RunScreen:
    await pilot.pause()
    await pilot.press("ctrl+r")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, RunScreen), f"the run did not start: {screen!r}"
    return screen


async def finish_run(pilot: Pilot) -> RunView:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    view = pilot.app.screen.query_one(RunView)
    view.flush()
    await pilot.pause()
    return view


async def wait_until(pilot: Pilot, condition, what: str, limit: int = 2000) -> None:
    """Let the app process messages until ``condition()`` holds (no sleeping)."""
    for _ in range(limit):
        if condition():
            return
        await pilot.pause()
    raise AssertionError(f"timed out waiting for {what}")


def shown_at(screen: RunScreen) -> str | None:
    """Where the screen shows the run held: the step, or ``check:STEP`` for the
    check of a step's program (the workflow's checker about to work)."""
    stop = screen.shown_stop
    if stop is None:
        return None
    return f"check:{stop.step}" if stop.check else stop.step


async def wait_for_gate(pilot: Pilot, screen: RunScreen, step: str, progression: int | None = None) -> None:
    """Wait until the run stops at the gate before ``step`` (``check:STEP`` for
    the check of its program; of ``progression``, when given)."""

    def there() -> bool:
        return shown_at(screen) == step and (progression is None or screen.gate.waiting_progression == progression)

    await wait_until(
        pilot, there, f"the gate before {step}" + (f" of progression {progression}" if progression else "")
    )
    await pilot.pause()


async def step_to(pilot: Pilot, screen: RunScreen, step: str, progression: int | None = None, limit: int = 40) -> int:
    """Press ``n`` until the gate stops before ``step`` (of ``progression``); the presses it took."""
    for presses in range(limit):
        await wait_until(pilot, lambda: screen.waiting_at is not None, "the gate")
        if shown_at(screen) == step and (progression is None or screen.gate.waiting_progression == progression):
            await pilot.pause()
            return presses
        await pilot.press("n")
    raise AssertionError(f"{limit} steps did not reach {step}")


async def steady(pilot: Pilot) -> None:
    """Stop the cursors blinking: a snapshot must not depend on when it is taken."""
    from textual.widgets import Input, TextArea

    for widget in pilot.app.screen.query("TextArea, Input"):
        if isinstance(widget, TextArea | Input):
            widget.cursor_blink = False
            widget.refresh()
    await pilot.pause()
    await pilot.pause()


async def at_rest(pilot: Pilot) -> None:
    """The first screen with no text cursor at all: where a blinking cursor is
    drawn at the moment of a snapshot depends on the machine's load."""
    # The first screen may still be mounting (a busy machine): wait for its fields.
    await wait_until(pilot, lambda: bool(pilot.app.screen.query("TextArea, Input")), "the screen's fields")
    await steady(pilot)
    pilot.app.set_focus(None)
    await pilot.pause()


async def settle(pilot: Pilot) -> None:
    """Paint everything pending and drop the toasts (they name session files)."""
    await steady(pilot)
    for view in pilot.app.screen.query(RunView):
        view.flush()
    pilot.app.clear_notifications()
    await pilot.pause()


def burst(pilot: Pilot, *keys: str) -> None:
    """Send ``keys`` as a terminal delivers a fast typist's or a macro's keys:
    all at once, with no pause for the app to handle one before the next
    (``pilot.press`` waits for the app to be idle after each key)."""
    import unicodedata

    from textual import events
    from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key

    app = pilot.app
    driver = app._driver
    assert driver is not None
    for key in keys:
        if len(key) == 1 and not key.isalnum():
            key = _character_to_key(key)
        original = REPLACED_KEYS.get(key, key)
        try:
            char: str | None = unicodedata.lookup(_get_unicode_name_from_key(original))
        except KeyError:
            char = key if len(key) == 1 else None
        event = events.Key(key, char)
        event.set_sender(app)
        driver.send_message(event)


async def open_tests_tab_at_first_debug(pilot: Pilot) -> tuple[RunScreen, DataTable]:
    """Start a stepped run, step to progression 0's first self-debug and show the
    Tests tab: the designed tests with their TQC verdicts, before any edit."""
    screen = await start_run(pilot)
    await step_to(pilot, screen, "self_debug:1", 0)
    await pilot.press("4")
    await pilot.pause()
    return screen, screen.query_one(RunView).query_one("#tests-grid", DataTable)


async def run_the_example_streaming(pilot: Pilot, client) -> None:
    """F4, Ctrl+R, and wait until the run screen shows two progressions streaming
    (``client`` a FreezingClient that holds them there)."""
    app = pilot.app
    await pilot.pause()
    await pilot.press("f4")
    await pilot.pause()
    await pilot.press("ctrl+r")
    await wait_until(pilot, lambda: isinstance(app.screen, RunScreen), "the run screen")
    await wait_until(pilot, lambda: client.blocked >= 2, "the progressions to stream")
