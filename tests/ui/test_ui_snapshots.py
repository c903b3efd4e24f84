"""Snapshots of the screens a user cares about, one class per feature.

Every run is the MBPP No. 11 script model with an in-process sandbox and a
frozen clock; runs frozen mid-stream block on an asyncio.Event, never on time.
Toasts are cleared before a snapshot (they name session files)."""

from __future__ import annotations

from ui_app import SIZE, WIDE, build_app
from ui_fakes import FreezingClient, always_wrong_client, load_responder
from ui_steps import at_rest, finish_run, settle, start_run, step_to, wait_for_gate, wait_until

from qflow_tui.core.config import RunConfig


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
            assert await step_to(pilot, screen, "quality_check:program_generator", 0) == 6
            await pilot.press("1")
            await settle(pilot)

        assert snap_compare(build_app(stepping=True), terminal_size=SIZE, run_before=run_before)


class TestResults:
    def test_imagined_execution_pane(self, snap_compare):
        async def run_before(pilot):
            await start_run(pilot)
            await finish_run(pilot)
            await pilot.press("3")
            await settle(pilot)

        assert snap_compare(build_app(), terminal_size=SIZE, run_before=run_before)

    def test_tests_table_with_tqc_verdicts(self, snap_compare):
        async def run_before(pilot):
            await start_run(pilot)
            await finish_run(pilot)
            await pilot.press("4")
            await pilot.press("down", "down", "down", "down", "down", "down", "down", "down", "down")
            await settle(pilot)

        assert snap_compare(build_app(), terminal_size=SIZE, run_before=run_before)

    def test_accepted_result(self, snap_compare):
        async def run_before(pilot):
            await start_run(pilot)
            await finish_run(pilot)
            await settle(pilot)

        assert snap_compare(build_app(), terminal_size=SIZE, run_before=run_before)

    def test_reverted_result(self, snap_compare):
        async def run_before(pilot):
            await start_run(pilot)
            await finish_run(pilot)
            await settle(pilot)

        config = RunConfig(model="script/tests/scripts/mbpp11.py", prompts=2, clarify=1)
        assert snap_compare(build_app(always_wrong_client(), config=config), terminal_size=SIZE, run_before=run_before)


class TestThemes:
    def test_light_theme_wide(self, snap_compare):
        async def run_before(pilot):
            await start_run(pilot)
            await finish_run(pilot)
            await settle(pilot)

        # One progression: with six, whether the others' last cells read ACCEPT or
        # "stopped" depends on timing (work the rule no longer needs is cancelled).
        config = RunConfig(model="script/tests/scripts/mbpp11.py", theme="qflow-light", prompts=1)
        assert snap_compare(build_app(config=config), terminal_size=WIDE, run_before=run_before)
