"""Ctrl+T on the compose form (issue 57): at 80x24 the QualityFlow settings push
the Step mode box below the fold, and the key showed only a notice; the box
now scrolls into view, so the user sees it ticked."""

from __future__ import annotations

from textual.widgets import Checkbox
from ui_app import SIZE, build_app
from ui_steps import wait_until


async def test_ctrl_t_shows_the_step_mode_box_it_ticks_at_80x24() -> None:
    app = build_app()  # QualityFlow: the longest settings column
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        box = app.screen.query_one("#stepping", Checkbox)
        column = box.parent
        assert column is not None

        def in_view() -> bool:
            seen = column.scrollable_content_region  # type: ignore[attr-defined]
            return box.region.height > 0 and seen.y <= box.region.y and box.region.bottom <= seen.bottom

        assert not in_view(), "the layout changed: the box is in view without the key"
        await pilot.press("ctrl+t")
        await wait_until(pilot, in_view, "the Step mode box to scroll into view")
        assert box.value
