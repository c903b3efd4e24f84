"""m after a run (issue 57): the same problem and settings again on a model the
user names; a wrong name or a missing key is one line in the dialog, and
nothing starts until the name is one the app can run."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Static
from ui_app import SIZE, build_app
from ui_steps import finish_run, start_run, wait_until

from qflow_tui.ui.screens.model_prompt import ModelPrompt
from qflow_tui.ui.screens.run_screen import RunScreen

DEMO = "script/qflow_tui/data/demo/responder.py"


async def test_m_runs_the_problem_again_on_the_model_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        first = await start_run(pilot)
        await finish_run(pilot)
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPrompt), "the model prompt")
        prompt = app.screen
        field = prompt.query_one("#model-name", Input)
        assert field.value == first.config.model and field.has_focus
        error = prompt.query_one("#model-prompt-error", Static)
        for name, said in (("anthropic/claude-sonnet-4-5", "set ANTHROPIC_API_KEY"), ("nosuch/model", "✗ ")):
            field.value = name
            await pilot.press("enter")
            await pilot.pause()
            assert app.screen is prompt and said in str(error.render()), str(error.render())
        field.value = DEMO
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: isinstance(app.screen, RunScreen) and app.screen is not first, "the new run screen"
        )
        again = app.screen
        assert isinstance(again, RunScreen)
        assert again.config.model == DEMO and again.problem == first.problem
        assert again.config.replace(model=first.config.model) == first.config  # the same settings otherwise
        await finish_run(pilot)
