"""The tests table fits its width: the test column takes what the other
columns leave, a long test ends in an ellipsis (the detail below shows it
whole) and the table never scrolls sideways; a resize fits it again and keeps
the selected test."""

from __future__ import annotations

import io

from rich.console import Console
from textual.widgets import DataTable
from ui_app import replay_app

from qflow_tui.commands.demo import demo_session


def lines(app) -> list[str]:
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, record=True)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text(styles=False).splitlines()


async def test_the_tests_table_fits_its_width_and_keeps_the_selected_test_on_resize():
    app = replay_app(demo_session())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("i", "4")  # the end, the Tests tab
        await pilot.pause()
        await pilot.press("down", "down")
        await pilot.pause()
        table = app.screen.query_one("#tests-grid", DataTable)
        assert table.virtual_size.width <= table.scrollable_content_region.width  # no sideways scroll
        rows = [line for line in lines(app) if "assert remove_Occ(" in line and line.lstrip()[:1].isdigit()]
        assert rows and any(row.rstrip().endswith("…") for row in rows), rows
        assert table.cursor_row == 2
        await pilot.resize_terminal(160, 40)
        await pilot.pause()
        await pilot.pause()
        wide = [line for line in lines(app) if "assert remove_Occ(" in line and line.lstrip()[:1].isdigit()]
        assert wide and not any("…" in row for row in wide), wide
        assert table.cursor_row == 2


async def test_tests_arriving_after_the_table_is_fitted_never_make_it_scroll_sideways():
    # Opened before any test exists, the table was fitted to its whole width;
    # the rows then brought a vertical scrollbar, which narrowed it and did not
    # resize it, and the table scrolled sideways.
    from ui_app import SIZE, build_app
    from ui_steps import start_run, step_to, wait_for_gate

    from qflow_tui.ui.widgets.run_view import RunView

    app = build_app(stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await wait_for_gate(pilot, screen, "program_generator")
        await pilot.press("4")  # the Tests tab, empty yet
        await pilot.pause()
        await pilot.pause()
        await step_to(pilot, screen, "self_debug:1")  # the tests are designed and checked
        screen.query_one(RunView).flush()
        await pilot.pause()
        table = app.screen.query_one("#tests-grid", DataTable)
        assert table.scrollable_content_region.width < table.size.width  # the vertical scrollbar is there
        assert table.virtual_size.width <= table.scrollable_content_region.width
