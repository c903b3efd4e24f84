"""The bench screen: a bench run live in the app through the runner's sinks to
its end, a problem opened in replay from the table, a finished bench folder
opened again, and a snapshot of one at 80x24."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets.data_table import ColumnKey
from ui_app import SIZE, WIDE
from ui_steps import wait_until

from qflow_tui.cli import main
from qflow_tui.core.bench.bench_runner import RESULTS, BenchRunner, BenchSpec, ProblemUpdate, read_results
from qflow_tui.core.config import RunConfig
from qflow_tui.ui.app import QFlowApp, create_app
from qflow_tui.ui.screens.bench import BenchScreen, fit_parts
from qflow_tui.ui.screens.replay import ReplayScreen
from qflow_tui.ui.widgets.bench_chart import PassByStepChart, bar, pass_rows
from qflow_tui.ui.widgets.bench_table import BenchTable

ROOT = Path(__file__).parents[2]
SCRIPTS = ROOT / "tests" / "bench" / "scripts"
FINISHED = ROOT / "tests" / "bench" / "data" / "finished-late-fix"
CANONICAL = ROOT / "bench" / "canonical_model.py"


def late_fix_runner(out: Path, ids: list[str]) -> BenchRunner:
    """QualityFlow with the late-fix script model: the first program is wrong,
    the first self-debug epoch writes the canonical solution."""
    config = RunConfig(model=f"script/{SCRIPTS / 'late_fix.py'}", workflow="qualityflow").replace(
        checker="python", prompts=1, epochs=1, clarify=0, test_rounds=1
    )
    return BenchRunner(BenchSpec("humaneval", config, ids=ids, concurrency=2), out)


def cell(table: BenchTable, key: str, column: str) -> str:
    value = table.get_cell(key, column)
    return value.plain if isinstance(value, Text) else str(value)


async def test_a_bench_fills_the_table_live_and_opens_a_problem_in_replay(tmp_path):
    out = tmp_path / "bench"
    runner = late_fix_runner(out, ["humaneval/0", "humaneval/2"])
    runner.prepare()
    seen: list[str] = []
    runner.sinks.append(lambda u: seen.append(f"{u.key}:{u.state}"))
    app = create_app(RunConfig(), bench_runner=runner, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        screen = app.screen
        assert isinstance(screen, BenchScreen)
        table = screen.query_one(BenchTable)
        # Every problem is a row before any has run.
        assert [r.key for r in table.rows_by_key.values()] == ["humaneval/0", "humaneval/2"]
        assert screen.sub_title == "bench running"
        await app.workers.wait_for_complete()
        await wait_until(pilot, lambda: screen.finished, "the bench to finish")
        await pilot.pause()
        assert screen.sub_title == "bench"  # the header no longer says it runs

        # The runner's own progress went through the screen's sink, running included.
        assert "humaneval/0:running" in seen and "humaneval/2:done" in seen
        assert {r.state for r in table.rows_by_key.values()} == {"done"}
        assert table.steps == ["program_generator", "self_debug:1"]
        records = {r["id"]: r for r in read_results(out)}
        for key in ("humaneval/0", "humaneval/2"):
            assert cell(table, key, "status") == "passed"
            assert cell(table, key, "step:program_generator") == "✗"
            assert cell(table, key, "step:self_debug:1") == "✓"
            assert cell(table, key, "time") == f"{records[key]['duration']:.1f}s"
        # The chart is Table 1 of what finished: nothing right before self-debugging.
        chart = screen.query_one(PassByStepChart)
        assert pass_rows(chart.done) == [
            ("first program", 0, 2),
            ("program generator", 0, 2),
            ("self debug 1", 2, 2),
            ("final", 2, 2),
        ]
        summary = str(screen.query_one("#bench-summary").render())
        assert "2/2 done" in summary and "pass@1 100.0% (2/2)" in summary
        assert (out / "report.md").read_text().startswith("#")

        # Enter on the second problem replays its session.
        table.focus()
        table.move_cursor(row=1)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay screen")
        assert app.screen.path == out / records["humaneval/2"]["session"]
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "back on the bench screen")


async def test_the_summary_gives_the_papers_pass_at_5_beside_pass_at_1(tmp_path):
    """QualityFlow's spec declares pass@5 over a run's last five programs: of two
    reverted runs, one wrote a right program among its last five."""
    config = RunConfig(model=f"script/{SCRIPTS / 'last_five.py'}", workflow="qualityflow").replace(
        checker="yesno", prompts=1, tqc=False, test_rounds=1
    )
    out = tmp_path / "bench"
    await BenchRunner(BenchSpec("mbpp", config, ids=["11", "12"], concurrency=2), out).run()
    app = create_app(RunConfig(), bench_folder=out, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        await pilot.pause()
        summary = str(app.screen.query_one("#bench-summary").render())
        assert "pass@1 0.0% (0/2)" in summary and "pass@5 (last 5 programs) 50.0% (1/2)" in summary


async def test_a_problem_that_has_not_finished_says_so_instead_of_opening(tmp_path):
    runner = late_fix_runner(tmp_path / "bench", ["humaneval/3"])
    runner.prepare()
    app = create_app(RunConfig(), bench_folder=runner.folder, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        screen = app.screen
        await pilot.pause()
        assert cell(screen.query_one(BenchTable), "humaneval/3", "status") == "not run"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, BenchScreen)
        assert any("has not run yet" in str(n.message) for n in app._notifications)


async def test_a_finished_bench_folder_opens_again(tmp_path):
    folder = tmp_path / "bench"
    shutil.copytree(FINISHED, folder)
    app = create_app(RunConfig(), bench_folder=folder, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        screen = app.screen
        await pilot.pause()
        table = screen.query_one(BenchTable)
        assert list(table.rows_by_key) == ["humaneval/0", "humaneval/1", "humaneval/2", "humaneval/4"]
        assert cell(table, "humaneval/1", "status") == "passed"
        assert not screen.running
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay screen")
        assert app.screen.path == folder / "sessions" / "humaneval-1.jsonl"
    # Looking at a folder changes nothing in it.
    assert (folder / RESULTS).read_bytes() == (FINISHED / RESULTS).read_bytes()


@pytest.mark.parametrize(("size", "named"), [(WIDE, "generate"), (SIZE, "generate")])
async def test_step_columns_are_named_whole_where_the_table_has_room(tmp_path, size, named):
    folder = tmp_path / "bench"
    shutil.copytree(FINISHED, folder)
    app = create_app(RunConfig(), bench_folder=folder, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        await pilot.pause()
        table = app.screen.query_one(BenchTable)
        assert table.columns["step:program_generator"].label.plain == named
        # The workflow's own words (QualityFlow's stage_words), in the chart as in the table.
        assert "generate " in str(app.screen.query_one(PassByStepChart).render())
        assert "self-debug 1" in str(app.screen.query_one(PassByStepChart).render())
        if size == WIDE:  # narrowed, the columns are built again with cut names
            await pilot.resize_terminal(*SIZE)
            await wait_until(pilot, lambda: table.columns["step:self_debug:1"].label.plain == "self-debug 1", "cut")


async def test_a_folder_that_is_not_a_bench_is_one_line_not_a_crash(tmp_path):
    app = create_app(RunConfig(), bench_folder=tmp_path, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        await pilot.pause()
        assert "is not a bench folder" in str(app.screen.query_one("#bench-summary").render())


def test_bars_are_drawn_in_eighths():
    assert bar(0.0, 4) == "    "
    assert bar(1.0, 4) == "████"
    assert bar(0.5, 4) == "██  "
    assert bar(1 / 32, 4) == "▏   "


def test_a_finished_bench_snapshot(snap_compare, tmp_path, monkeypatch):
    # A relative folder: the path on screen is the same on every machine.
    monkeypatch.chdir(tmp_path)
    shutil.copytree(FINISHED, tmp_path / "humaneval-late-fix")
    app = create_app(RunConfig(), bench_folder=Path("humaneval-late-fix"), clock=lambda: 0.0, remember_theme=False)

    async def run_before(pilot):
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, BenchScreen), "the bench screen")
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.fixture
def app_run_in_pilot(monkeypatch):
    """``QFlowApp.run`` replaced by a headless pilot that waits for the bench
    worker to end, or (``stop_early``) leaves as soon as a problem is running,
    as Ctrl+Q would."""
    seen: dict[str, object] = {"stop_early": False}

    def run(self: QFlowApp, *args: object, **kwargs: object) -> None:
        async def drive() -> None:
            async with self.run_test(size=SIZE) as pilot:
                await wait_until(pilot, lambda: isinstance(self.screen, BenchScreen), "the bench screen")
                screen = self.screen
                seen["screen"] = screen
                if seen["stop_early"]:
                    await wait_until(
                        pilot,
                        lambda: any(r.state == "running" for r in screen.rows.values()),
                        "a running problem",
                    )
                    return
                await self.workers.wait_for_complete()
                await wait_until(pilot, lambda: screen.finished, "the bench to finish")
                if seen.get("then_escape"):
                    from textual.widgets import Input

                    from qflow_tui.ui.screens.compose import ComposeScreen

                    await pilot.press("escape")
                    await wait_until(pilot, lambda: isinstance(self.screen, ComposeScreen), "the form")
                    await wait_until(pilot, lambda: self.screen.ready, "the form ready")
                    seen["form_model"] = self.screen.query_one("#model", Input).value
                    seen["form_workflow"] = self.config.workflow

        asyncio.run(drive())

    monkeypatch.setattr(QFlowApp, "run", run)
    return seen


def _bench_tui(out: Path) -> int:
    model = f"script/{CANONICAL}"
    return main(
        [
            "bench",
            "--tui",
            "--dataset",
            "humaneval",
            "--ids",
            "0,1",
            "--model",
            model,
            "--workflow",
            "zeroshot",
            "--out",
            str(out),
        ]
    )


def test_qflow_bench_tui_runs_the_bench_in_the_app(tmp_path, app_run_in_pilot, capsys):
    app_run_in_pilot["then_escape"] = True
    assert _bench_tui(tmp_path / "b") == 0
    # Escape to the form keeps the bench's model and workflow, not the defaults.
    assert app_run_in_pilot["form_model"] == f"script/{CANONICAL}"
    assert app_run_in_pilot["form_workflow"] == "zeroshot"
    screen = app_run_in_pilot["screen"]
    assert isinstance(screen, BenchScreen) and screen.finished
    assert {r["id"]: r["passed"] for r in read_results(tmp_path / "b")} == {"humaneval/0": True, "humaneval/1": True}
    assert "qflow bench report" in capsys.readouterr().err


def test_leaving_the_app_mid_bench_keeps_the_folder_and_says_how_to_resume(
    tmp_path, app_run_in_pilot, capsys, monkeypatch
):
    hang = tmp_path / "hang"
    hang.write_text("humaneval/1")
    monkeypatch.setenv("QFLOW_TEST_HANG_FILE", str(hang))
    app_run_in_pilot["stop_early"] = True
    out = tmp_path / "b"
    argv = ["bench", "--tui", "--dataset", "humaneval", "--ids", "0,1", "--model", f"script/{SCRIPTS / 'flaky.py'}"]
    assert main([*argv, "--workflow", "zeroshot", "--concurrency", "1", "--out", str(out)]) == 1
    assert "rerun the same command to resume" in capsys.readouterr().err
    # The rerun (humaneval/1 no longer hangs) finishes what was left.
    hang.write_text("")
    app_run_in_pilot["stop_early"] = False
    assert main([*argv, "--workflow", "zeroshot", "--concurrency", "1", "--out", str(out)]) == 0
    assert sorted(r["id"] for r in read_results(out) if r["status"] == "done") == ["humaneval/0", "humaneval/1"]


async def test_elapsed_time_and_a_running_problems_time_move_on_between_updates(tmp_path, monkeypatch):
    hang = tmp_path / "hang"
    hang.write_text("humaneval/0")
    monkeypatch.setenv("QFLOW_TEST_HANG_FILE", str(hang))
    config = RunConfig(model=f"script/{SCRIPTS / 'flaky.py'}", workflow="zeroshot")
    runner = BenchRunner(BenchSpec("humaneval", config, ids=["humaneval/0"]), tmp_path / "b")
    now = [100.0]
    app = create_app(RunConfig(), bench_runner=runner, clock=lambda: now[0], remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        screen = app.screen
        assert isinstance(screen, BenchScreen)
        await wait_until(pilot, lambda: screen.rows["humaneval/0"].state == "running", "the problem running")
        now[0] = 107.0
        screen._tick()  # what the screen's one-second timer calls
        await pilot.pause()
        assert "7s elapsed" in str(screen.query_one("#bench-summary").render())
        assert cell(screen.query_one(BenchTable), "humaneval/0", "time") == "7.0s"


async def test_lines_qflow_did_not_write_show_as_unreadable_not_a_crash(tmp_path):
    folder = tmp_path / "bench"
    shutil.copytree(FINISHED, folder)
    lines = (folder / RESULTS).read_text().splitlines()
    # humaneval/1's line hand-edited: steps is not a list, tokens not a number.
    lines = [
        line.replace('"steps":[', '"steps":"x","old_steps":[').replace('"tokens_total":', '"tokens_total":"many","t":')
        if '"id":"humaneval/1"' in line
        else line
        for line in lines
    ]
    (folder / RESULTS).write_text("\n".join(lines) + "\n")
    app = create_app(RunConfig(), bench_folder=folder, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        screen = app.screen
        await pilot.pause()
        table = screen.query_one(BenchTable)
        assert cell(table, "humaneval/1", "status") == "unreadable"
        assert cell(table, "humaneval/0", "status") == "passed"
        assert pass_rows(screen.query_one(PassByStepChart).done)[-1] == ("final", 3, 3)


async def test_failures_say_why_on_the_screen_and_what_would_help(tmp_path):
    """A model with no answer for an agent: every row says why in its own column
    and in full under the table, and the summary says that running again will
    fail again (it said 'provider error' and nothing more)."""
    mute = tmp_path / "mute.py"
    mute.write_text("def respond(request):\n    raise ValueError('no answer for ' + request['agent'])\n")
    config = RunConfig(model=f"script/{mute}", workflow="qualityflow").replace(
        prompts=1, epochs=1, clarify=0, test_rounds=1
    )
    runner = BenchRunner(
        BenchSpec("humaneval", config, ids=["humaneval/0", "humaneval/2"], concurrency=2), tmp_path / "b"
    )
    runner.prepare()
    app = create_app(RunConfig(), bench_runner=runner, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        screen = app.screen
        await app.workers.wait_for_complete()
        await wait_until(pilot, lambda: screen.finished or screen.outcome, "the bench to end")
        await pilot.pause()
        table = screen.query_one(BenchTable)
        failed = [r for r in table.rows_by_key.values() if r.state in ("provider_error", "error")]
        assert failed, [r.state for r in table.rows_by_key.values()]
        for row in failed:
            assert "no answer for program_generator" in row.why
            assert cell(table, row.key, "why").startswith("script model")
        summary = str(screen.query_one("#bench-summary").render())
        if len(failed) == 2:
            assert "failed the same way" in summary and "running again will fail again" in summary
        table.focus()
        table.move_cursor(row=0)
        await pilot.pause()
        detail = str(screen.query_one("#bench-detail").render())
        assert failed[0].key in detail and "no answer for program_generator" in detail


def test_the_pass_rate_interval_is_wilsons():
    from qflow_tui.ui.screens.bench import _interval

    assert _interval(0, 10) == "[0.0, 27.8]"
    assert _interval(10, 10) == "[72.2, 100.0]"
    assert _interval(5, 10) == "[23.7, 76.3]"
    assert _interval(0, 0) == "n/a"


async def test_a_long_folder_is_cut_at_its_start_and_the_hint_stays(tmp_path):
    folder = tmp_path / ("a-long-folder-name-" * 5) / "bench"
    shutil.copytree(FINISHED, folder)
    app = create_app(RunConfig(), bench_folder=folder, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        await pilot.pause()
        line = str(app.screen.query_one("#bench-where").render())
        assert line.startswith("…") and line.endswith("/bench  ·  Enter replays a problem")
        assert len(line) <= SIZE[0] - 2


async def test_a_long_problem_id_is_shown_whole(tmp_path):
    # "humaneval-plus/163" is wider than the column's least width (16): the
    # column grows to fit it, even at 80x24.
    config = RunConfig(model=f"script/{CANONICAL}", workflow="zeroshot")
    runner = BenchRunner(BenchSpec("humaneval-plus", config, ids=["163", "2"], concurrency=1), tmp_path / "bench")
    runner.prepare()
    app = create_app(RunConfig(), bench_folder=runner.folder, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        await pilot.pause()
        table = app.screen.query_one(BenchTable)
        assert table.columns[ColumnKey("problem")].width == len("humaneval-plus/163")
        assert "humaneval-plus/163" in pilot.app.screen.query_one(BenchTable).render_line(1).text


def _priced_runner(out: Path, ids: list[str], **kwargs: object) -> BenchRunner:
    config = RunConfig(model=f"script/{CANONICAL}", workflow="zeroshot")
    spec = BenchSpec("humaneval", config, ids=ids, concurrency=1, price_in=3.0, price_out=15.0)
    return BenchRunner(spec, out, **kwargs)  # type: ignore[arg-type]


async def test_the_spend_against_the_cap_is_a_bar_and_the_cap_stops_the_bench(tmp_path):
    runner = _priced_runner(tmp_path / "bench", ["0", "1", "2", "3"], max_cost=0.004)
    runner.prepare()
    app = create_app(RunConfig(), bench_runner=runner, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        screen = app.screen
        await app.workers.wait_for_complete()
        await wait_until(pilot, lambda: screen.finished, "the bench to stop")
        await pilot.pause()
        summary = str(screen.query_one("#bench-summary").render())
        assert f"spent ${runner.spent():.4f} of the $0.0040 cap" in summary and "█" in summary
        assert "The bench stopped: the cost cap was reached" in summary
        states = [r.state for r in screen.rows.values()]
        assert "done" in states and "not run" in states and "queued" not in states


async def test_a_priced_folder_gives_its_cost_per_solved_problem_with_its_interval(tmp_path):
    runner = _priced_runner(tmp_path / "bench", ["0", "1"])
    await runner.run()
    app = create_app(RunConfig(), bench_folder=runner.folder, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        await pilot.pause()
        summary = str(app.screen.query_one("#bench-summary").render())
        assert "per solved problem, 95% CI [$" in summary and summary.count("cost $") == 1


async def test_an_estimate_runs_the_first_problems_then_s_runs_the_rest(tmp_path):
    runner = _priced_runner(tmp_path / "bench", ["0", "1", "2", "3"])
    runner.prepare()
    app = create_app(RunConfig(), bench_runner=runner, bench_estimate=2, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        screen = app.screen
        await wait_until(pilot, lambda: screen.finished, "the estimate")
        await pilot.pause()
        summary = str(screen.query_one("#bench-summary").render())
        assert "Estimate from 2 finished runs" in summary and "The whole bench, 4 runs" in summary
        assert [r.state for r in screen.rows.values()] == ["done", "done", "not run", "not run"]
        assert len(read_results(runner.folder)) == 2
        await pilot.press("s")
        await wait_until(pilot, lambda: screen.finished and not screen.running, "the whole bench")
        await wait_until(pilot, lambda: {r.state for r in screen.rows.values()} == {"done"}, "every run done")
        assert len(read_results(runner.folder)) == 4  # the estimate's two were not run again


async def test_c_compares_with_another_bench_paired(tmp_path):
    from textual.widgets import Input, Static

    from qflow_tui.ui.screens.bench_compare import BenchCompareDialog

    right = _priced_runner(tmp_path / "right", ["0", "1", "2"])
    await right.run()
    wrong = BenchRunner(
        BenchSpec(
            "humaneval", RunConfig(model=f"script/{SCRIPTS / 'late_fix.py'}", workflow="zeroshot"), ids=["0", "1", "2"]
        ),
        tmp_path / "wrong",
    )
    await wrong.run()
    app = create_app(RunConfig(), bench_folder=right.folder, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, BenchCompareDialog), "the compare dialog")
        dialog = app.screen
        field = dialog.query_one(Input)
        field.value = str(tmp_path / "nowhere")
        await pilot.press("enter")
        await pilot.pause()
        assert "is not a bench folder" in str(dialog.query_one("#bench-compare-hint", Static).render())
        field.value = str(wrong.folder)
        await pilot.press("enter")
        await pilot.pause()
        result = str(dialog.query_one("#bench-compare-result", Static).render())
        assert "On the 3 problems both finished: Δ (B − A) -100.0 points" in result
        assert "Solved by A only: 3; by B only: 0; exact McNemar p = 0.25." in result
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "back on the bench screen")


async def test_several_samples_give_their_spread_and_pass_at_k(tmp_path):
    config = RunConfig(model=f"script/{CANONICAL}", workflow="zeroshot")
    runner = BenchRunner(BenchSpec("humaneval", config, ids=["0", "1"], samples=2, concurrency=2), tmp_path / "b")
    await runner.run()
    app = create_app(RunConfig(), bench_folder=runner.folder, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        await pilot.pause()
        summary = str(app.screen.query_one("#bench-summary").render())
        assert "pass@1 std 0.0 pts over 2 samples" in summary and "pass@2 100.0% [100.0, 100.0]" in summary


async def test_the_bench_screen_is_painted_before_the_bench_starts_and_is_the_first_screen(tmp_path, monkeypatch):
    """`qflow bench --tui` painted after 8-11 s on a busy machine: under the
    compose form (built first, for nothing) and with the bench's first steps
    on the loop before the first paint. The bench screen is the app's first
    screen, painted with every problem listed before the bench starts; the
    compose form is built only when the user goes back to it."""
    from textual.screen import Screen

    from qflow_tui.ui.screens.compose import ComposeScreen

    painted: list[bool] = []
    refresh = Screen._compositor_refresh

    def counted(self: Screen) -> None:
        refresh(self)
        if isinstance(self, BenchScreen) and self.is_current:
            painted.append(True)

    monkeypatch.setattr(Screen, "_compositor_refresh", counted)
    config = RunConfig(model=f"script/{CANONICAL}", workflow="zeroshot")
    runner = BenchRunner(BenchSpec("humaneval", config, ids=["humaneval/0", "humaneval/1"]), tmp_path / "b")
    runner.prepare()
    started: list[int] = []
    run = runner.run

    async def run_after_paint() -> list[dict[str, object]]:
        started.append(len(painted))
        return await run()

    monkeypatch.setattr(runner, "run", run_after_paint)
    app = create_app(RunConfig(), bench_runner=runner, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bool(started), "the bench to start")
        assert started[0] >= 1, "the bench started before its screen was painted"
        assert isinstance(app.screen_stack[0], BenchScreen)
        assert not any(isinstance(s, ComposeScreen) for s in app.screen_stack)
        screen = app.screen_stack[0]
        await app.workers.wait_for_complete()
        await wait_until(pilot, lambda: screen.finished, "the bench to finish")
        # Back from the finished bench: the compose form, built now.
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen), "the compose form")
        assert len(app.screen_stack) == 2


async def test_ctrl_q_on_a_running_bench_asks_and_says_what_is_kept(tmp_path, monkeypatch):
    """Ctrl+Q quit a running bench at once. It asks, as the compose form does,
    and says that the results already written stay and how to resume."""
    from qflow_tui.ui.screens.confirm import Confirm

    hang = tmp_path / "hang"
    hang.write_text("humaneval/1")
    monkeypatch.setenv("QFLOW_TEST_HANG_FILE", str(hang))
    config = RunConfig(model=f"script/{SCRIPTS / 'flaky.py'}", workflow="zeroshot")
    spec = BenchSpec("humaneval", config, ids=["humaneval/0", "humaneval/1"], concurrency=1)
    runner = BenchRunner(spec, tmp_path / "b")
    app = create_app(RunConfig(), bench_runner=runner, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        screen = app.screen
        assert isinstance(screen, BenchScreen)
        await wait_until(
            pilot,
            lambda: screen.rows["humaneval/0"].state == "done" and screen.rows["humaneval/1"].state == "running",
            "one problem finished, the other running",
        )
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm), "the question")
        dialog = app.screen
        assert isinstance(dialog, Confirm)
        assert dialog.question == "Stop the bench and quit?"
        assert f"Results already written to {runner.folder} are kept" in dialog.detail
        assert "running the same bench into that folder again resumes them" in dialog.detail
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is screen, "back on the bench")
        assert screen.running and app.is_running
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm), "the question again")
        await pilot.press("y")
        await wait_until(pilot, lambda: not app.is_running, "the app to quit")
    assert [r["id"] for r in read_results(runner.folder) if r["status"] == "done"] == ["humaneval/0"]


async def test_a_rejecting_tester_step_shows_its_verdict_not_a_dot(tmp_path):
    """AgentCoder's test executor writes no program: a run it rejected had no
    entry for that step, so where another run's acceptance there made it a
    column, the rejected run read `·` (not reached) instead of ✗."""
    config = RunConfig(model=f"script/{SCRIPTS / 'agentcoder_mixed.py'}", workflow="agentcoder").replace(iterations=1)
    runner = BenchRunner(BenchSpec("humaneval", config, ids=["humaneval/0", "humaneval/2"], concurrency=1), tmp_path)
    app = create_app(RunConfig(), bench_runner=runner, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        screen = app.screen
        assert isinstance(screen, BenchScreen)
        await app.workers.wait_for_complete()
        await wait_until(pilot, lambda: screen.finished, "the bench to finish")
        await pilot.pause()
        table = screen.query_one(BenchTable)
        records = {r["id"]: r for r in read_results(tmp_path)}
        assert records["humaneval/0"]["accepted_at"] == "test_executor:1"
        assert records["humaneval/2"]["accepted_at"] == "test_executor:2"
        assert "test_executor:1" in table.steps
        assert cell(table, "humaneval/0", "step:test_executor:1") == "✓"
        assert cell(table, "humaneval/2", "step:test_executor:1") == "✗"
        assert cell(table, "humaneval/2", "step:test_executor:2") == "✓"
        # A step a run never reached is still a dot: humaneval/0 stopped at its first check.
        assert cell(table, "humaneval/0", "step:test_executor:2") == "·"


async def test_a_server_that_reports_no_usage_is_warned_once_and_the_spend_marked_estimated(tmp_path):
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "llm"))  # the stub model server
    from stub_server import StubServer

    stub = StubServer().start()
    try:
        config = RunConfig(model="openai/no-usage", workflow="zeroshot", base_url=stub.url + "/v1")
        spec = BenchSpec("humaneval", config, ids=["0", "1", "2"], concurrency=2, price_in=3.0, price_out=15.0)
        runner = BenchRunner(spec, tmp_path / "bench", max_cost=1.0)
        runner.prepare()
        app = create_app(RunConfig(), bench_runner=runner, clock=lambda: 0.0, remember_theme=False)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
            screen = app.screen
            await app.workers.wait_for_complete()
            await wait_until(pilot, lambda: screen.finished, "the bench to finish")
            await pilot.pause()
            said = [n for n in app._notifications if "reported no usable token counts" in str(n.message)]
            assert len(said) == 1 and said[0].severity == "warning"
            assert sorted(screen.rows) == ["humaneval/0", "humaneval/1", "humaneval/2"]  # no row for the notice
            summary = str(screen.query_one("#bench-summary").render())
            assert f"spent ${runner.spent():.4f} (est.) of the $1.00 cap" in summary
            assert runner.spent() > 0
    finally:
        stub.stop()


async def test_problems_being_judged_are_not_counted_as_running(tmp_path):
    """With --concurrency 4 a problem being judged has given its place to the
    next: the summary says "4 running" and the judged ones apart, never "6 running"."""
    folder = tmp_path / "bench"
    shutil.copytree(FINISHED, folder)
    app = create_app(RunConfig(), bench_folder=folder, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        screen = app.screen
        assert isinstance(screen, BenchScreen)
        for n in range(4):
            screen._heard(ProblemUpdate(f"humaneval/{10 + n}", "running"))
        for n in range(2):
            screen._heard(ProblemUpdate(f"humaneval/{20 + n}", "evaluating"))
        await wait_until(pilot, lambda: "humaneval/21" in screen.rows, "the updates applied")
        summary = str(screen.query_one("#bench-summary").render())
        assert "4 running" in summary and "2 being judged" in summary and "6 running" not in summary


def test_the_summary_breaks_its_line_between_parts_only():
    parts = ["20/20 done", "pass@1 100.0% (20/20), 95% CI [83.9, 100.0]", "6500 tokens", "1s elapsed"]
    # 80 columns less the padding: the elapsed time goes whole to a line of its own.
    assert fit_parts(parts, 78) == [
        "20/20 done  pass@1 100.0% (20/20), 95% CI [83.9, 100.0]  6500 tokens",
        "1s elapsed",
    ]
    assert fit_parts(parts, 200) == ["  ".join(parts)]
    # A part wider than a line has one of its own; the next starts a line again.
    assert fit_parts(["a" * 30, "b", "c"], 10) == ["a" * 30, "b  c"]
    # Wide characters count by their cells.
    assert fit_parts(["界界界", "x"], 8) == ["界界界", "x"]
    assert fit_parts([], 10) == []
