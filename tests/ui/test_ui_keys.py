"""Every key works and none crashes the app: keys during start-up, the error
state of a field, zoom, replay arrows on every tab, q to quit, the palette."""

from __future__ import annotations

from ui_app import SIZE, build_app, replay_app
from ui_steps import finish_run, start_run, wait_for_gate, wait_until

from qflow_tui.commands.demo import demo_session
from qflow_tui.core.config import RunConfig
from qflow_tui.ui.screens.base import displayed
from qflow_tui.ui.screens.compose import ComposeScreen
from qflow_tui.ui.screens.confirm import Confirm
from qflow_tui.ui.screens.replay import ReplayScreen
from qflow_tui.ui.widgets.agent_pane import AgentPane
from qflow_tui.ui.widgets.run_view import RunView

FAST = RunConfig(model="script/tests/scripts/mbpp11.py").replace(prompts=2)


def demo_replay(**kwargs):
    return replay_app(demo_session(), **kwargs)


async def test_keys_before_the_form_is_mounted_are_ignored():
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        fresh = ComposeScreen()
        # What a key pressed while the app starts meets: a screen not yet composed.
        assert not fresh.check_action("run", ())
        assert not fresh.check_action("example", ())
        app.push_screen(fresh)
        await pilot.press("ctrl+r", "f4", "ctrl+o", "ctrl+t")
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, ComposeScreen | type(app.screen))


async def test_a_field_in_error_still_shows_its_text():
    app = build_app(config=RunConfig(model="nosuch/model"))
    app.client = None  # the compose screen builds the client from the name, and fails
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+r")
        await pilot.pause()
        model = app.screen.query_one("#model")
        assert model.has_class("-invalid")
        assert model.content_region.height >= 1 and model.content_region.width > 10
        assert "nosuch/model" in "".join(strip.text for strip in model.render_lines(model.content_region.reset_offset))


async def test_tab_focuses_a_pane_and_z_zooms_it():
    app = build_app(config=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await start_run(pilot)
        await finish_run(pilot)
        await pilot.press("2")
        await pilot.pause()
        assert isinstance(app.screen.focused, AgentPane)
        pane = app.screen.focused
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is pane
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is None
        await pilot.press("tab")
        await pilot.pause()
        assert isinstance(app.screen.focused, AgentPane) and app.screen.focused is not pane
        # The palette's zoom entry does the same.
        zoom = [c for c in app.get_system_commands(app.screen) if c.title == "Zoom"]
        assert zoom
        await zoom[0].callback()
        await pilot.pause()
        assert app.screen.maximized is not None


async def test_replay_arrows_work_on_the_tests_tab():
    app = demo_replay()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await pilot.press("home")
        await pilot.press("4")
        await pilot.pause()
        assert app.screen.focused is not None and app.screen.focused.id == "tests-grid"
        before = screen.position
        await pilot.press("right")
        await pilot.pause()
        assert screen.position > before
        after = screen.position
        await pilot.press("right", "left")
        await pilot.pause()
        assert screen.position == after


async def test_q_quits_a_replay():
    app = demo_replay()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_q_in_the_demo_opened_from_the_app_asks_before_quitting():
    """Issue 57: the demo (or a replay) opened from the app quit it at q without
    a word, the app the user came from and all; ``qflow demo`` still quits at once."""
    from qflow_tui.ui.screens.sessions import SessionsScreen

    app = build_app(config=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen), "the browser")
        await pilot.press("D")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the demo")
        replay = app.screen
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm), "the question")
        assert "Quit qflow?" in " ".join(str(w.render()) for w in app.screen.query("Label, Static"))
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is replay, "back in the demo")
        assert app.is_running
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm), "the question again")
        await pilot.press("y")
        await wait_until(pilot, lambda: not app.is_running, "the app to end")


