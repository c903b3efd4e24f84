"""A stdin/stdout problem in the app, end to end, with every workflow: typed
into the form as Input/Output blocks, run in step mode through every stop (the
quality checks among them) with the script model tests/scripts/sum_io.py, to a
final program; the session it wrote replays to the same end. The Imagined tab
shows the imagined output against the expected one; the Tests tab shows the
designed I/O tests as input → output, whole in the detail, with what a
program printed."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from ui_app import SIZE, build_app, replay_app
from ui_fakes import load_responder
from ui_steps import finish_run, settle, shown_at, start_run, wait_until

from qflow_tui.core.config import RunConfig
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.pieces import ImaginedChecks, SynthTests
from qflow_tui.ui.palette import palette
from qflow_tui.ui.screens.replay import ReplayScreen
from qflow_tui.ui.widgets.imagined_trace import ImaginedTrace, trace_groups
from qflow_tui.ui.widgets.run_view import RunView
from qflow_tui.ui.widgets.tests_table import TestsTable

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "sum_io.py"
respond = load_responder(SCRIPT)
STATEMENT = "Read integers on one line, separated by spaces, and print their sum."
SAMPLES = "Input\n1 2\nOutput\n3\n\nInput\n10 -4\nOutput\n6\n\nInput\n1 2 3\nOutput\n6\n"
EVERY = "sum(map(int, sys.stdin.read().split()))"
FIRST_TWO = "a, b = map(int, input().split()[:2])"

#: Each workflow's end with this script: its outcome and the program it keeps.
#: AgentCoder's test designer writes its pairs (all right) and its executor
#: accepts the program that passes them; zero-shot never checks.
ENDS = {
    "qualityflow": ("accepted", EVERY),
    "agentcoder": ("accepted", EVERY),
    "codetree": ("accepted", EVERY),
    "adacoder": ("accepted", EVERY),
    "zeroshot": ("unchecked", FIRST_TWO),
}


def _config(workflow: str) -> RunConfig:
    config = RunConfig(model=f"script/{SCRIPT}", workflow=workflow)
    return config.replace(prompts=2) if workflow == "qualityflow" else config


def _app(workflow: str, **kwargs):
    client = ScriptClient.from_function(respond, name="tests/scripts/sum_io.py")
    return build_app(
        client, config=_config(workflow), example=False, problem_text=STATEMENT, tests_text=SAMPLES, **kwargs
    )


async def _step_through(pilot, screen) -> list[str]:
    """Press n at every stop until the run ends; the stops shown."""
    stops: list[str] = []
    for _ in range(200):
        await wait_until(pilot, lambda: screen.waiting_at is not None or not screen.running, "a stop or the end")
        if not screen.running:
            return stops
        stops.append(shown_at(screen) or "")
        held = screen.shown_stop
        await pilot.press("n")
        await wait_until(pilot, lambda held=held: screen.shown_stop is not held or not screen.running, "the next stop")
    raise AssertionError(f"the run did not end in 200 steps: {stops[-5:]}")


@pytest.mark.parametrize("workflow", list(ENDS))
async def test_an_io_problem_runs_stepped_with_every_workflow_and_replays(workflow: str):
    outcome, program = ENDS[workflow]
    app = _app(workflow, stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#kind").value == "io"
        screen = await start_run(pilot)
        assert screen.problem.is_io and len(screen.problem.tests) == 3
        stops = await _step_through(pilot, screen)
        view = await finish_run(pilot)
        finished = view.state.finished
        assert finished is not None, view.state.failed
        assert (finished.outcome, program in finished.final_program) == (outcome, True), finished
        assert stops, "step mode stopped nowhere"
        if workflow in ("qualityflow", "codetree", "adacoder"):
            assert any(s.startswith("check:") for s in stops) or workflow != "qualityflow", stops
        session = screen.session_path
        assert session is not None and session.exists()
        lines = session.read_text(encoding="utf-8").splitlines()
        started = next(json.loads(line) for line in lines if '"run_started"' in line)
        assert started["problem"]["kind"] == "io"
    replay = replay_app(session)
    async with replay.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(replay.screen, ReplayScreen), "the replay")
        screen = replay.screen
        await pilot.press("i")  # the end
        await pilot.pause()
        view = screen.query_one(RunView)
        view.flush()
        assert view.state.finished is not None
        assert view.state.finished.final_program == finished.final_program


async def test_the_imagined_tab_shows_the_imagined_output_against_the_expected():
    app = _app("qualityflow")
    async with app.run_test(size=SIZE) as pilot:
        await start_run(pilot)
        view = await finish_run(pilot)
        view.query_one("#run-tabs").active = "tab-imagined"
        view.progression = 0
        view.flush()
        await pilot.pause()
        trace = view.query_one(ImaginedTrace)
        trace.update_from(view.state, 0)
        await pilot.pause()
        console = Console(width=80, record=True, file=io.StringIO())
        assert trace.query(".imagined-step")
        for _step, group in trace_groups(view.state, 0, palette(app)):  # what the tab's blocks show
            console.print(group)
        text = console.export_text()
        # The first program's check: '1 2 3' imagined to print 3, the test expects 6.
        first = [r for r in view.state.piece(ImaginedChecks).of(0) if r.step == "program_generator"]
        failing = next(r for r in first if r.verdict == "fail")
        assert failing.value == "3\n" and "1 2 3" in failing.function_call
        for words in ("input", "imagined output", "expected output", "verdict", "✗ fail", "✓ pass"):
            assert words in text, words
        assert "differs from the test's" in text


async def test_the_tests_tab_shows_io_tests_as_input_and_output_and_what_was_printed():
    app = _app("qualityflow")
    async with app.run_test(size=SIZE) as pilot:
        await start_run(pilot)
        view = await finish_run(pilot)
        view.query_one("#run-tabs").active = "tab-tests"
        view.flush()
        await pilot.pause()
        table = view.query_one(TestsTable)
        grid = table.query_one("#tests-grid")
        rows = [str(grid.get_cell(str(i), "test")) for i in range(grid.row_count)]
        assert rows == ["4 5 → 9", "0 0 0 0 → 0", "-3 3 7 → 7", "2 2 → 5"]
        grid.move_cursor(row=2)
        await pilot.pause()
        detail = str(table.query_one("#tests-detail-body").render())
        assert "input\n-3 3 7" in detail and "expected output\n7" in detail
        # The first program (progression 0 before its fix) printed 0 there.
        table.update_from(view.state, 0)
        view.state.piece(SynthTests).tests[2].results[0] = {
            "status": "fail",
            "actual": "'0\\n'",
            "error": "wrong output",
            "step": "self_debug:1",
            "when": "before",
        }
        table.update_from(view.state, 0)
        await pilot.pause()
        detail = str(table.query_one("#tests-detail-body").render())
        assert "printed '0\\n'" in detail and "wrong output" in detail


@pytest.fixture(scope="module")
def io_session(tmp_path_factory) -> Path:
    """QualityFlow on the sum problem with one progression (two race: which
    one's check is recorded last varies), recorded at a frozen clock (as the
    snapshot suite's six-progression run), for snapshots of its replay."""
    import asyncio
    from types import SimpleNamespace

    from ui_fakes import InProcessSandbox

    from qflow_tui.core import events as events_module
    from qflow_tui.core import workflow_run as runner_module
    from qflow_tui.core.problem import make_io_problem, parse_io_tests
    from qflow_tui.core.workflow_run import run_workflow

    folder = tmp_path_factory.mktemp("io-session")
    frozen = SimpleNamespace(time=lambda: 1_700_000_000.0, monotonic=lambda: 0.0)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(events_module, "time", frozen)
        mp.setattr(runner_module, "time", frozen)
        outcome = asyncio.run(
            run_workflow(
                make_io_problem(STATEMENT, parse_io_tests(SAMPLES)),
                _config("qualityflow").replace(prompts=1),
                client=ScriptClient.from_function(respond, name="tests/scripts/sum_io.py"),
                sandbox=InProcessSandbox(),
                session_dir=folder,
            )
        )
    assert outcome.outcome == "accepted"
    return Path(outcome.session)


def test_the_imagined_tab_of_an_io_problem_snapshot(snap_compare, io_session):
    # At 80x24 only: wider, the status line names the session file, whose name has the day's time.
    from qflow_tui.ui.widgets.imagined_trace import ImaginedTrace

    async def run_before(pilot):
        await pilot.press("3")
        await settle(pilot)
        trace = pilot.app.screen.query_one(ImaginedTrace)

        def landed() -> bool:  # the accepting check's top at the top, or scrolled as far as it goes
            block = next(b for b in trace.query(".imagined-step") if getattr(b, "step", "") == "self_debug:1")
            return trace.scroll_y == min(block.virtual_region.y, trace.max_scroll_y) == trace._landed_at

        await wait_until(pilot, landed, "the trace to open on the accepting check")
        await settle(pilot)

    assert snap_compare(replay_app(io_session), terminal_size=SIZE, run_before=run_before)


def test_the_tests_tab_of_an_io_problem_snapshot(snap_compare, io_session):
    async def run_before(pilot):
        await pilot.press("4")
        await pilot.press("down", "down", "down")
        await settle(pilot)

    assert snap_compare(replay_app(io_session), terminal_size=SIZE, run_before=run_before)
