"""The run and replay screens at 80x24: what a small terminal must still show
whole (dialogs with their hints and borders, cells, agents, text)."""

from __future__ import annotations

from ui_app import SIZE, replay_app
from ui_steps import wait_until
from wf_streams import screen_text

from qflow_tui.commands.demo import demo_session
from qflow_tui.ui.screens.step_picker import StepPicker


async def test_the_step_picker_fits_at_80x24_with_its_hint_and_border():
    app = replay_app(demo_session())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("colon")
        await wait_until(pilot, lambda: isinstance(app.screen, StepPicker), "the step picker")
        picker = app.screen
        for search in (False, True):
            if search:
                await pilot.press("slash")
            await pilot.pause()
            box = picker.query_one(".dialog")
            assert box.region.bottom <= SIZE[1] - 1, (search, box.region)
            text = screen_text(app)
            assert "Enter to jump, / to search, Escape to stay" in text
            # The dialog's bottom border is drawn (a thick border's lower half-blocks).
            assert "▄▄▄▄▄▄▄▄▄▄" in text.splitlines()[box.region.bottom - 1]
