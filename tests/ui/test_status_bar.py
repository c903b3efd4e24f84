"""The status bar's time: whole seconds while a run is live, tenths below a
minute once it has ended (a scripted run of 0.8 s read ``elapsed 0:00``), and
``recorded`` in a replay, whose time comes from the session."""

from __future__ import annotations

import itertools
import re

from ui_app import SIZE, build_app
from ui_steps import finish_run, start_run

from qflow_tui.ui.widgets.status_bar import StatusBar, fmt_elapsed


def test_fmt_elapsed():
    assert fmt_elapsed(0.84) == "0:00"
    assert fmt_elapsed(0.84, precise=True) == "0:00.8"
    assert fmt_elapsed(75.3, precise=True) == "1:15"  # a minute and more: seconds are enough
    assert fmt_elapsed(3725) == "62:05"


async def test_a_finished_run_shows_its_time_in_tenths():
    app = build_app()
    ticks = itertools.count()
    app.clock = lambda: 100 + next(ticks) * 0.01  # each look at the clock is 10 ms later
    async with app.run_test(size=SIZE) as pilot:
        await start_run(pilot)
        await finish_run(pilot)
        shown = str(app.screen.query_one(StatusBar).content)
        assert re.match(r"elapsed 0:\d\d\.\d ", shown), shown


async def test_a_bar_too_long_for_the_terminal_ends_in_an_ellipsis():
    import io

    from rich.console import Console
    from ui_app import replay_app

    from qflow_tui.commands.demo import demo_session

    app = replay_app(demo_session())
    async with app.run_test(size=(60, 24)) as pilot:
        await pilot.pause()
        await pilot.press("i")  # the end: every call and token counted
        await pilot.pause()
        bar = app.screen.query_one(StatusBar)
        console = Console(width=60, height=24, file=io.StringIO(), force_terminal=True, record=True)
        console.print(app.screen._compositor.render_update(full=True))
        line = console.export_text(styles=False).splitlines()[bar.region.y].rstrip()
        assert line.startswith(" recorded") and line.endswith("…"), line


async def test_the_call_count_reads_one_call_and_two_calls():
    from textual.app import App, ComposeResult

    from qflow_tui.ui.state import RunState

    class Bar(App[None]):
        def compose(self) -> ComposeResult:
            yield StatusBar()

    async with Bar().run_test(size=SIZE) as pilot:
        bar = pilot.app.query_one(StatusBar)
        state = RunState()
        for calls, said in ((1, " 1 call "), (2, " 2 calls ")):
            state.llm_calls = calls
            bar.update_from(state, 3.0)
            await pilot.pause()
            assert said in str(bar.content), str(bar.content)


async def test_cached_prompt_tokens_are_shown_apart_and_a_cut_call_still_counts():
    from textual.app import App, ComposeResult

    from qflow_tui.core.events import LLMCallFailed, LLMCallFinished
    from qflow_tui.ui.state import RunState

    class Bar(App[None]):
        def compose(self) -> ComposeResult:
            yield StatusBar()

    async with Bar().run_test(size=(160, 10)) as pilot:
        bar = pilot.app.query_one(StatusBar)
        state = RunState()
        state.apply(
            LLMCallFinished(
                agent="program_generator",
                call_id="c1",
                response="x",
                input_tokens=1200,
                output_tokens=9,
                latency=0.1,
                cache_read_tokens=1000,
                cache_write_tokens=150,
            )
        )
        state.apply(
            LLMCallFailed(
                agent="program_generator",
                call_id="c2",
                error="timed out",
                stop_reason="timeout",
                input_tokens=300,
                output_tokens=40,
                tokens_estimated=True,
            )
        )
        bar.update_from(state, 3.0)
        await pilot.pause()
        assert "tokens 1500 in (1000 cached, 150 to cache) / 49 out" in str(bar.content), str(bar.content)
