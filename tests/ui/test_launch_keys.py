"""Dialogs that launch work (a fork, a bench) start it only on their explicit
key (ctrl+s), never on a bare Enter from where they open: the keys typed next
must not land on a live run the person did not ask for (issue 57)."""

from __future__ import annotations

import pytest
from textual.widgets import Input, TextArea
from ui_app import SIZE
from ui_steps import wait_until

from qflow_tui.core.config import RunConfig
from qflow_tui.core.session import read_session
from qflow_tui.locations import sessions_dir
from qflow_tui.ui.app import create_app
from qflow_tui.ui.screens.bench_form import BenchForm
from qflow_tui.ui.screens.compose import ComposeScreen
from qflow_tui.ui.screens.fork_dialog import ForkDialog
from qflow_tui.ui.screens.replay import ReplayScreen, replay_steps
from qflow_tui.ui.screens.run_screen import RunScreen
from tests.helpers import TestSandbox
from tests.steer.family import CountingClient, Family, make_family


@pytest.fixture
def family() -> Family:
    return make_family(sessions_dir())


def replay_app(family: Family, client: CountingClient, step: int):
    return create_app(
        RunConfig(model="script/qflow_tui/data/demo/responder.py"),
        client=client,
        sandbox=TestSandbox(),
        replay_path=family.parent,
        replay_options={"step": step},
        remember_theme=False,
    )


async def open_dialog(pilot) -> ForkDialog:
    await pilot.press("f")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ForkDialog), "the fork dialog")
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, ForkDialog)
    return dialog


def no_run_started(app, client: CountingClient) -> bool:
    return not any(isinstance(s, RunScreen) for s in app.screen_stack) and client.asked == []


@pytest.mark.parametrize("step_name", ["self_debug:1", "test_designer"])
async def test_enter_in_the_fork_dialog_starts_no_fork(family: Family, step_name: str) -> None:
    """F2, a session, ``:`` to a step, ``f``, Enter: the dialog stays, nothing runs,
    and the run keys typed next (p, r, n) reach no run. With a program to edit
    the editor has the focus; at a step of the whole run, the model field."""
    steps = replay_steps(read_session(family.parent).events)
    number = next(s.number for s in steps if s.step == step_name)
    client = CountingClient()
    async with replay_app(family, client, number).run_test(size=SIZE) as pilot:
        replay = pilot.app.screen
        assert isinstance(replay, ReplayScreen)
        dialog = await open_dialog(pilot)
        focused = dialog.focused
        if step_name == "test_designer":
            assert isinstance(focused, Input) and focused.id == "fork-model"
        else:
            assert isinstance(focused, TextArea) and focused.id == "fork-program"
        await pilot.press("enter", "p", "r", "n")
        await pilot.pause()
        assert pilot.app.screen is dialog
        assert no_run_started(pilot.app, client)
        # The explicit key still forks.
        await pilot.press("escape")
        await wait_until(pilot, lambda: pilot.app.screen is replay, "back on the replay")
        await open_dialog(pilot)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, RunScreen), "the fork's run")
        screen = pilot.app.screen
        assert isinstance(screen, RunScreen)
        await wait_until(pilot, lambda: not screen.running, "the fork's run to end", limit=20000)


async def test_enter_in_the_bench_form_starts_no_bench() -> None:
    """The bench form opens on its Problems field: Enter there (or in any
    field) starts nothing; ctrl+s is the form's Start."""
    app = create_app(
        RunConfig(model="script/bench/canonical_model.py", workflow="zeroshot"), clock=lambda: 0.0, remember_theme=False
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen) and app.screen.ready, "the form")
        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: isinstance(app.screen, BenchForm), "the bench form")
        form = app.screen
        assert isinstance(form, BenchForm)
        assert isinstance(form.focused, Input) and form.focused.id == "bench-problems"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is form and form.preparing is None
        # Enter moved on to the next field, where a second Enter starts nothing either.
        assert isinstance(form.focused, Input) and form.focused.id == "bench-model"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is form and form.preparing is None
        form.query_one("#bench-out", Input).value = "/nonexistent/\0bad"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: form.preparing is not None, "ctrl+s to start the bench")
        worker = form.preparing
        assert worker is not None
        await wait_until(pilot, lambda: worker.is_finished, "the form's answer")
