"""``/`` searches wherever there is a list, as on the bench table (the shared
search line: rows that hold every word, Enter back to them, Escape clears
first), and Enter on a compare table opens the row's session, as on the bench
table: the compare tables, the replay's step picker and the keys list."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, OptionList, Static
from ui_app import SIZE, replay_app
from ui_steps import wait_until

from qflow_tui.commands.demo import demo_session
from qflow_tui.core.config import RunConfig
from qflow_tui.locations import sessions_dir
from qflow_tui.ui.app import create_app
from qflow_tui.ui.screens.compare_screen import CompareScreen
from qflow_tui.ui.screens.keys import KeyLine, KeysScreen
from qflow_tui.ui.screens.replay import ReplayScreen
from qflow_tui.ui.screens.step_picker import StepPicker
from qflow_tui.ui.widgets.search_line import SearchLine
from tests.steer.family import Family, make_family


@pytest.fixture
def family() -> Family:
    return make_family(sessions_dir())


def compare_app(family: Family):
    return create_app(
        RunConfig(model="script/tests/scripts/mbpp11.py"),
        remember_theme=False,
        compare_paths=(family.parent, family.fork),
    )


def column(table: DataTable, n: int) -> list[str]:
    return [str(table.get_row_at(row)[n]) for row in range(table.row_count)]


async def test_slash_filters_the_compare_tables_and_escape_clears_it_first(family: Family) -> None:
    async with compare_app(family).run_test(size=SIZE) as pilot:
        screen = pilot.app.screen
        assert isinstance(screen, CompareScreen) and screen.result is not None
        steps = screen.query_one("#cmp-steps-table", DataTable)
        everything = steps.row_count
        await pilot.press("slash", *"steered")
        await pilot.pause()
        found = column(steps, 2)
        assert 0 < steps.row_count < everything and all("steered" in row for row in found), found
        await pilot.press("enter")  # back to the rows found, not a replay
        await pilot.pause()
        assert steps.has_focus and pilot.app.screen is screen
        # The search holds on every tab: the agents table keeps none of "steered".
        await pilot.press("4")
        agents = screen.query_one("#cmp-agents-table", DataTable)
        assert agents.row_count == 1 and "No row matches 'steered'" in column(agents, 0)[0]
        await pilot.press("1")
        await pilot.press("escape")  # clears the search, stays
        await pilot.pause()
        assert pilot.app.screen is screen and steps.row_count == everything
        assert not screen.query_one(SearchLine).shown
        # Letters typed into the search are words, not the screen's keys (q quits, s swaps).
        await pilot.press("slash", *"qsd")
        await pilot.pause()
        assert pilot.app.screen is screen and screen.query_one(SearchLine).value == "qsd"
        assert "No row matches" in column(steps, 1)[0]
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert not isinstance(pilot.app.screen, CompareScreen)


async def test_enter_on_a_compare_row_opens_its_session_at_that_step(family: Family) -> None:
    async with compare_app(family).run_test(size=SIZE) as pilot:
        screen = pilot.app.screen
        assert isinstance(screen, CompareScreen) and screen.result is not None
        steps = screen.query_one("#cmp-steps-table", DataTable)
        split = screen.result["same_until"]
        assert steps.cursor_row == split  # where the runs part
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ReplayScreen), "the replay")
        replay = pilot.app.screen
        assert isinstance(replay, ReplayScreen) and replay.path == family.parent
        # Opened at the row's step: the step that holds the event the row comes from.
        at = screen.positions[0][split]
        step = replay.steps[replay.current_step]
        assert step.start <= at < step.end and replay.position > at
        await pilot.press("escape")
        await pilot.pause()
        assert pilot.app.screen is screen
        # b opens B at the same row, where B steered the verdict.
        await pilot.press("b")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ReplayScreen), "B's replay")
        fork = pilot.app.screen
        step = fork.steps[fork.current_step]
        assert fork.path == family.fork and step.start <= screen.positions[1][split] < step.end
        await pilot.press("escape")
        await pilot.pause()
        # The first row opens near the start, not at the end.
        await pilot.press("g", "enter")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ReplayScreen), "the first row's replay")
        first = pilot.app.screen
        step = first.steps[first.current_step]
        assert step.start <= screen.positions[0][0] < step.end and first.position < len(first.events) // 2
        await pilot.press("escape")
        await pilot.pause()
        # An agent's row opens the session that has it: the clarifier only B asked.
        await pilot.press("4")
        agents = screen.query_one("#cmp-agents-table", DataTable)
        agents.move_cursor(row=column(agents, 0).index("CL"))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ReplayScreen), "the clarifier's session")
        assert pilot.app.screen.path == family.fork


async def test_slash_filters_the_step_picker_and_escape_clears_it_first() -> None:
    app = replay_app(demo_session())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        replay = app.screen
        await pilot.press("colon")
        await wait_until(pilot, lambda: isinstance(app.screen, StepPicker), "the step picker")
        picker = app.screen
        options = picker.query_one(OptionList)
        everything = options.option_count
        await pilot.press("slash", *"self debug")
        await pilot.pause()
        found = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert 0 < len(found) < everything and all("self_debug" in f for f in found), found
        await pilot.press("enter")  # to the steps found
        await pilot.pause()
        assert options.has_focus and app.screen is picker
        await pilot.press("escape")  # clears the search, stays
        await pilot.pause()
        assert app.screen is picker and options.option_count == everything
        await pilot.press("slash", *"self debug", "enter", "g", "enter")  # jump to the first step found
        await wait_until(pilot, lambda: app.screen is replay, "the replay")
        chosen = next(s for s in replay.steps if "self_debug" in s.title)
        assert replay.current_step == chosen.number


async def test_slash_filters_the_keys_list_and_escape_clears_it_first() -> None:
    app = replay_app(demo_session())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen), "the keys screen")
        keys = app.screen
        lines = list(keys.query(KeyLine))
        await pilot.press("slash", *"fork")
        await pilot.pause()
        shown = [line.said for line in lines if line.display]
        assert shown and len(shown) < len(lines) and all("fork" in s.lower() for s in shown), shown
        await pilot.press("slash", *" quit")  # "/" and "q" typed are words, not keys
        await pilot.pause()
        assert app.screen is keys and not [line for line in lines if line.display]
        assert keys.query_one("#keys-none", Static).display
        await pilot.press("escape")  # clears the search, stays
        await pilot.pause()
        assert app.screen is keys and all(line.display for line in lines)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, KeysScreen)
