"""The settings screen (F5) and the welcome dialog's "don't show again" (issue
57): what a user sets once is saved in the config file the app reads (the
``[run]`` table for the model, workflow and theme, ``[app]`` for the app's own
preferences), applied at once where it can be, and a bad value is one line on
the form with nothing written."""

from __future__ import annotations

import tomllib

import pytest
from textual.widgets import Input, Select, Static
from ui_app import SIZE, build_app
from ui_steps import wait_until

from qflow_tui.core.app_prefs import AppPrefs, load_prefs, save_prefs
from qflow_tui.core.config import ConfigError, RunConfig
from qflow_tui.core.workflows.values import load_config
from qflow_tui.locations import config_file
from qflow_tui.ui import first_minute
from qflow_tui.ui.app import create_app
from qflow_tui.ui.screens.compose import ComposeScreen
from qflow_tui.ui.screens.settings import SettingsScreen
from qflow_tui.ui.screens.ways_in import FirstMinuteScreen
from qflow_tui.ui.widgets.tick_box import TickBox


def _file() -> dict:
    return tomllib.loads(config_file().read_text(encoding="utf-8"))


async def _open(pilot) -> SettingsScreen:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen) and app.screen.ready, "the form")
    await pilot.press("f5")
    await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen), "the settings")
    return app.screen


async def test_bad_values_are_one_line_and_nothing_is_written():
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        error = screen.query_one("#settings-error", Static)
        screen.query_one("#settings-max-cost", Input).value = "lots"
        await pilot.press("ctrl+s")
        assert app.screen is screen and error.has_class("-error")
        said = str(error.render())
        assert "Bench cost cap: US dollars, e.g. 5 or 0.50, not 'lots'" in said and "\n" not in said.strip()
        assert screen.query_one("#settings-max-cost").has_class("-invalid")
        screen.query_one("#settings-max-cost", Input).value = "-2"
        await pilot.press("ctrl+s")
        assert "above 0 US dollars" in str(error.render())
        screen.query_one("#settings-max-cost", Input).value = ""
        screen.query_one("#settings-model", Input).value = "nosuch"
        await pilot.press("ctrl+s")
        assert app.screen is screen and "Model: unknown model 'nosuch'" in str(error.render())
        assert screen.query_one("#settings-model").has_class("-invalid")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen), "back on the form")
    assert not config_file().exists()


async def test_saved_settings_are_in_the_config_file_and_apply_at_once():
    config_file().parent.mkdir(parents=True, exist_ok=True)
    config_file().write_text("# my settings\n[run]\nmax_tokens = 2048\n", encoding="utf-8")
    app = build_app(config=load_config().replace(model="script/tests/scripts/mbpp11.py"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        screen.query_one("#settings-model", Input).value = "openai/gpt-4.1"
        screen.query_one("#settings-workflow", Select).value = "zeroshot"
        screen.query_one("#settings-theme", Select).value = "qflow-light"
        screen.query_one("#settings-max-cost", Input).value = "$5"
        screen.query_one("#settings-step", TickBox).value = True
        screen.query_one("#settings-welcome", TickBox).value = False
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen), "back on the form")
        assert app.stepping and app.theme == "qflow-light"
        assert app.config.model == "openai/gpt-4.1" and app.config.workflow == "zeroshot"
        assert app.prefs == AppPrefs(welcome=False, step_mode=True, bench_max_cost=5.0)
    text = config_file().read_text(encoding="utf-8")
    assert text.startswith("# my settings\n")  # the user's file is kept as they wrote it
    data = _file()
    assert data["run"]["max_tokens"] == 2048 and data["run"]["model"] == "openai/gpt-4.1"
    assert data["run"]["workflow"] == "zeroshot" and data["run"]["theme"] == "qflow-light"
    assert data["app"] == {"welcome": False, "step_mode": True, "bench_max_cost": 5.0}
    # What the next start reads: the run settings and the preferences.
    config = load_config()
    assert (config.model, config.workflow, config.max_tokens) == ("openai/gpt-4.1", "zeroshot", 2048)
    assert load_prefs().step_mode
    # And the next app: step mode on, the bench form's cap filled in.
    again = build_app()
    assert again.stepping and again.prefs.bench_max_cost == 5.0


async def test_the_bench_form_starts_with_the_settings_cost_cap():
    from qflow_tui.ui.screens.bench_form import BenchForm

    save_prefs({"bench_max_cost": 2.5})
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen) and app.screen.ready, "the form")
        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: isinstance(app.screen, BenchForm), "the bench form")
        assert app.screen.query_one("#bench-max-cost", Input).value == "2.5"


@pytest.fixture
def nothing_local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(first_minute, "local_model_ready", lambda: False)


async def test_x_on_the_welcome_dialog_keeps_it_from_showing_again(nothing_local):
    app = create_app(RunConfig(), env={}, clock=lambda: 0.0, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, FirstMinuteScreen), "the welcome dialog")
        assert "x don't show again" in " ".join(str(w.render()) for w in app.screen.query(Static))
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen), "the form")
        assert "will not show again" in app.message_log[-1].message
    assert _file()["app"]["welcome"] is False
    again = create_app(RunConfig(), env={}, clock=lambda: 0.0, remember_theme=False)
    async with again.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(again.screen, ComposeScreen) and again.screen.ready, "the form")
        await pilot.pause()
        assert not any(isinstance(s, FirstMinuteScreen) for s in again.screen_stack)
        said = [m.message for m in again.message_log]
        assert any("the form holds script/" in m and "F5" in m for m in said), said
        # F5 brings it back.
        await pilot.press("f5")
        await wait_until(pilot, lambda: isinstance(again.screen, SettingsScreen), "the settings")
        # The default model as configured, not the script model standing in for it.
        assert again.screen.query_one("#settings-model", Input).value == RunConfig.model
        box = again.screen.query_one("#settings-welcome", TickBox)
        assert box.value is False
        box.value = True
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(again.screen, ComposeScreen), "back on the form")
    assert _file()["app"]["welcome"] is True
    assert "model" not in _file().get("run", {})  # unchanged: the script model was not made the default


async def test_a_bad_hand_edited_preference_is_one_line_and_the_app_starts():
    config_file().parent.mkdir(parents=True, exist_ok=True)
    config_file().write_text('[run]\nmax_tokens = 1000\n[app]\nstep_mode = "yes"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[app\]: step_mode must be true or false, not 'yes'"):
        load_prefs()
    assert load_config().max_tokens == 1000  # the run settings still read: [app] is the app's
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen) and app.screen.ready, "the form")
        said = [m.message for m in app.message_log]
        assert any("step_mode must be true or false" in m and "F5" in m for m in said), said
        assert app.prefs == AppPrefs()


def test_the_settings_screen_at_80x24(snap_compare, monkeypatch):
    # The form names the config file: one path for every run of the test (nothing is written).
    monkeypatch.setenv("QFLOW_CONFIG_DIR", "/nonexistent/qflow-config")

    async def open_it(pilot) -> None:
        await _open(pilot)
        await pilot.pause()

    assert snap_compare(build_app(remember_theme=False), terminal_size=SIZE, run_before=open_it)