async def test_q_quits_after_a_run_and_asks_during_one():
    app = build_app(config=FAST, stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await wait_for_gate(pilot, screen, "program_generator")
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, Confirm)
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen and screen.running
        await pilot.press("c")
        await finish_run(pilot)
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_the_palette_lists_the_apps_own_actions_and_one_theme_entry():
    app = build_app(config=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await start_run(pilot)
        await finish_run(pilot)
        await pilot.press("2")
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for internal in ("Focus Next", "Focus Previous", "Scroll Down", "Page Left", "Screenshot", "Maximize"):
            assert internal not in titles, internal
        assert sum("theme" in t.lower() for t in titles) == 1, titles
        assert len(titles) == len(set(titles))


async def test_compose_toasts_do_not_follow_onto_the_run_screen():
    app = build_app(config=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f4")
        await pilot.pause()
        assert any("MBPP" in n.message for n in app._notifications)
        await start_run(pilot)
        assert not any("MBPP" in n.message for n in app._notifications)
        await finish_run(pilot)


async def test_the_replay_timeline_at_80_columns_never_starts_or_ends_mid_step():
    from qflow_tui.ui.widgets.replay_timeline import ReplayTimeline, StepChip

    app = demo_replay()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        timeline = screen.query_one(ReplayTimeline)
        chips = list(timeline.query(StepChip))
        starts = {chip.virtual_region.x for chip in chips}
        assert chips[-1].virtual_region.right > timeline.scrollable_content_region.width  # it does scroll

        def check() -> None:
            shown = chips[screen.current_step].virtual_region
            assert timeline.scroll_x in starts, (timeline.scroll_x, sorted(starts))
            assert timeline.scroll_x <= shown.x and shown.right <= timeline.scroll_x + timeline.size.width
            # ... and ends at a step's last letter: a step the edge would cut is drawn blank.
            edge = timeline.scroll_x + timeline.scrollable_content_region.width
            for chip in chips:
                region = chip.virtual_region
                cut = region.x < edge < region.right
                assert chip.has_class("-cut") == cut, (chip.number, region, edge)

        check()  # a replay opens at the end: the last steps show
        await pilot.press("home")
        for key in ["right"] * 6 + ["left"] * 3:  # scrolling forward past the edge, then back
            await pilot.press(key)
            await pilot.pause()
            check()


async def test_a_short_terminal_says_no_agent_has_spoken_then_shows_those_that_have():
    # Paused before the first step at 80x24 the Agents tab showed six "no calls
    # yet" boxes (issue 46), where the docs say a short terminal shows only the
    # agents that have spoken: one line says none has yet.
    app = build_app(stepping=True, config=FAST)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await wait_for_gate(pilot, screen, "program_generator")
        await pilot.pause()
        shown = [p for p in screen.query(AgentPane) if p.display and p.region.height > 0]
        assert shown == [], [p.agent for p in shown]
        line = screen.query_one(".agents-none")
        assert line.region.height > 0 and "No agent has spoken yet" in str(line.render())
        await pilot.press("n")  # the generator speaks: its pane alone, the whole width
        await wait_for_gate(pilot, screen, "program_generator", progression=1)
        screen.query_one(RunView).flush()
        await pilot.pause()
        shown = [p for p in screen.query(AgentPane) if p.display and p.region.height > 0]
        assert [p.agent for p in shown] == ["program_generator"] and shown[0].region.width == SIZE[0], shown
        assert screen.query_one(".agents-none").region.height == 0
        await pilot.press("c")  # on to the end: once agents have spoken, the silent ones step aside
        await finish_run(pilot)
        silent = [p for p in screen.query(AgentPane) if p.has_class("-empty")]
        assert all(not p.display or p.region.height == 0 for p in silent)


async def test_z_at_80x24_in_step_mode_zooms_a_pane_that_shows():
    """The first thing a new user pressed: F4, Ctrl+R in step mode, z. The hidden
    timeline band held the focus, z maximized it and every row became a hatch.
    Before any agent has spoken nothing but one line shows: z says so; once the
    generator has spoken, z zooms its pane."""
    app = build_app(stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await wait_until(pilot, lambda: screen.waiting_at is not None, "the first stop")
        await wait_until(
            pilot, lambda: screen.focused is not None and displayed(screen.focused), "a shown widget focused"
        )
        await pilot.press("z")
        await wait_until(
            pilot, lambda: any("no agent has spoken" in n.message for n in app._notifications), "z to say why not"
        )
        assert screen.maximized is None
        await pilot.press("n")
        await wait_for_gate(pilot, screen, "program_generator", progression=1)
        screen.query_one(RunView).flush()
        await pilot.pause()
        await pilot.press("z")
        await wait_until(pilot, lambda: screen.maximized is not None, "z to zoom")
        zoomed = screen.maximized
        assert zoomed.display and zoomed.region.width > 40 and zoomed.region.height > 10, zoomed.region
        await pilot.press("z")
        await wait_until(pilot, lambda: screen.maximized is None, "z to restore")
        # With the tab row focused (nothing zoomable), z zooms what the shown tab holds.
        screen.query_one("#run-tabs").query_one("Tabs").focus()
        await pilot.pause()
        await pilot.press("z")
        await wait_until(pilot, lambda: screen.maximized is not None, "z from the tab row")
        assert screen.maximized.region.height > 10
        await pilot.press("z")
        await pilot.press("x", "y")  # cancel, and yes to the question
        await finish_run(pilot)


async def test_z_at_160x48_zooms_the_timeline_band_to_the_whole_screen():
    """At 160x48 the band has the focus first; zoomed at its own height (11 rows)
    it left the 35 rows below it a hatch."""
    from ui_app import WIDE

    app = build_app(stepping=True)
    async with app.run_test(size=WIDE) as pilot:
        screen = await start_run(pilot)
        await wait_until(pilot, lambda: screen.waiting_at is not None, "the first stop")
        await pilot.press("z")
        await wait_until(pilot, lambda: screen.maximized is not None, "z to zoom")
        await pilot.pause()
        assert screen.maximized.region.height >= 40, (screen.maximized, screen.maximized.region)
        await pilot.press("z")
        await pilot.press("x", "y")
        await finish_run(pilot)
