"""An unchecked box reads unchecked in plain text: the compose form's options,
captured without colour, show ``▐X▌`` only where an option is on."""

from __future__ import annotations

from ui_app import WIDE, build_app
from ui_steps import wait_until
from wf_streams import screen_text

from qflow_tui.ui.screens.compose import ComposeScreen
from qflow_tui.ui.widgets.tick_box import TickBox


async def test_an_unchecked_box_reads_unchecked_in_plain_text():
    app = build_app(example=False)
    async with app.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen), "the form")
        boxes = list(app.screen.query(TickBox))
        assert boxes
        step = app.screen.query_one("#stepping", TickBox)
        for value in (False, True, False):
            step.value = value
            await pilot.pause()
            line = next(line for line in screen_text(app).splitlines() if "Step mode" in line)
            assert ("▐X▌ Step mode" in line) is value, line
            assert ("▐ ▌ Step mode" in line) is not value, line
        # Every option on the form draws its state: as many ticks as boxes on.
        text = screen_text(app)
        shown = [b for b in boxes if b.region.height and b.region.y < app.size[1]]
        assert text.count("▐X▌") == sum(b.value for b in shown)
