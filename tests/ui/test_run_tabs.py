"""The run screen composes the agents' and the timeline's tabs with it and
mounts the other tabs' contents one after the other once it is painted (the
screen's first stall was some 50 ms shorter). A tab wanted before its content
is mounted is mounted at once and shown painted, never as an empty frame."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, TabbedContent
from ui_app import SIZE, WIDE, build_app
from ui_steps import finish_run, start_run, wait_until

from qflow_tui.core.pieces import SynthTests
from qflow_tui.ui.widgets.run_view import RunView
from qflow_tui.ui.widgets.tests_table import TestsTable

LATER = ("tab-imagined", "tab-tests", "tab-program", "tab-tree")


def children(view: RunView, tab: str) -> int:
    return len(view.query_one(f"#{tab}").children)


async def test_the_other_tabs_are_mounted_after_the_first_paint(monkeypatch: pytest.MonkeyPatch):
    at_mount: dict[str, int] = {}
    on_mount = RunView.on_mount

    def recorded(self: RunView) -> None:
        at_mount.update({tab: children(self, tab) for tab in (*LATER, "tab-agents", "tab-timeline")})
        on_mount(self)

    monkeypatch.setattr(RunView, "on_mount", recorded)
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        view = screen.query_one(RunView)
        assert at_mount == {"tab-imagined": 0, "tab-tests": 0, "tab-program": 0, "tab-tree": 0,
                            "tab-agents": 1, "tab-timeline": 1}  # fmt: skip
        await wait_until(pilot, lambda: all(children(view, tab) == 1 for tab in LATER), "the tabs' contents")
        await finish_run(pilot)


async def test_a_tab_wanted_before_its_turn_shows_painted(monkeypatch: pytest.MonkeyPatch):
    # Nothing is mounted behind the user's back: only the key mounts the tests' tab.
    monkeypatch.setattr(RunView, "_mount_next_tab", lambda self, _mounted="": None)
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        view = await finish_run(pilot)
        # The run's end showed the program (mounted for it); the tests wait.
        assert view.query_one("#run-tabs", TabbedContent).active == "tab-program"
        assert children(view, "tab-tests") == children(view, "tab-imagined") == 0
        await pilot.press("4")
        await wait_until(pilot, lambda: view.query_one("#run-tabs", TabbedContent).active == "tab-tests", "the tab")
        # Shown only once painted: its rows are there in the frame it first shows.
        grid = view.query_one(TestsTable).query_one("#tests-grid", DataTable)
        assert grid.row_count == len(view.state.piece(SynthTests).tests) > 0
        assert screen.focused is grid
        assert children(view, "tab-imagined") == 0  # the other tabs still wait


async def test_with_the_timeline_band_every_tab_ends_above_the_status_bar():
    # At 160x48 the timeline band sits above the tabs; the tabs, as tall as
    # their contents, ran under the status bars and hid the tests' detail.
    app = build_app()
    async with app.run_test(size=WIDE) as pilot:
        await start_run(pilot)
        view = await finish_run(pilot)
        assert view.query_one("#timeline-band").display
        status = view.query_one("#run-status")
        tabs = view.query_one("#run-tabs", TabbedContent)
        for key, tab in zip(
            "12345", ("tab-timeline", "tab-agents", "tab-imagined", "tab-tests", "tab-program"), strict=True
        ):
            await pilot.press(key)
            await wait_until(pilot, lambda want=tab: tabs.active == want, tab)
            await pilot.pause()
            pane = view.query_one(f"#{tab}")
            assert 0 < pane.region.bottom <= status.region.y, (tab, pane.region, status.region)
        detail = view.query_one("#tests-detail")
        assert view.query_one(TestsTable).region.contains_region(detail.region)


async def test_the_timeline_cuts_content_with_an_ellipsis_never_blank_padding():
    # At 80 columns the last progression's column ends at the edge: a row of
    # "·" cells ended in "·      …", as if something were hidden there.
    import io
    import re

    from rich.console import Console

    from qflow_tui.ui.palette import palette
    from qflow_tui.ui.widgets.timeline import render_timeline

    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await start_run(pilot)
        view = await finish_run(pilot)

        # 80 columns less the tab's padding and a scrollbar: the width the rows
        # had in a terminal when the tab scrolled.
        def rows(width: int) -> list[str]:
            out = io.StringIO()
            Console(file=out, width=width, color_system=None).print(render_timeline(view.state, 0, palette(app)))
            return out.getvalue().splitlines()

        assert view.state.progressions == 6
        shown = rows(76)
        assert shown[1].endswith("continue continue")  # the last cell whole: its padding was what did not fit
        assert not [row for row in shown if re.search(r" …$", row)], shown  # padding cut: no ellipsis
        assert rows(75)[1].endswith("contin…")  # content cut: an ellipsis
