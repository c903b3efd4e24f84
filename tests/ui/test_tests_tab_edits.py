"""The Tests tab's edits at a stop show at once: a test kept or dropped (space) or deleted (d)
changes its row while the edit waits for the run to take it, `t` refuses a test
deleted with `d`, and `+` opens an empty editor whose example is a placeholder
(typing writes the test, it does not append to the example)."""

from __future__ import annotations

from textual.widgets import DataTable, TextArea
from ui_app import SIZE, build_app
from ui_steps import finish_run, open_tests_tab_at_first_debug, wait_until

from qflow_tui.core.config import RunConfig
from qflow_tui.ui.screens.steer_edit import SteerEditScreen
from qflow_tui.ui.widgets.run_view import RunView

ONE = RunConfig(model="script/tests/scripts/mbpp11.py").replace(prompts=1)


def row_text(grid: DataTable, row: int) -> list[str]:
    return [str(cell) for cell in grid.get_row_at(row)]


async def test_space_and_d_change_the_row_and_t_refuses_a_deleted_test() -> None:
    app = build_app(config=ONE, stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        screen, grid = await open_tests_tab_at_first_debug(pilot)
        view = screen.query_one(RunView)
        assert row_text(grid, 0)[1] == "kept" and row_text(grid, 9)[1] == "rejected"
        await pilot.press("space")  # test 1: kept, to be dropped
        await pilot.pause()
        assert row_text(grid, 0)[1] == "→ drop", row_text(grid, 0)
        grid.move_cursor(row=9)
        await pilot.pause()
        await pilot.press("space")  # test 10: rejected, to be kept
        await pilot.pause()
        assert row_text(grid, 9)[1] == "→ keep", row_text(grid, 9)
        grid.move_cursor(row=1)
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        assert row_text(grid, 1)[1] == "→ delete", row_text(grid, 1)
        detail = str(view.query_one("#tests-detail-body").render())
        assert "deleted when the run goes on" in detail, detail
        # t on the deleted test opens no editor, and says why.
        await pilot.press("t")
        await pilot.pause()
        assert not isinstance(app.screen, SteerEditScreen)
        assert any("deleted" in str(n.message) for n in app._notifications), [
            str(n.message) for n in app._notifications
        ]
        # k on it neither: a deleted test has no verdict to turn.
        await pilot.press("space")
        await pilot.pause()
        assert row_text(grid, 1)[1] == "→ delete"
        # d again undoes the delete: the row is as the TQC left it.
        await pilot.press("d")
        await pilot.pause()
        assert row_text(grid, 1)[1] == "kept"
        # Taken by the run: the rows say what a person made of each test.
        await pilot.press("n")
        await wait_until(pilot, lambda: not screen.steering.test_verdicts, "the edits to be taken")
        view.flush()
        await pilot.pause()
        assert row_text(grid, 0)[1] == "✎ rejected" and row_text(grid, 9)[1] == "✎ kept"
        await pilot.press("c")
        await finish_run(pilot)


async def test_plus_opens_an_empty_editor_with_the_example_as_placeholder() -> None:
    app = build_app(config=ONE, stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        screen, _grid = await open_tests_tab_at_first_debug(pilot)
        await pilot.press("plus")
        await wait_until(pilot, lambda: isinstance(app.screen, SteerEditScreen), "the edit dialog")
        editor = app.screen.query_one("#steer-editor", TextArea)
        assert editor.text == ""
        assert "assert remove_Occ(" in str(editor.placeholder)
        await pilot.press(*'assert remove_Occ("aa", "a") == ""')
        await pilot.pause()
        assert editor.text == 'assert remove_Occ("aa", "a") == ""'
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.screen is screen, "the run screen")
        assert screen.steering.added_tests == ['assert remove_Occ("aa", "a") == ""']
        await pilot.press("c")
        await finish_run(pilot)


async def test_the_tests_header_counts_a_kept_test_once_the_run_takes_it() -> None:
    """The issue's report: after keeping a rejected test the header still said
    "8 kept · 2 rejected" (the judge's counts), then "8/9 pass"."""
    app = build_app(config=ONE, stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        screen, grid = await open_tests_tab_at_first_debug(pilot)
        view = screen.query_one(RunView)

        def header() -> str:
            return str(view.query_one("#tests-summary").render())

        assert "8 kept · 2 rejected" in header(), header()
        grid.move_cursor(row=9)
        await pilot.pause()
        await pilot.press("space")  # test 10: rejected, kept by a person
        await pilot.press("n")
        await wait_until(pilot, lambda: not screen.steering.test_verdicts, "the edit to be taken")
        view.flush()
        await pilot.pause()
        assert row_text(grid, 9)[1] == "✎ kept"
        assert "9 kept · 1 rejected" in header(), header()
        await pilot.press("c")
        await finish_run(pilot)
