"""/ in an agent pane (issue 57): the words typed are found in that agent's
output, the view scrolls to the line (highlighted) and stops following the
stream; Enter on the same words finds the next line; a miss is one line."""

from __future__ import annotations

from test_agent_pane import WHERE, PaneApp, feed, started
from textual.widgets import Input
from ui_app import SIZE, build_app
from ui_steps import finish_run, start_run, wait_until

from qflow_tui.core import events as ev
from qflow_tui.ui.screens.pane_search import PaneSearch
from qflow_tui.ui.widgets.agent_pane import AgentPane


async def test_find_scrolls_to_each_line_holding_the_words_in_turn() -> None:
    app = PaneApp()
    async with app.run_test(size=(60, 12)) as pilot:
        pane = app.query_one(AgentPane)
        state, seq = started()
        for n in range(40):
            feed(state, seq, ev.TextDelta(**WHERE, text=f"line {n}{' needle' if n in (5, 30) else ''}\n"))
        pane.update_from(state, 0)
        await pilot.pause()
        assert pane.scroll_y == pane.max_scroll_y  # following the tail
        assert pane.find("NEEDLE")
        found = pane.found_line
        assert found is not None and "line 5 needle" in pane.render_line(found - int(pane.scroll_y)).text
        assert pane.find("needle") and "line 30 needle" in pane.render_line(pane.found_line - int(pane.scroll_y)).text
        assert pane.find("needle") and pane.found_line == found  # round again
        feed(state, seq, ev.TextDelta(**WHERE, text="more\n"))
        pane.update_from(state, 0)
        await pilot.pause()
        assert pane.scroll_y < pane.max_scroll_y, "a search stops the pane following the stream"
        assert not pane.find("no such words")


async def test_slash_in_a_pane_on_the_run_screen_finds_the_words() -> None:
    app = build_app()
    said: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await finish_run(pilot)
        await pilot.press("2")
        pane = screen.query_one("#pane-program_generator", AgentPane)
        pane.focus()
        await pilot.pause()
        await pilot.press("slash")
        await wait_until(pilot, lambda: isinstance(app.screen, PaneSearch), "the search prompt")
        await pilot.press(*"def remove", "enter")
        await wait_until(pilot, lambda: app.screen is screen, "back to the run")
        assert pane.found_line is not None and pane.has_focus
        app.notify = lambda message, **kw: said.append(str(message))  # type: ignore[method-assign]
        await pilot.press("slash")
        await wait_until(pilot, lambda: isinstance(app.screen, PaneSearch), "the search prompt")
        assert app.screen.query_one(Input).value == "def remove"  # the last words, ready for the next match
        app.screen.query_one(Input).value = "zebra crossing"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is screen, "back to the run")
    assert said == ["Not found in program_generator's output: zebra crossing"]
