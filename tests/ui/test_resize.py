"""A resize keeps the focus and the footer's keys: a pane a smaller screen hides
(the timeline band at 160x48) gives the focus to what is shown instead, so the
keys of the view around it keep working without a Tab."""

from __future__ import annotations

import re

from textual.widgets import TextArea
from ui_app import WIDE, build_app, replay_app
from ui_fakes import FreezingClient, load_responder
from ui_steps import run_the_example_streaming, wait_until
from wf_streams import screen_text

from qflow_tui.commands.demo import demo_session
from qflow_tui.ui.screens.compose import ComposeScreen
from qflow_tui.ui.widgets.footer import AppFooter
from qflow_tui.ui.widgets.run_view import RunView
from qflow_tui.ui.widgets.timeline import Timeline


def footer_keys(app) -> list[str]:
    return [str(key.description) for key in app.screen.query_one(AppFooter).shown_keys()]


async def test_a_resize_mid_run_keeps_the_progression_and_zoom_keys():
    client = FreezingClient(load_responder(), "program_generator")
    app = build_app(client, example=False)
    async with app.run_test(size=WIDE) as pilot:
        await run_the_example_streaming(pilot, client)
        screen = app.screen
        view = screen.query_one(RunView)
        await wait_until(pilot, lambda: "Progression" in footer_keys(app), "the progression key")
        # What 160x48 focuses first: the timeline band, which 80x24 hides.
        assert isinstance(screen.focused, Timeline) and screen.focused.id == "timeline-band"
        band = screen.focused
        await pilot.resize_terminal(80, 24)
        # The resize has taken effect once the band is hidden and the focus has moved on
        # (before that, a key still goes to the band the old layout showed).
        await wait_until(
            pilot,
            lambda: not band.display and screen.focused is not None and screen.focused is not band,
            "the focus to move off the hidden band",
        )
        assert screen.focused.display and view in screen.focused.ancestors
        await wait_until(pilot, lambda: "Zoom" in footer_keys(app), "the zoom key in the footer")
        keys = footer_keys(app)
        assert "Progression" in keys or "…" in keys, keys
        # Each key is waited for, not given one pause: on a loaded machine a key
        # may wait for the one before it (keys act in the order typed).
        await pilot.press("right_square_bracket")
        await wait_until(pilot, lambda: view.progression == 1, "] to show progression 1")
        await pilot.press("z")
        await wait_until(pilot, lambda: screen.maximized is not None, "z to zoom")
        await pilot.press("z")
        await wait_until(pilot, lambda: screen.maximized is None, "z to unzoom")
        # And back: the wider screen's keys work as well.
        await pilot.resize_terminal(*WIDE)
        await pilot.pause()
        await pilot.press("left_square_bracket")
        await wait_until(pilot, lambda: view.progression == 0, "[ to show progression 0")
        client.release.set()
        await app.workers.wait_for_complete()


async def test_a_resize_of_a_replay_keeps_its_keys():
    app = replay_app(demo_session())
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        screen = app.screen
        band = screen.query_one("#timeline-band", Timeline)
        band.focus()
        await pilot.pause()
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: not band.display, "the band to hide")
        await wait_until(pilot, lambda: screen.focused is not None, "the focus to come back")
        assert screen.focused.display and screen.focused is not band
        await pilot.press("z")
        await wait_until(pilot, lambda: screen.maximized is not None, "z to zoom")


#: A letter drawn against a scrollbar's thumb: a word cut by the pane's edge
#: ("characte▆", issue 46), where text should wrap at words inside the border.
_CUT_AT_EDGE = re.compile(r"[A-Za-z][▁▂▃▄▅▆▇█]")


async def test_a_resize_mid_run_to_80x24_wraps_text_at_words_inside_the_borders():
    """After 160x48 -> 80x24 mid-run, no tab of the run and no field of the
    form behind it shows a word cut by a pane's edge or running into its border."""
    client = FreezingClient(load_responder(), "program_generator")
    app = build_app(client, example=False)
    async with app.run_test(size=WIDE) as pilot:
        await run_the_example_streaming(pilot, client)
        screen = app.screen
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: app.size == (80, 24) and screen.size.width == 80, "the resize")
        for tab in "12345":
            await pilot.press(tab)
            await pilot.pause()
            lines = screen_text(app).splitlines()
            cut = [line for line in lines if _CUT_AT_EDGE.search(line) or len(line.rstrip()) > 80]
            assert not cut, (tab, cut)
            # Inside a box, text stops before the right border: "word│" is text run into it.
            assert not [line for line in lines if re.search(r"\w│\s*$", line)], tab
        client.release.set()
        await app.workers.wait_for_complete()
        compose = app.screen_stack[-2] if len(app.screen_stack) > 1 else app.screen
        assert isinstance(compose, ComposeScreen)
        statement = compose.query_one("#statement", TextArea)
        # The form behind the run was laid out at 160 columns: at 80 it wraps again.
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is compose, "the form")
        await pilot.pause()
        assert statement.soft_wrap and statement.wrap_width <= statement.size.width, statement.wrap_width
        lines = screen_text(app).splitlines()
        assert not [line for line in lines if _CUT_AT_EDGE.search(line)], lines
