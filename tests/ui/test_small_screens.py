"""The run and replay screens at 80x24: what a small terminal must still show
whole (dialogs with their hints and borders, cells, agents, text)."""

from __future__ import annotations

from ui_app import SIZE, WIDE, build_app, replay_app
from ui_steps import shown_at, start_run, wait_for_gate, wait_until
from wf_streams import screen_text

from qflow_tui.commands.demo import demo_session
from qflow_tui.ui.screens.step_picker import StepPicker
from qflow_tui.ui.widgets.agent_pane import AgentPane, AgentPanes
from qflow_tui.ui.widgets.run_view import RunView


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


async def test_the_agents_tab_at_80x24_shows_only_agents_that_have_spoken():
    app = build_app(stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await wait_for_gate(pilot, screen, "program_generator")
        view = screen.query_one(RunView)
        view.action_show_tab("tab-agents")
        await pilot.pause()
        panes = view.query_one(AgentPanes)
        # Before anyone has spoken: one line, no empty boxes.
        text = screen_text(app)
        assert "No agent has spoken yet" in text
        assert "no calls yet" not in text
        assert not [p for p in panes.query(AgentPane) if p.display]
        # Once the generator has answered: its pane alone, and no line.
        await pilot.press("n")
        await wait_until(
            pilot, lambda: view.state.has_spoken("program_generator", 0) and shown_at(screen) is not None, "an answer"
        )
        view.flush()
        await pilot.pause()
        text = screen_text(app)
        assert "No agent has spoken yet" not in text and "no calls yet" not in text
        assert [p.agent for p in panes.query(AgentPane) if p.display] == ["program_generator"]


def test_every_word_a_timeline_cell_can_say_fits_its_cell():
    from qflow_tui.ui.widgets.timeline import _DECISION_WORDS, _STATUS_WORDS, CELL_WIDTH

    for word in [*_STATUS_WORDS.values(), *_DECISION_WORDS.values()]:
        assert len(word) <= CELL_WIDTH - 1, word


async def test_a_checking_cell_reads_whole_at_160_columns():
    app = replay_app(demo_session())
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        screen = app.screen
        # The first check's step: the other progression's check is still under way.
        screen.go_to_step(next(s.number for s in screen.steps if s.phase == "check"))
        await pilot.pause()
        for view in screen.query(RunView):
            view.flush()
        await pilot.pause()
        text = screen_text(app)
        assert "checking" in text and "checkin…" not in text
