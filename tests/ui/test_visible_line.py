"""After a run, the run screen says how the final program did on the visible
tests, run in the sandbox once the workflow has decided (issue 57): at 80x24,
without a key, a stdin/stdout problem says so, and the demo model's program
(MBPP 11's function, which never reads its input) passes 0 of the 2 samples.
The line comes from a recorded event, so the replay of the session says it too,
on the same Program tab."""

from __future__ import annotations

import pytest
from ui_app import SIZE, WIDE, build_app, replay_app
from ui_steps import finish_run, start_run, wait_until
from wf_streams import screen_text

from qflow_tui.core.config import RunConfig
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.data.demo import responder
from qflow_tui.ui.screens.confirm import Confirm
from qflow_tui.ui.screens.replay import ReplayScreen
from qflow_tui.ui.screens.run_screen import RunScreen
from qflow_tui.ui.widgets.run_view import RunView

STATEMENT = "Read two integers on one line and print their sum."
SAMPLES = "Input\n1 2\nOutput\n3\n\nInput\n10 -4\nOutput\n6\n"
LINE = "stdin/stdout problem · 0/2 visible tests pass: it never read its input"


def demo_app(workflow: str):
    client = ScriptClient.from_function(responder.respond, name="qflow_tui/data/demo/responder.py")
    config = RunConfig(model="script/qflow_tui/data/demo/responder.py", workflow=workflow)
    return build_app(client, config=config, example=False, problem_text=STATEMENT, tests_text=SAMPLES)


async def run_to_end(pilot) -> RunScreen:
    await pilot.pause()
    await pilot.press("ctrl+r")
    if isinstance(pilot.app.screen, Confirm):  # "the script model only knows remove_Occ"
        await pilot.press("y")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, RunScreen), "the run screen")
    screen = pilot.app.screen
    assert isinstance(screen, RunScreen)
    await finish_run(pilot)
    return screen


@pytest.mark.parametrize("workflow", ["qualityflow", "zeroshot"])
async def test_the_run_screen_says_how_the_final_program_did_on_the_samples(workflow: str) -> None:
    app = demo_app(workflow)
    async with app.run_test(size=SIZE) as pilot:
        assert app.screen.query_one("#kind").value == "io"  # type: ignore[attr-defined]
        screen = await run_to_end(pilot)
        state = screen.query_one(RunView).state
        assert state.finished is not None and state.visible_run is not None
        # Information only: the workflow's outcome is what it decided.
        assert state.finished.outcome == ("unchecked" if workflow == "zeroshot" else "reverted")
        await pilot.pause()
        text = screen_text(app)
        assert LINE in text, text
        session = screen.session_path
    assert session is not None
    replay = replay_app(session)
    async with replay.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(replay.screen, ReplayScreen), "the replay")
        await pilot.press("i")  # to the end
        await wait_until(pilot, lambda: replay.screen.query_one(RunView).state.finished is not None, "the end")
        view = replay.screen.query_one(RunView)
        # The Program tab, where the live run ended: its digit as this run numbers its tabs.
        await pilot.press(str([tab for tab, _title in view.numbered()].index("tab-program") + 1))
        view.flush()
        await pilot.pause()
        assert LINE in screen_text(replay)


async def test_the_line_fits_a_wide_screen_on_one_line() -> None:
    app = demo_app("zeroshot")
    async with app.run_test(size=WIDE) as pilot:
        await run_to_end(pilot)
        await pilot.pause()
        assert LINE in screen_text(app)


async def test_a_function_problem_says_how_many_visible_asserts_pass() -> None:
    """MBPP 11 with its script model: the accepted program passes its three asserts."""
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await finish_run(pilot)
        await pilot.pause()
        assert screen.query_one(RunView).state.visible_run is not None
        text = screen_text(app)
        assert "3/3 visible tests pass" in text and "stdin/stdout" not in text, text
