"""Resume from the session browser (R): a run that did not finish runs again in
a live run screen through the same core as ``qflow solve --resume``, every call
it finished answered from the recording; a finished run, or one whose model
cannot be reached, is refused with one line."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from ui_app import SIZE
from ui_fakes import InProcessSandbox
from ui_steps import finish_run, wait_until

from qflow_tui.core.config import RunConfig
from qflow_tui.core.problem import make_problem
from qflow_tui.core.workflow_run import RunError, run_workflow
from qflow_tui.locations import sessions_dir
from qflow_tui.ui.app import create_app
from qflow_tui.ui.screens.run_screen import RunScreen
from qflow_tui.ui.screens.sessions import SessionsScreen
from tests.helpers import write_logging_mbpp11

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "mbpp11"


async def record(tmp_path: Path, *, down: bool) -> Path:
    """A session of MBPP 11 with the responder above, failed (``down``) or finished."""
    responder = tmp_path / "responder.py"
    write_logging_mbpp11(responder)
    if down:
        (tmp_path / "down").write_text("")
    problem = make_problem(
        (DATA / "problem.txt").read_text(), (DATA / "tests.py").read_text(), entry_point="remove_Occ"
    )
    config = RunConfig(model=f"script/{responder}").replace(prompts=2)
    try:
        outcome = await run_workflow(problem, config, sandbox=InProcessSandbox(), session_dir=sessions_dir())
    except RunError as exc:
        assert down and exc.session
        (tmp_path / "down").unlink()
        (tmp_path / "live.log").unlink()
        return Path(exc.session)
    assert not down and outcome.session
    return Path(outcome.session)


def app_over_sessions():
    return create_app(RunConfig(model="script/tests/scripts/mbpp11.py"), sandbox=InProcessSandbox(), clock=lambda: 0.0)


async def open_browser(pilot) -> SessionsScreen:
    await pilot.pause()
    await pilot.press("f2")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, SessionsScreen) and pilot.app.screen.loaded, "list")
    screen = pilot.app.screen
    assert isinstance(screen, SessionsScreen)
    return screen


def notices(app) -> list[str]:
    return app.notices_shown()


async def test_R_resumes_an_unfinished_run_reusing_every_finished_call(tmp_path):
    failed = await record(tmp_path, down=True)
    header_events = [json.loads(line) for line in failed.read_text().splitlines()]
    finished_before = {e["call_id"] for e in header_events[1:] if e.get("kind") == "llm_call_finished"}
    assert header_events[-1]["kind"] == "run_failed" and finished_before

    app = app_over_sessions()
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot)
        assert browser.selected is not None and browser.selected.path == failed
        assert browser.check_action("resume", ())
        await pilot.press("R")
        await wait_until(pilot, lambda: isinstance(app.screen, RunScreen), "the run screen")
        run = app.screen
        assert isinstance(run, RunScreen)
        view = await finish_run(pilot)
        assert view.state.finished is not None and view.state.finished.outcome == "accepted"
        # The recording answered every call the failed run finished; only the
        # self-debugger's calls (and what followed them) were asked of the live model.
        live = (tmp_path / "live.log").read_text().split()
        assert live and "program_generator" not in live and "test_designer" not in live
        assert live[0] == "self_debugger"
        assert any("answered from the recording" in m for m in notices(app))
        # The resumed run is its own session, complete.
        events = [json.loads(line) for line in run.session_path.read_text().splitlines()]
        assert events[0]["model"] == f"replay/{failed}"
        assert events[0]["config"]["fallback_model"].startswith("script/")
        assert events[-1]["kind"] == "run_finished"
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen), "back in the browser")


async def test_R_refuses_a_finished_run_and_a_model_that_cannot_be_reached(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    finished = await record(tmp_path / "a", down=False)
    failed = await record(tmp_path / "b", down=True)
    (tmp_path / "b" / "responder.py").unlink()  # the failed run's model is gone
    # The same failed run, as if made with a local OpenAI-compatible server that is not running now.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    header, rest = failed.read_text().split("\n", 1)
    h = json.loads(header)
    h["model"], h["config"]["model"] = "openai/smollm2", "openai/smollm2"
    h["config"]["base_url"] = f"http://127.0.0.1:{port}/v1"
    server_down = failed.with_name("server-down.jsonl")
    server_down.write_text(json.dumps(h) + "\n" + rest)

    app = app_over_sessions()
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot)
        rows = {s.path: i for i, s in enumerate(browser.sessions)}
        table = browser.query_one("#sessions-table")
        for path, expected in (
            (finished, "this run finished (accepted); there is nothing to resume"),
            (failed, f"cannot resume with script/{tmp_path / 'b' / 'responder.py'}"),
            (server_down, f"cannot resume with openai/smollm2: nothing answers at http://127.0.0.1:{port}/v1"),
        ):
            app.clear_notifications()
            table.move_cursor(row=len(browser.groups) + rows[path])  # type: ignore[attr-defined]
            await pilot.pause()
            await pilot.press("R")
            await wait_until(pilot, lambda: bool(notices(app)), "the refusal")
            (message,) = notices(app)
            assert expected in message and "\n" not in message
            assert isinstance(app.screen, SessionsScreen)
