"""Snapshots of the screens a user cares about, one class per feature.

Every run is the MBPP No. 11 script model with an in-process sandbox and a
frozen clock; runs frozen mid-stream block on an asyncio.Event, never on time.
Toasts are cleared before a snapshot (they name session files)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from ui_app import SIZE, WIDE, build_app, replay_app
from ui_fakes import FreezingClient, InProcessSandbox, always_wrong_client, load_responder, mbpp11_client
from ui_steps import at_rest, finish_run, settle, start_run, step_to, wait_for_gate, wait_until

from qflow_tui.core import events as events_module
from qflow_tui.core import workflow_run as runner_module
from qflow_tui.core.config import RunConfig
from qflow_tui.core.problem import make_problem
from qflow_tui.core.workflow_run import run_workflow
from qflow_tui.ui.screens.compose import EXAMPLE_STATEMENT, EXAMPLE_TESTS


class TestCompose:
    def test_compose_screen(self, snap_compare):
        assert snap_compare(build_app(), terminal_size=SIZE, run_before=at_rest)

    def test_compose_screen_agentcoder(self, snap_compare):
        async def run_before(pilot):
            await at_rest(pilot)
            pilot.app.screen.query_one("#workflow").value = "agentcoder"
            await pilot.pause()

        assert snap_compare(build_app(), terminal_size=SIZE, run_before=run_before)

    def test_bad_input_inline(self, snap_compare):
        async def run_before(pilot):
            await pilot.pause()
            pilot.app.screen.query_one("#tests").load_text("remove_Occ('hello', 'l')\n")
            await pilot.press("ctrl+r")
            await settle(pilot)

        assert snap_compare(build_app(), terminal_size=SIZE, run_before=run_before)


class TestLiveRun:
    def test_run_midway_streaming(self, snap_compare):
        client = FreezingClient(load_responder(), "self_debugger")

        async def run_before(pilot):
            await start_run(pilot)
            await wait_until(pilot, lambda: client.blocked == 6, "six self-debuggers streaming")
            await settle(pilot)

        assert snap_compare(build_app(client), terminal_size=SIZE, run_before=run_before)

    def test_run_midway_wide(self, snap_compare):
        client = FreezingClient(load_responder(), "self_debugger")

        async def run_before(pilot):
            await start_run(pilot)
            await wait_until(pilot, lambda: client.blocked == 6, "six self-debuggers streaming")
            await settle(pilot)

        assert snap_compare(build_app(client), terminal_size=WIDE, run_before=run_before)

    def test_step_mode_paused(self, snap_compare):
        async def run_before(pilot):
            screen = await start_run(pilot)
            await wait_for_gate(pilot, screen, "program_generator")
            assert await step_to(pilot, screen, "check:program_generator", 0) == 6
            await pilot.press("1")
            await settle(pilot)

        assert snap_compare(build_app(stepping=True), terminal_size=SIZE, run_before=run_before)


class TestCost:
    """The cost so far while a priced model streams (the config file prices the
    script model), at both sizes: it stands before the tokens, so 80 columns
    still show it, and the rest ends in an ellipsis."""

    @pytest.fixture(autouse=True)
    def _priced(self):
        folder = Path(os.environ["QFLOW_CONFIG_DIR"])
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "config.toml").write_text(
            '[prices."script/tests/scripts/mbpp11.py"]\ninput = 3.0\noutput = 15.0\n', encoding="utf-8"
        )

    @pytest.mark.parametrize("size", [SIZE, WIDE], ids=["80x24", "160x48"])
    def test_cost_while_streaming(self, snap_compare, size):
        client = FreezingClient(load_responder(), "self_debugger")

        async def run_before(pilot):
            await start_run(pilot)
            await wait_until(pilot, lambda: client.blocked == 6, "six self-debuggers streaming")
            await settle(pilot)

        assert snap_compare(build_app(client), terminal_size=size, run_before=run_before)


@pytest.fixture(scope="module")
def six_progressions(tmp_path_factory) -> Path:
    """The example's six-progression run, recorded once per test process with the
    same script model, sandbox and problem the app's Run uses, at a frozen clock
    (every event at one time, so the replay's clock reads the same each time).
    The results are snapshotted through replay: tests/sessions proves a replay
    ends in the very state of the live run, and running the workflow in the app
    for each snapshot was most of their time."""
    folder = tmp_path_factory.mktemp("six-progressions")
    frozen = SimpleNamespace(time=lambda: 1_700_000_000.0, monotonic=lambda: 0.0)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(events_module, "time", frozen)
        mp.setattr(runner_module, "time", frozen)
        outcome = asyncio.run(
            run_workflow(
                make_problem(EXAMPLE_STATEMENT, EXAMPLE_TESTS),
                RunConfig(model="script/tests/scripts/mbpp11.py"),
                client=mbpp11_client(),
                sandbox=InProcessSandbox(),
                session_dir=folder,
            )
        )
    assert outcome.outcome == "accepted"
    return Path(outcome.session)


class TestResults:
    def test_imagined_execution_pane(self, snap_compare, six_progressions):
        async def run_before(pilot):
            await pilot.press("3")
            await settle(pilot)

        assert snap_compare(replay_app(six_progressions), terminal_size=SIZE, run_before=run_before)

    def test_tests_table_with_tqc_verdicts(self, snap_compare, six_progressions):
        async def run_before(pilot):
            await pilot.press("4")
            await pilot.press("down", "down", "down", "down", "down", "down", "down", "down", "down")
            await settle(pilot)

        assert snap_compare(replay_app(six_progressions), terminal_size=SIZE, run_before=run_before)

    def test_accepted_result(self, snap_compare, six_progressions):
        assert snap_compare(replay_app(six_progressions), terminal_size=SIZE, run_before=settle)

    def test_reverted_result(self, snap_compare):
        async def run_before(pilot):
            await start_run(pilot)
            await finish_run(pilot)
            await settle(pilot)

        config = RunConfig(model="script/tests/scripts/mbpp11.py").replace(prompts=2, clarify=1)
        assert snap_compare(build_app(always_wrong_client(), config=config), terminal_size=SIZE, run_before=run_before)


class TestThemes:
    def test_light_theme_wide(self, snap_compare):
        async def run_before(pilot):
            await start_run(pilot)
            await finish_run(pilot)
            await settle(pilot)

        # One progression: with six, whether the others' last cells read ACCEPT or
        # "stopped" depends on timing (work the rule no longer needs is cancelled).
        config = RunConfig(model="script/tests/scripts/mbpp11.py", theme="qflow-light").replace(prompts=1)
        assert snap_compare(build_app(config=config), terminal_size=WIDE, run_before=run_before)
