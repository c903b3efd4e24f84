"""j/k and g/G move through every table and list as in lazygit and k9s: the
sessions browser, the bench table, the run's tests table and timeline, the
replay's step picker, the compare tables, the keys and messages lists. The keys
they took before moved: the browser's JSONL export is J, the Tests tab's
keep/drop is space, the run's give-up-retry is Ctrl+G, the replay's go-to is :."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import DataTable, OptionList
from ui_app import SIZE, build_app, replay_app
from ui_steps import open_tests_tab_at_first_debug, wait_until

from qflow_tui.commands.demo import demo_session
from qflow_tui.core.config import RunConfig
from qflow_tui.core.pieces import SynthTests
from qflow_tui.locations import sessions_dir
from qflow_tui.ui.app import create_app
from qflow_tui.ui.screens.bench import BenchScreen
from qflow_tui.ui.screens.keys import KeysScreen
from qflow_tui.ui.screens.sessions import SessionsScreen
from qflow_tui.ui.screens.step_picker import StepPicker
from qflow_tui.ui.widgets.lists import ListScroll
from qflow_tui.ui.widgets.run_view import RunView
from qflow_tui.ui.widgets.timeline import Timeline

ROOT = Path(__file__).resolve().parents[2]
FINISHED = ROOT / "tests" / "bench" / "data" / "finished-late-fix"
ONE = RunConfig(model="script/tests/scripts/mbpp11.py").replace(prompts=1)


async def walk_rows(pilot, table: DataTable) -> None:
    """j, k, G and g move the cursor of ``table`` (focused, at its first row, 3+ rows)."""
    assert table.has_focus and table.cursor_row == 0 and table.row_count >= 3
    await pilot.press("j", "j")
    assert table.cursor_row == 2
    await pilot.press("k")
    assert table.cursor_row == 1
    await pilot.press("G")
    assert table.cursor_row == table.row_count - 1
    await pilot.press("g")
    assert table.cursor_row == 0


async def test_the_sessions_browser_moves_on_j_k_g_g_and_exports_jsonl_on_shift_j(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sessions_dir().mkdir(parents=True, exist_ok=True)
    for name in ("a", "b", "c"):
        shutil.copy(demo_session(), sessions_dir() / f"{name}.jsonl")
    app = create_app(RunConfig(model="script/tests/scripts/mbpp11.py"), remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.loaded, "browser")
        table = app.screen.query_one("#sessions-table", DataTable)
        await walk_rows(pilot, table)
        await pilot.press("J")
        await pilot.pause()
        assert type(app.screen).__name__ == "PathPrompt"


def _finished_bench_app(tmp_path: Path):
    """The app on a copy of a finished bench folder (the bench screen opens on it)."""
    folder = tmp_path / "bench"
    shutil.copytree(FINISHED, folder)
    return create_app(RunConfig(), bench_folder=folder, clock=lambda: 0.0, remember_theme=False)


async def test_the_bench_table_moves_on_j_k_g_g(tmp_path):
    app = _finished_bench_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        await pilot.pause()
        await walk_rows(pilot, app.screen.query_one("#bench-table", DataTable))


async def test_the_tests_table_moves_on_j_k_and_space_keeps_or_drops() -> None:
    app = build_app(config=ONE, stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        screen, grid = await open_tests_tab_at_first_debug(pilot)
        await walk_rows(pilot, grid)
        await pilot.press("space")
        assert screen.steering.test_verdicts == {screen.query_one(RunView).state.piece(SynthTests).tests[0].test: False}
        # The timeline's step cursor too.
        await pilot.press("1")
        await pilot.pause()
        timeline = screen.focused
        assert isinstance(timeline, Timeline) and timeline.cursor == 0
        await pilot.press("j", "j")
        assert timeline.cursor == 2
        await pilot.press("k")
        assert timeline.cursor == 1
        await pilot.press("G")
        assert timeline.cursor == len(screen.query_one(RunView).state.planned_stages()) - 1
        await pilot.press("g")
        assert timeline.cursor == 0
        screen.gate.breakpoints.clear()
        await pilot.press("c")
        await app.workers.wait_for_complete()


async def test_the_replay_goes_to_a_step_on_colon_and_its_list_moves_on_j_k_g_g() -> None:
    app = replay_app(demo_session())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("colon")
        await wait_until(pilot, lambda: isinstance(app.screen, StepPicker), "the step picker")
        options = app.screen.query_one(OptionList)
        options.highlighted = 0
        await pilot.press("j", "j", "k")
        assert options.highlighted == 1
        await pilot.press("G")
        assert options.highlighted == options.option_count - 1
        await pilot.press("g")
        assert options.highlighted == 0
        await pilot.press("escape")
        await pilot.pause()
        # g on the replay's tests table is the first row, no longer "go to".
        await pilot.press("4")
        await pilot.pause()
        grid = app.screen.query_one("#tests-grid", DataTable)
        await pilot.press("G")
        assert grid.cursor_row == grid.row_count - 1 > 0
        await pilot.press("g")
        assert grid.cursor_row == 0 and not isinstance(app.screen, StepPicker)


async def test_the_keys_list_scrolls_on_j_k_g_g() -> None:
    app = replay_app(demo_session())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen), "the keys screen")
        await pilot.pause()
        scroll = app.screen.query_one(ListScroll)
        assert scroll.has_focus and scroll.max_scroll_y > 2
        await pilot.press("j", "j")
        assert scroll.scroll_y == 2
        await pilot.press("k")
        assert scroll.scroll_y == 1
        await pilot.press("G")
        assert scroll.scroll_y == scroll.max_scroll_y
        await pilot.press("g")
        assert scroll.scroll_y == 0


async def test_slash_filters_the_bench_table_and_escape_clears_it(tmp_path):
    app = _finished_bench_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        await pilot.pause()
        screen = app.screen
        table = screen.query_one("#bench-table", DataTable)
        everything = table.row_count
        await pilot.press("slash", *"passed /1")
        await pilot.pause()
        found = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert everything == 4 and found == ["humaneval/1"], found
        await pilot.press("enter")  # back to the rows found, not a replay
        await pilot.pause()
        assert table.has_focus and isinstance(app.screen, BenchScreen)
        await pilot.press("escape")  # clears the search first
        await pilot.pause()
        assert app.screen is screen and table.row_count == everything
        await pilot.press("slash", *"nothing-like-this")
        await pilot.pause()
        assert table.row_count == 0 and "No problem matches" in str(screen.query_one("#bench-detail").render())
