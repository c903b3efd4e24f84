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
        assert "tokens 1.5k in (1.0k cached, 150 to cache) / 49 out" in str(bar.content), str(bar.content)


async def test_tokens_in_and_out_read_in_one_format():
    """Issue 57: "10.4k in / 4158 out" mixed two formats on one line."""
    from qflow_tui.ui.state import RunState

    async with _bar_app().run_test(size=(160, 10)) as pilot:
        bar = pilot.app.query_one(StatusBar)
        state = RunState()
        state.apply(_started("script/tests/scripts/mbpp11.py"))
        state.apply(_finished("c1", 10_400, 4158))
        bar.update_from(state, 1.0)
        await pilot.pause()
        assert "tokens 10.4k in / 4.2k out" in str(bar.content), str(bar.content)


def test_one_token_format_for_every_size():
    from qflow_tui.core.session.display import human_tokens

    shown = [
        human_tokens(n) for n in (0, 999, 1000, 4158, 10_400, 99_949, 99_950, 123_456, 999_499, 999_500, 1_254_000)
    ]
    assert shown == ["0", "999", "1.0k", "4.2k", "10.4k", "99.9k", "100k", "123k", "999k", "1.00M", "1.25M"]


def _bar_app():
    from textual.app import App, ComposeResult

    class Bar(App[None]):
        def compose(self) -> ComposeResult:
            yield StatusBar()

    return Bar()


def _started(model: str, base_url: str | None = None):
    from qflow_tui.core.events import RunStarted

    return RunStarted(workflow="qualityflow", model=model, config={"base_url": base_url}, problem={})


def _finished(call_id: str, inp: int, out: int, **kw):
    from qflow_tui.core.events import LLMCallFinished

    return LLMCallFinished(
        agent="program_generator", call_id=call_id, response="x", input_tokens=inp, output_tokens=out, latency=0.1, **kw
    )


async def test_the_cost_so_far_is_priced_per_token_kind_and_marked_where_estimated():
    from qflow_tui.ui.state import RunState

    async with _bar_app().run_test(size=(160, 10)) as pilot:
        bar = pilot.app.query_one(StatusBar)
        state = RunState()
        state.apply(_started("anthropic/claude-sonnet-4-5"))
        bar.update_from(state, 1.0)
        await pilot.pause()
        assert " cost $0.0000 " in str(bar.content), str(bar.content)
        # $3/M in, $0.30/M cache reads, $3.75/M cache writes, $15/M out:
        # 50 fresh + 1000 read + 150 written in, 9 out = 0.00015 + 0.0003 + 0.0005625 + 0.000135.
        state.apply(_finished("c1", 1200, 9, cache_read_tokens=1000, cache_write_tokens=150))
        bar.update_from(state, 2.0)
        await pilot.pause()
        assert " cost $0.0011 " in str(bar.content), str(bar.content)
        state.apply(_finished("c2", 100_000, 20_000, tokens_estimated=True))
        bar.update_from(state, 3.0)
        await pilot.pause()
        assert " cost $0.6011 (est.) " in str(bar.content), str(bar.content)
        assert "thinking" not in str(bar.content)
        # A thinking model's thinking is output (priced so) and said apart.
        state.apply(_finished("c3", 0, 1000, thinking_tokens=800))
        bar.update_from(state, 4.0)
        await pilot.pause()
        assert " cost $0.6161 (est.) " in str(bar.content), str(bar.content)
        assert "k out (800 thinking)" in str(bar.content), str(bar.content)


async def test_a_model_without_a_price_says_so_and_one_that_runs_here_shows_no_cost():
    from qflow_tui.ui.state import RunState

    async with _bar_app().run_test(size=(160, 10)) as pilot:
        bar = pilot.app.query_one(StatusBar)
        for model, base_url, shown in (
            ("openai/some-new-model", None, "cost: no price"),
            ("openai/some-new-model", "http://127.0.0.1:8080/v1", ""),  # a server on this machine
            ("script/tests/scripts/mbpp11.py", None, ""),
            ("local/smollm2", None, ""),
        ):
            state = RunState()
            state.apply(_started(model, base_url))
            state.apply(_finished("c1", 1200, 9))
            bar.update_from(state, 1.0)
            await pilot.pause()
            text = str(bar.content)
            assert (shown in text) if shown else ("cost" not in text), (model, text)


def _solve_priced(tmp_path):  # type: ignore[no-untyped-def]
    """``qflow solve --json`` of MBPP 11 with the script model priced by the
    config file; returns its summary."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    model = "script/tests/scripts/mbpp11.py"
    (tmp_path / "config.toml").write_text(f'[prices."{model}"]\ninput = 3.0\noutput = 15.0\n', encoding="utf-8")
    solve = [sys.executable, "-m", "qflow_tui.cli", "solve", "--problem", "mbpp/11", "--prompts", "1"]
    out = subprocess.run(
        [*solve, "--model", model, "--session-dir", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
        env={**os.environ, "QFLOW_CONFIG_DIR": str(tmp_path)},
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


async def test_the_bar_shows_the_cost_solve_json_reports(tmp_path, monkeypatch):
    """A priced run (the config file prices the script model) headless: the bar
    fed the session's events shows the total ``solve --json`` printed."""
    import asyncio
    from pathlib import Path

    from qflow_tui.core.session import read_session
    from qflow_tui.ui.state import RunState
    from qflow_tui.ui.widgets.status_bar import fmt_cost

    summary = await asyncio.to_thread(_solve_priced, tmp_path)
    assert summary["cost"]["total"] > 0, summary["cost"]
    state = RunState()
    for event in read_session(Path(summary["session"])).events:
        state.apply(event)
    monkeypatch.setenv("QFLOW_CONFIG_DIR", str(tmp_path))
    async with _bar_app().run_test(size=(160, 10)) as pilot:
        bar = pilot.app.query_one(StatusBar)
        bar.update_from(state, 1.0)
        await pilot.pause()
        # A script model's tokens are counted from characters: an estimate.
        assert f" cost {fmt_cost(summary['cost']['total'])} (est.) " in str(bar.content), str(bar.content)
