"""Run the shown program by hand (issue 57's High, as a judge's page offers):
``o`` on the run screen and in a replay (shown in the 80x24 footer, and in the
command palette) runs the selected progression's program in the sandbox on the
samples, or on input the user types, each output beside the expected one."""

from __future__ import annotations

from test_resize import footer_keys
from test_visible_line import demo_app, run_to_end
from textual.widgets import TextArea
from ui_app import SIZE, build_app, replay_app
from ui_steps import finish_run, start_run, wait_until
from wf_streams import screen_text

from qflow_tui.core.problem import make_io_problem
from qflow_tui.ui.screens.replay import ReplayScreen
from qflow_tui.ui.screens.try_run import TryScreen
from qflow_tui.ui.widgets.run_view import RunView


async def open_dialog(pilot) -> TryScreen:
    await pilot.press("o")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, TryScreen), "the run-it dialog")
    dialog = pilot.app.screen
    assert isinstance(dialog, TryScreen)
    return dialog


async def ran(pilot, dialog: TryScreen, on: str) -> None:
    await wait_until(pilot, lambda: dialog.report is not None and dialog.report.on == on, f"the run on {on}")
    await pilot.pause()


async def test_a_stdin_program_runs_on_the_samples_and_on_typed_input_at_80x24() -> None:
    app = demo_app("zeroshot")  # the demo model's program never reads its input
    async with app.run_test(size=SIZE) as pilot:
        await run_to_end(pilot)
        await pilot.pause()
        assert "Run" in footer_keys(app)
        assert "Run" in {c.title for c in app.get_system_commands(app.screen)}
        dialog = await open_dialog(pilot)
        await ran(pilot, dialog, "samples")
        text = screen_text(app)
        assert "0/2 samples pass" in text and "it never read its input" in text, text
        assert "expected" in text and "got" in text
        assert dialog.query_one("#try-input", TextArea).has_focus
        # The program is MBPP 11's function: on any input it prints nothing.
        await pilot.press(*"5 6")
        await pilot.press("ctrl+r")
        await ran(pilot, dialog, "input")
        assert dialog.report is not None
        assert [(r.given, r.got, r.verdict) for r in dialog.report.rows] == [("5 6", "", "ran")]
        assert "ran on your input" in screen_text(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, TryScreen), "the dialog to close")


async def test_a_function_program_runs_its_asserts_and_a_typed_call_in_a_replay() -> None:
    app = build_app()  # MBPP 11 and its script model
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await finish_run(pilot)
        dialog = await open_dialog(pilot)
        await ran(pilot, dialog, "samples")
        assert "3/3 visible asserts pass" in screen_text(app)
        session = screen.session_path
    replay = replay_app(session)
    async with replay.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(replay.screen, ReplayScreen), "the replay")
        await pilot.press("i")
        await wait_until(pilot, lambda: replay.screen.query_one(RunView).state.finished is not None, "the end")
        assert "Run" in footer_keys(replay)
        dialog = await open_dialog(pilot)
        await ran(pilot, dialog, "samples")
        await pilot.press(*'"hello","l"')
        await pilot.press("ctrl+r")
        await ran(pilot, dialog, "input")
        assert dialog.report is not None
        (row,) = dialog.report.rows
        assert (row.given, row.got) == ('remove_Occ("hello","l")', "'heo'"), row
        assert "'heo'" in screen_text(replay)


async def test_before_any_program_the_key_says_why_in_one_line() -> None:
    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        view = screen.query_one(RunView)
        view.state.reset()  # as before the first program arrives
        screen.action_try_program()
        await pilot.pause()
        assert not isinstance(app.screen, TryScreen)
        await finish_run(pilot)


async def test_what_the_program_printed_is_never_markup() -> None:
    app = build_app()
    problem = make_io_problem("Print.", [("1\n", "[b]x[/b]\n")])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        dialog = TryScreen(problem, "input()\nprint('[red]x[/red] \\x1b[2J')\n", "a test program")
        app.push_screen(dialog)
        await ran(pilot, dialog, "samples")
        text = screen_text(app)
        assert "[red]x[/red]" in text and "[b]x[/b]" in text, text
