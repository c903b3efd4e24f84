import asyncio

import pytest

from qflow_tui.core.config import ConfigError, RunConfig, save_setting
from qflow_tui.core.steer.gate import StepGate, Stop
from qflow_tui.core.workflows.qualityflow import EPOCHS, PROMPTS
from qflow_tui.core.workflows.values import load_config, recorded_config, resolved_settings


def test_paper_defaults():
    c = RunConfig()
    settings = resolved_settings(c)
    assert [settings[k] for k in ("prompts", "epochs", "clarify", "tqc")] == [6, 3, 3, True]
    assert [settings[k] for k in ("test_rounds", "tests_per_round", "max_tests")] == [5, 10, 50]
    assert (c.temperature, settings["test_designer_temperature"]) == (0.0, 0.1)
    assert settings["checker"] == "imagined"


def test_precedence_file_then_env_then_flags(tmp_path):
    f = tmp_path / "config.toml"
    f.write_text('[run]\nmodel = "openai/gpt-4.1"\n[workflow.qualityflow]\nepochs = 2\nprompts = 4\n')
    c = load_config(f, env={"QFLOW_EPOCHS": "1"}, overrides={"prompts": 3})
    assert (c.model, EPOCHS.of(c), PROMPTS.of(c)) == ("openai/gpt-4.1", 1, 3)


@pytest.mark.parametrize(
    "body,message",
    [
        ("epochs = 'x'", "whole number"),
        ("colour = 1", "unknown setting 'colour'"),
        ("checker = 'magic'", "choose one of"),
        ("effort = 'extreme'", "effort 'extreme': give one of low, medium, high, xhigh, max"),
        ("prompts = 9", "6 prompt variants"),
        ("this is not toml", "not valid TOML"),
    ],
)
def test_bad_config_file_says_which_setting(tmp_path, body, message):
    f = tmp_path / "config.toml"
    f.write_text(body)
    with pytest.raises(ConfigError, match=message):
        load_config(f, env={})


def test_save_setting_keeps_the_users_comments_and_layout(tmp_path):
    f = tmp_path / "config.toml"
    text = '# my settings\n[run]\nmodel = "openai/gpt-4.1"  # the one I pay for\n\n# darker at night\ntheme = "qflow-dark"\n'
    f.write_text(text, encoding="utf-8")
    save_setting("theme", "qflow-light", f)
    assert f.read_text(encoding="utf-8") == text.replace('"qflow-dark"', '"qflow-light"')
    assert load_config(f, env={}).theme == "qflow-light"


def test_save_setting_leaves_a_broken_file_alone(tmp_path):
    f = tmp_path / "config.toml"
    f.write_text("[run\nmodel = 'x'\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        save_setting("theme", "qflow-light", f)
    assert f.read_text(encoding="utf-8") == "[run\nmodel = 'x'\n"


def test_the_theme_is_not_a_setting_of_the_run():
    assert "theme" not in recorded_config(RunConfig(theme="qflow-light"))


def test_save_setting_keeps_other_settings(tmp_path):
    f = tmp_path / "c" / "config.toml"
    save_setting("model", "openai/gpt-4.1", f)
    save_setting("theme", "qflow-light", f)
    c = load_config(f, env={})
    assert (c.model, c.theme) == ("openai/gpt-4.1", "qflow-light")


async def test_step_gate_lets_one_step_through_at_a_time():
    waits: list[str] = []
    gate = StepGate(stepping=True, on_wait=lambda stop: waits.append(stop.step))
    passed: list[str] = []

    async def workflow():
        for step in ("a", "b", "c"):
            await gate.checkpoint(Stop(step))
            passed.append(step)

    task = asyncio.create_task(workflow())
    await asyncio.sleep(0)
    assert passed == [] and waits == ["a"]
    await gate.step()
    for _ in range(3):
        await asyncio.sleep(0)
    assert passed == ["a"] and gate.waiting_at == "b"
    await gate.resume()
    await asyncio.wait_for(task, 1)
    assert passed == ["a", "b", "c"]


async def test_a_step_lets_through_the_stop_announced_not_one_arriving_after():
    gate = StepGate(stepping=True)
    passed: list[str] = []
    release = asyncio.Event()

    async def stop(step: str, progression: int | None, after: asyncio.Event | None = None) -> None:
        if after is not None:
            await after.wait()
        await gate.checkpoint(Stop(step, progression))
        passed.append(step)

    check = asyncio.create_task(stop("check", 0))
    shared = asyncio.create_task(stop("designer", None, after=release))
    await asyncio.sleep(0)
    assert gate.waiting_at == "check"
    # The shared step comes to the gate just as the check is stepped: it is
    # earlier in the gate's order, yet the step was for the check.
    release.set()
    await gate.step()
    for _ in range(5):
        await asyncio.sleep(0)
    assert passed == ["check"] and gate.waiting_at == "designer"
    await gate.step()
    await asyncio.wait_for(asyncio.gather(check, shared), 1)
    assert passed == ["check", "designer"]


async def test_a_step_with_no_stop_announced_is_not_kept_for_the_next():
    gate = StepGate(stepping=True)
    await gate.step()  # nothing waits yet: a person pressed n while a step ran
    passed: list[str] = []

    async def stop() -> None:
        await gate.checkpoint(Stop("check", 0))
        passed.append("check")

    task = asyncio.create_task(stop())
    for _ in range(3):
        await asyncio.sleep(0)
    assert passed == [] and gate.waiting_at == "check"
    await gate.step()
    await asyncio.wait_for(task, 1)
    assert passed == ["check"]


async def test_step_gate_lets_progressions_through_round_by_round():
    """Concurrent progressions pass one per step(), every k-th step before any
    (k+1)-th, the lowest index first, whatever order they arrive in."""
    waits: list[tuple[str, int | None]] = []
    gate = StepGate(stepping=True, on_wait=lambda stop: waits.append((stop.step, stop.progression)))
    passed: list[tuple[str, int]] = []

    async def progression(index: int) -> None:
        for step in ("generate", "check"):
            await gate.checkpoint(Stop(step, index))
            passed.append((step, index))

    tasks = [asyncio.create_task(progression(i)) for i in (2, 0, 1)]
    for _ in range(5):
        await asyncio.sleep(0)
    assert passed == [] and (gate.waiting_at, gate.waiting_progression) == ("generate", 0)
    for _ in range(6):
        await gate.step()
        for _ in range(5):
            await asyncio.sleep(0)
    await asyncio.wait_for(asyncio.gather(*tasks), 1)
    expected = [("generate", 0), ("generate", 1), ("generate", 2), ("check", 0), ("check", 1), ("check", 2)]
    assert passed == expected
    # Each new head of the queue was announced once, in that order.
    assert waits == [("generate", 2), ("generate", 0), *expected[1:]]
