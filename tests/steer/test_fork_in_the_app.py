"""Forking in the app: from the replay screen at the step it shows, and from a
live run at its stop. The fork runs through the same core as ``qflow fork``:
the recording answers every call before the branch (the live model is asked
none of them: counted), the session names its parent, and the core's refusals
come back as one line in the dialog."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Select, Static, TextArea

from qflow_tui.core.config import RunConfig
from qflow_tui.core.session import read_session
from qflow_tui.core.steer.fork import branch_point
from qflow_tui.locations import sessions_dir
from qflow_tui.ui.app import create_app
from qflow_tui.ui.screens.fork_dialog import ForkDialog
from qflow_tui.ui.screens.replay import ReplayScreen, replay_steps
from qflow_tui.ui.screens.run_screen import RunScreen
from tests.helpers import TestSandbox
from tests.steer.family import CountingClient, Family, make_family
from tests.ui.ui_fakes import load_responder
from tests.ui.ui_steps import shown_at, step_to

SIZE = (80, 24)


@pytest.fixture
def family() -> Family:
    return make_family(sessions_dir())


async def wait_for(pilot, condition, what: str) -> None:
    for _ in range(3000):
        if condition():
            return
        await pilot.pause()
    raise AssertionError(f"timed out waiting for {what}")


async def open_fork_dialog(pilot) -> ForkDialog:
    await pilot.press("f")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ForkDialog), "the fork dialog")
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, ForkDialog)
    return dialog


async def run_the_fork(pilot, parent_screen) -> RunScreen:
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, RunScreen) and pilot.app.screen is not parent_screen,
                   "the fork's run")  # fmt: skip
    screen = pilot.app.screen
    assert isinstance(screen, RunScreen)
    await wait_for(pilot, lambda: not screen.running, "the fork's run to end")
    return screen


def replay_app(path: Path, client: CountingClient, step: int):
    return create_app(
        RunConfig(model="script/qflow_tui/data/demo/responder.py"),
        client=client,
        sandbox=TestSandbox(),
        replay_path=path,
        replay_options={"step": step},
        remember_theme=False,
    )


async def test_a_fork_from_the_replay_screen_asks_the_model_nothing_before_the_branch(family: Family) -> None:
    parent = read_session(family.parent)
    point = branch_point(parent.events, "self_debug:1", 0)
    client = CountingClient()
    # Step 7 of the demo's replay is self-debug 1 of progression 0.
    async with replay_app(family.parent, client, 7).run_test(size=SIZE) as pilot:
        replay = pilot.app.screen
        assert isinstance(replay, ReplayScreen) and replay.steps[replay.current_step].step == "self_debug:1"
        dialog = await open_fork_dialog(pilot)
        assert dialog.step == "self_debug:1" and dialog.progression == 0
        assert dialog.query_one("#fork-model").value == "script/qflow_tui/data/demo/responder.py"  # type: ignore[attr-defined]
        # The recorded program of the step is there to edit; the verdict: reject.
        assert "def remove_Occ" in dialog.query_one("#fork-program", TextArea).text
        dialog.query_one("#fork-verdict", Select).value = "reject"
        await pilot.pause()
        fork_screen = await run_the_fork(pilot, replay)
        assert fork_screen.outcome is not None
        fork = read_session(fork_screen.session_path)  # type: ignore[arg-type]
    # Zero live calls before the branch: nothing the recording did before it was asked again.
    before = {step for step, _p in point.prefix_steps}
    asked_steps = {step for _agent, step, _p in client.asked}
    assert client.asked and not asked_steps & before, asked_steps & before
    assert fork_screen.client.replayed == len(point.prefix_calls)  # type: ignore[union-attr]
    assert fork_screen.client.live_before == []  # type: ignore[union-attr]
    # The fork names its parent and its edit; the parent is unchanged; the override is an event.
    assert fork.header["parent"] == {"session": str(family.parent), "forked_at": "self_debug:1", "progression": 0}
    assert fork.header["edits"] == ["quality verdict of progression 0 at self_debug:1: reject"]
    assert [e.after for e in fork.events if e.kind == "steered"] == ["reject"]
    assert read_session(family.parent).events[-1].to_dict() == parent.events[-1].to_dict()


async def test_a_program_edited_in_the_dialog_is_what_the_fork_carries_on_with(family: Family) -> None:
    client = CountingClient()
    edited = "def remove_Occ(s, ch):\n    # edited in the fork dialog\n    return s.replace(ch, '', 1)\n"
    async with replay_app(family.parent, client, 1).run_test(size=SIZE) as pilot:
        replay = pilot.app.screen
        dialog = await open_fork_dialog(pilot)
        assert dialog.step == "program_generator"
        dialog.query_one("#fork-progression", Select).value = 1
        await pilot.pause()
        dialog.query_one("#fork-program", TextArea).load_text(edited)
        fork_screen = await run_the_fork(pilot, replay)
        fork = read_session(fork_screen.session_path)  # type: ignore[arg-type]
    steered = [e for e in fork.events if e.kind == "steered"]
    assert [(e.what, e.step, e.progression, e.after) for e in steered] == [("program", "program_generator", 1, edited)]
    # The generator of progression 1 was not asked: the edit stood in for its answer.
    assert ("program_generator", "program_generator", 1) not in client.asked


async def test_the_dialog_says_in_one_line_why_the_core_refuses_a_fork(family: Family) -> None:
    steps = replay_steps(read_session(family.parent).events)
    design = next(s.number for s in steps if s.step == "test_designer")
    async with replay_app(family.parent, CountingClient(), design).run_test(size=SIZE) as pilot:
        replay = pilot.app.screen
        dialog = await open_fork_dialog(pilot)
        error = dialog.query_one("#fork-error", Static)
        # A shared step (test design) takes no edits.
        assert dialog.step == "test_designer"
        dialog.query_one("#fork-verdict", Select).value = "accept"
        await pilot.press("ctrl+s")
        assert pilot.app.screen is dialog and error.has_class("-error")
        assert "test_designer is a step of the whole run, not of a progression" in str(error.render())
        # A program that is not Python is refused with its line.
        dialog.query_one("#fork-step", Select).value = "self_debug:1"
        await pilot.pause()
        dialog.query_one("#fork-program", TextArea).load_text("def f(:\n    pass\n")
        await pilot.press("ctrl+s")
        assert pilot.app.screen is dialog
        assert "not valid Python (line 1" in str(error.render()) and "\n" not in str(error.render()).strip()
        await pilot.press("escape")
        assert pilot.app.screen is replay


async def test_a_live_run_forked_at_its_stop_takes_everything_so_far_from_its_session() -> None:
    parent_client = CountingClient(load_responder(), "tests/scripts/mbpp11.py")
    app = create_app(
        RunConfig(model="script/tests/scripts/mbpp11.py").replace(prompts=2),
        client=parent_client,
        sandbox=TestSandbox(),
        problem_text=None,
        stepping=True,
        clock=lambda: 0.0,
        remember_theme=False,
    )
    from qflow_tui.ui.screens.compose import EXAMPLE_STATEMENT, EXAMPLE_TESTS

    app.problem_text, app.tests_text = EXAMPLE_STATEMENT, EXAMPLE_TESTS
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, RunScreen), "the run")
        run = pilot.app.screen
        assert isinstance(run, RunScreen)
        await step_to(pilot, run, "check:self_debug:1", progression=0)
        asked_so_far = len(parent_client.asked)
        so_far = read_session(run.session_path)  # type: ignore[arg-type]
        finished = sum(1 for e in so_far.events if e.kind == "llm_call_finished")
        assert finished == asked_so_far > 0
        dialog = await open_fork_dialog(pilot)
        assert (dialog.step, dialog.progression, dialog.live) == ("self_debug:1", 0, True)
        dialog.query_one("#fork-verdict", Select).value = "reject"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, RunScreen) and pilot.app.screen is not run,
                       "the fork's run")  # fmt: skip
        fork_screen = pilot.app.screen
        assert isinstance(fork_screen, RunScreen)
        # The app runs in step mode: let the fork run free.
        await wait_for(pilot, lambda: fork_screen.waiting_at is not None or not fork_screen.running, "the fork's gate")
        await pilot.press("c")
        await wait_for(pilot, lambda: not fork_screen.running, "the fork's run to end")
        forked = read_session(fork_screen.session_path)  # type: ignore[arg-type]
        # Every call the parent had finished came from its session: the model was asked none again.
        assert fork_screen.client.replayed == finished  # type: ignore[union-attr]
        assert fork_screen.client.live_before == []  # type: ignore[union-attr]
        assert forked.header["parent"]["session"] == str(run.session_path)
        assert forked.header["forked_at"] == "self_debug:1"
        assert [e.after for e in forked.events if e.kind == "steered"] == ["reject"]
        # Back to the parent: still stopped where it was, and it can go on.
        await pilot.press("escape")
        assert pilot.app.screen is run and run.running and shown_at(run) == "check:self_debug:1"
        await pilot.press("c")
        await wait_for(pilot, lambda: not run.running, "the parent's run to end")
        assert run.outcome is not None and run.outcome.outcome == "accepted"
    assert read_session(run.session_path).header.get("parent") is None  # type: ignore[arg-type]


async def test_the_dialog_s_syntax_error_goes_once_the_program_is_fixed(family: Family) -> None:
    """Issue 57: the error said at ctrl+s stayed after the program was fixed."""
    async with replay_app(family.parent, CountingClient(), 7).run_test(size=SIZE) as pilot:
        dialog = await open_fork_dialog(pilot)
        error = dialog.query_one("#fork-error", Static)
        editor = dialog.query_one("#fork-program", TextArea)
        editor.load_text("def remove_Occ(s, ch)\n    return s\n")
        await pilot.press("ctrl+s")
        assert pilot.app.screen is dialog and error.has_class("-error")
        assert "not valid Python (line 1" in str(error.render())
        # The user adds the missing colon: the error goes as the text changes.
        editor.focus()
        editor.move_cursor((0, len("def remove_Occ(s, ch)")))
        await pilot.press("colon")
        await pilot.pause()
        assert editor.text.startswith("def remove_Occ(s, ch):")
        assert not error.has_class("-error")
        assert "not valid Python" not in str(error.render())
        assert "comes from the recording" in str(error.render())
        # Still wrong after an edit: the error is said again, for the text as it is now.
        await pilot.press("backspace")
        await pilot.pause()
        assert error.has_class("-error") and "not valid Python (line 1" in str(error.render())
