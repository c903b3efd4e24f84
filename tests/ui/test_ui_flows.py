"""The flows a user goes through, driven with Textual's pilot: compose -> run ->
accepted, step mode, pause, cancel, bad input shown inline, loading problems,
saving the program, the theme remembered, every action in the palette."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from textual.pilot import Pilot
from ui_app import SIZE, build_app
from ui_fakes import FreezingClient, load_responder
from ui_steps import finish_run, start_run, wait_for_gate, wait_until

from qflow_tui.core.config import RunConfig
from qflow_tui.core.pieces import ImaginedChecks, SynthTests
from qflow_tui.core.steer.gate import Stop
from qflow_tui.core.workflows.values import load_config
from qflow_tui.locations import sessions_dir
from qflow_tui.ui.messages import GateWaiting
from qflow_tui.ui.screens.compose import ComposeScreen
from qflow_tui.ui.screens.run_screen import RunScreen
from qflow_tui.ui.widgets.run_view import RunView

#: Two progressions are enough to exercise the flows, and keep the suite quick.
FAST = RunConfig(model="script/tests/scripts/mbpp11.py").replace(prompts=2)


def session_events(path) -> list[dict]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[1:]]


async def test_compose_run_accepted():
    app = build_app(config=FAST)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        view = await finish_run(pilot)
        assert view.state.finished is not None
        assert view.state.finished.outcome == "accepted"
        assert view.state.finished.accepted_at == "self_debug:1"
        banner = str(view.query_one("#program-banner").render())
        assert "ACCEPTED at self_debug:1" in banner
        assert view.query_one("#run-tabs").active == "tab-program"
        assert "rfind" in view.program_text()
        assert screen.outcome is not None and screen.outcome.session == str(screen.session_path)
        # The session was written as the run went, and ends with the result.
        events = session_events(screen.session_path)
        assert events[0]["kind"] == "run_started" and events[-1]["kind"] == "run_finished"
        # The script's two wrong synthesized tests are the ones the TQC rejects.
        assert [s.verdict for s in view.state.piece(SynthTests).tests].count("rejected") == 2
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ComposeScreen)


async def test_step_mode_advances_one_step_at_a_time():
    app = build_app(stepping=True, config=FAST)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        view = screen.query_one(RunView)
        await wait_for_gate(pilot, screen, "program_generator")
        assert view.state.llm_calls == 0
        assert "before generate" in str(view.query_one("#run-progress").render())
        # Progressions pass the gate one at a time: lowest index first.
        await pilot.press("n")
        await wait_for_gate(pilot, screen, "program_generator", 1)
        view.flush()
        assert view.state.tokens["program_generator"].calls == 1
        assert "before generate (p1)" in str(view.query_one("#run-progress").render())
        await pilot.press("n")
        await wait_for_gate(pilot, screen, "check:program_generator", 0)
        view.flush()
        # One program per progression, no quality check yet; every pane can be looked at.
        assert view.state.tokens["program_generator"].calls == 2
        assert "code_quality_checker" not in view.state.tokens
        for key in ("1", "2", "3", "4", "5", "]", "["):
            await pilot.press(key)
        assert view.progression == 0
        # Progression 0, rejected, needs the synthesized tests: they are designed
        # before any progression's second check. While progression 0's check runs
        # the gate shows progression 1's, already waiting; once the check has
        # decided, the test designer's stop goes first.
        await pilot.press("n")

        def decided() -> bool:
            cell = view.state.cells.get(("program_generator", 0))
            return cell is not None and cell.decision is not None

        await wait_until(pilot, decided, "progression 0's first check")
        await wait_for_gate(pilot, screen, "test_designer")
        view.flush()
        assert view.state.cells[("program_generator", 0)].decision == "continue"
        assert view.state.piece(SynthTests).designed == 0
        await pilot.press("n")
        await wait_for_gate(pilot, screen, "test_quality_checker")
        view.flush()
        assert view.state.piece(SynthTests).designed == 10
        await pilot.press("c")
        view = await finish_run(pilot)
        assert view.state.finished is not None and view.state.finished.outcome == "accepted"


@asynccontextmanager
async def stopped_at_the_first_generator() -> AsyncIterator[tuple[Pilot, RunScreen]]:
    """A step-mode run held before progression 0's generator; run free to the end after."""
    app = build_app(stepping=True, config=FAST)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await wait_for_gate(pilot, screen, "program_generator", 0)
        yield pilot, screen
        await pilot.press("c")
        await finish_run(pilot)


async def test_a_step_key_between_stops_is_not_kept_for_a_stop_not_shown_yet():
    async with stopped_at_the_first_generator() as (pilot, screen):
        # Two presses before the gate shows its next stop: the first lets
        # progression 0's generator through, the second has nothing shown to step
        # (kept, it would let progression 1's generator through unseen).
        await screen.action_step()
        await screen.action_step()
        await wait_until(pilot, lambda: screen.waiting_at is not None, "the next stop")
        assert (screen.waiting_at, screen.gate.waiting_progression) == ("program_generator", 1)


async def test_a_late_gate_message_shows_the_stop_the_gate_holds():
    async with stopped_at_the_first_generator() as (pilot, screen):
        # A gate message arrives late (its stop long shown): the screen shows
        # what the gate holds when it handles the message.
        screen.post_message(GateWaiting())
        await pilot.pause()
        assert screen.waiting_at == "program_generator"
        progress = str(screen.query_one("#run-progress").render())
        assert "before generate (p0)" in progress and "design tests" not in progress


async def test_a_step_key_lets_through_only_the_stop_shown():
    async with stopped_at_the_first_generator() as (_pilot, screen):
        # A shared step comes to the gate after progression 0's generator was
        # shown, and goes first in the gate's order; n is pressed before the
        # screen has heard of it.
        shared = asyncio.create_task(screen.gate.checkpoint(Stop("test_designer", None, "test_designer")))
        await asyncio.sleep(0)
        assert screen.gate.waiting_at == "test_designer" and screen.waiting_at == "program_generator"
        await screen.action_step()
        # Nothing went through unseen: the screen now shows the shared step.
        assert not shared.done()
        assert screen.waiting_at == "test_designer"
        assert "before design tests" in str(screen.query_one("#run-progress").render())
        await screen.action_step()
        await shared


async def test_pause_stops_at_the_next_step():
    client = FreezingClient(load_responder(), "self_debugger")
    app = build_app(client, config=FAST)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await wait_until(pilot, lambda: client.blocked == 2, "the self-debuggers")
        await pilot.press("p")
        client.release.set()
        await wait_for_gate(pilot, screen, "check:self_debug:1", 0)
        assert screen.running
        await pilot.press("c")
        view = await finish_run(pilot)
        assert view.state.finished is not None


async def test_cancel_mid_run_keeps_the_session():
    client = FreezingClient(load_responder(), "self_debugger")
    app = build_app(client, config=FAST)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await wait_until(pilot, lambda: client.blocked == 2, "the self-debuggers")
        await pilot.press("x", "y")  # cancel, and yes to the question
        view = await finish_run(pilot)
        assert not screen.running
        assert view.state.failed is not None and view.state.failed.cancelled
        await pilot.press("5")
        await pilot.pause()
        assert "CANCELLED" in str(view.query_one("#program-banner").render())
        events = session_events(screen.session_path)
        assert events[-1]["kind"] == "run_failed" and events[-1]["cancelled"] is True
        assert any(m.title == "Cancelled" for m in app.message_log)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ComposeScreen)


async def test_x_and_ctrl_q_ask_before_losing_a_live_run():
    from qflow_tui.ui.screens.confirm import Confirm

    client = FreezingClient(load_responder(), "self_debugger")
    app = build_app(client, config=FAST)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await wait_until(pilot, lambda: client.blocked == 2, "the self-debuggers")
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, Confirm) and "session is kept" in app.screen.detail
        assert "qflow solve --resume" in app.screen.detail
        await pilot.press("n")  # keep running
        await pilot.pause()
        assert app.screen is screen and screen.running
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, Confirm) and app.screen.question == "Quit while the run is going?"
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and screen.running and app.is_running
        await pilot.press("x", "y")
        view = await finish_run(pilot)
        assert not screen.running and view.state.failed is not None and view.state.failed.cancelled


async def test_model_error_is_a_notice_and_the_session_is_kept():
    def broken(request):
        if request["agent"] == "code_quality_checker":
            raise RuntimeError("the model fell over")
        return load_responder()(request)

    from qflow_tui.core.llm.script import ScriptClient

    app = build_app(ScriptClient.from_function(broken, name="broken.py"), config=FAST)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        view = await finish_run(pilot)
        assert view.state.failed is not None and not view.state.failed.cancelled
        notes = [m for m in app.message_log if m.title == "Run failed"]
        assert notes and "the model fell over" in notes[0].message
        assert screen.session_path.exists()


async def _error_for(app, statement=None, tests=None, model=None) -> str:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        if statement is not None:
            screen.query_one("#statement").load_text(statement)
        if tests is not None:
            screen.query_one("#tests").load_text(tests)
        if model is not None:
            screen.query_one("#model").value = model
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, ComposeScreen), "a run started despite bad input"
        error = app.screen.query_one("#compose-error")
        assert error.has_class("-visible")
        return str(error.render())


async def test_bad_input_no_test():
    assert "no tests given" in await _error_for(build_app(), tests="")


async def test_bad_input_names_the_line():
    text = await _error_for(build_app(), tests='assert remove_Occ("a", "a") == ""\nprint(1)\n')
    assert "line 2" in text


async def test_bad_input_no_entry_point():
    text = await _error_for(build_app(), tests="assert 1 + 1 == 2\n")
    assert "Entry point" in text or "entry point" in text


async def test_bad_input_empty_statement():
    assert "statement is empty" in await _error_for(build_app(), statement="  ")


async def test_bad_input_unknown_model():
    app = build_app()
    app.client = None  # let the compose screen build the client from the name
    assert "unknown model 'gpt-4'" in await _error_for(app, model="gpt-4")


async def test_bad_input_missing_api_key(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    app = build_app()
    app.client = None
    text = await _error_for(app, model="anthropic/claude-sonnet-5-5")
    assert "ANTHROPIC_API_KEY" in text
    # Worded for the form, which has no --base-url: the ways in without a key.
    assert "--" not in text and "local/smollm2" in text and "responder.py" in text and "demo" in text


async def test_load_benchmark_and_file(tmp_path):
    problem = tmp_path / "p.txt"
    problem.write_text("Add two numbers.\n\nassert add(1, 2) == 3\nassert add(0, 0) == 0\n", encoding="utf-8")
    app = build_app(example=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+o")
        app.screen.query_one("#load").value = str(problem)
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert screen.query_one("#statement").text == "Add two numbers."
        assert screen.query_one("#tests").text.startswith("assert add(1, 2) == 3")
        screen.query_one("#load").value = "mbpp/11"
        await pilot.press("enter")
        await pilot.pause()
        assert "remove_Occ" in screen.query_one("#tests").text
        assert screen.query_one("#entry-point").value == "remove_Occ"
        screen.query_one("#load").value = "mbpp/99999"
        await pilot.press("enter")
        await pilot.pause()
        assert screen.query_one("#compose-error").has_class("-visible")


async def test_loading_a_file_without_asserts_or_not_json_says_so(tmp_path):
    prose = tmp_path / "prose.txt"
    prose.write_text("Add two numbers.\n\nadd(1, 2) should give 3\n", encoding="utf-8")
    broken = tmp_path / "broken.json"
    broken.write_text('{"statement": "Add two numbers.", "tests": [', encoding="utf-8")
    app = build_app(example=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+o")
        screen = app.screen
        screen.query_one("#load").value = str(prose)
        await pilot.press("enter")
        await pilot.pause()
        error = screen.query_one("#compose-error")
        assert error.has_class("-visible")
        assert "no line that starts with assert" in str(error.render())
        assert screen.query_one("#tests").has_class("-invalid")
        await pilot.press("ctrl+o")
        screen.query_one("#load").value = str(broken)
        await pilot.press("enter")
        await pilot.pause()
        assert "not valid JSON (line 1" in str(error.render())


async def test_save_program(tmp_path):
    app = build_app(config=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await start_run(pilot)
        await finish_run(pilot)
        await pilot.press("s")
        await pilot.pause()
        target = tmp_path / "out" / "remove_occ.py"
        app.screen.query_one("#path-prompt-input").value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        assert "rfind" in target.read_text(encoding="utf-8")
        assert isinstance(app.screen, RunScreen)


async def test_theme_is_remembered():
    app = build_app(config=RunConfig(model="script/tests/scripts/mbpp11.py"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.theme == "qflow-dark"
        await pilot.press("f3")
        await pilot.pause()
        assert app.theme == "qflow-light"
    assert load_config().theme == "qflow-light"


async def test_a_theme_from_the_config_is_in_effect_at_the_first_paint_and_an_unknown_one_is_said():
    # The theme is chosen before the first screen mounts (no second styling pass).
    light = build_app(config=RunConfig(model="script/tests/scripts/mbpp11.py", theme="qflow-light"))
    async with light.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert light.theme == "qflow-light" and "-theme-qflow-light" in light.classes
        assert not light.message_log
    app = build_app(config=RunConfig(model="script/tests/scripts/mbpp11.py", theme="no-such-theme"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.theme == "qflow-dark"
        # The log, not the toasts: on a loaded machine a toast may have come and gone.
        await wait_until(
            pilot,
            lambda: any("Unknown theme 'no-such-theme'; using qflow-dark" in m.message for m in app.message_log),
            "the unknown theme to be said",
        )


async def test_every_run_action_is_in_the_command_palette():
    app = build_app(stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await wait_for_gate(pilot, screen, "program_generator")
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for title in (
            "Sessions",
            "Step",
            "Continue",
            "Cancel",
            "Back",
            "Timeline",
            "Agents",
            "Imagined",
            "Tests",
            "Program",
            "Previous progression",
            "Progression",
            "Zoom",
        ):
            assert title in titles, title
        await pilot.press("x", "y")  # cancel, and yes to the question
        await finish_run(pilot)


async def test_sessions_command_without_the_sessions_screen_is_a_notice(monkeypatch):
    import sys

    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        # A build without the module: importing it raises ImportError, however
        # the app imports it (screens' lazy loader: ui/screens/__init__.py).
        monkeypatch.setitem(sys.modules, "qflow_tui.ui.screens.sessions", None)
        app.action_sessions()
        monkeypatch.undo()
        await pilot.pause()
        assert isinstance(app.screen, ComposeScreen)
        assert any("sessions" in n.message.lower() for n in app._notifications)


async def test_session_dir_is_the_test_dir():
    assert "qflow-home" in str(sessions_dir())


async def test_a_breakpoint_stops_the_run_where_it_matches_and_says_why():
    from qflow_tui.core.steer.gate import Breakpoint

    app = build_app(config=FAST, breakpoints=[Breakpoint.parse("agent:self_debugger")])
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        view = screen.query_one(RunView)
        await wait_for_gate(pilot, screen, "self_debug:1", 0)
        view.flush()
        # It ran free up to there: both programs generated and checked, no debugging yet.
        assert view.state.tokens["code_quality_checker"].calls > 0
        assert "self_debugger" not in view.state.tokens
        assert "breakpoint agent:self_debugger: before self-debug 1 (p0)" in str(
            view.query_one("#run-progress").render()
        )
        await pilot.press("c")
        # Progression 1 came to the gate while the run was held at p0: its own
        # self-debugger step is a breakpoint too, so the run stops there next.
        await wait_for_gate(pilot, screen, "self_debug:1", 1)
        assert screen.gate.stopped_by == "agent:self_debugger"
        await pilot.press("c")
        view = await finish_run(pilot)
        assert view.state.finished is not None


async def test_ctrl_q_asks_before_losing_a_problem_typed_in_the_form():
    """A problem typed and never run is in no file: Ctrl+Q asks. The example, or a
    problem already run (its session keeps it), quits at once."""
    from qflow_tui.ui.screens.confirm import Confirm

    app = build_app(example=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        compose = app.screen
        assert isinstance(compose, ComposeScreen)
        compose.query_one("#statement").focus()
        await pilot.press(*"Sum two numbers.")
        await wait_until(pilot, lambda: compose.query_one("#statement").text == "Sum two numbers.", "the typing")
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm), "the question")
        assert "lose the problem you typed" in app.screen.question
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is compose, "the form back")
        assert app.is_running and compose.query_one("#statement").text == "Sum two numbers."
        await pilot.press("f4")  # the example is no typed work
        await pilot.pause()
        assert not compose.typed_unsaved()
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: not app.is_running, "the quit")


async def test_ctrl_q_after_a_run_quits_at_once():
    app = build_app(config=FAST)
    async with app.run_test(size=SIZE) as pilot:
        compose = app.screen
        await start_run(pilot)
        await finish_run(pilot)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is compose, "the form")
        assert not compose.typed_unsaved()
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: not app.is_running, "the quit")


async def test_with_break_decision_reject_n_lets_through_exactly_the_stop_shown(monkeypatch):
    """The issue's walk: `--break decision:reject`, a rejected test kept at a stop,
    then n, n, n. The status line said p0 while p1-p3 went on, and one key let two
    stops go. At every stop: the status line names the stop the gate holds, and n
    lets that stop through and no other the gate held."""
    from qflow_tui.core.steer.gate import Breakpoint, StepGate

    passed: list[Stop] = []
    real = StepGate.checkpoint

    async def spy(self: StepGate, stop: Stop) -> None:
        await real(self, stop)
        passed.append(stop)

    monkeypatch.setattr(StepGate, "checkpoint", spy)
    config = RunConfig(model="script/tests/scripts/mbpp11.py").replace(prompts=4)
    app = build_app(config=config, breakpoints=[Breakpoint.parse("decision:reject")])
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        gate = screen.gate
        view = screen.query_one(RunView)
        kept_one = False
        stops = 0
        while True:
            await wait_until(
                pilot,
                lambda: screen.shown_stop is not None or not screen.running,
                "a stop or the end",
            )
            if not screen.running:
                break
            stops += 1
            shown = screen.shown_stop
            assert shown is not None and gate.waiting == shown
            view.flush()
            await pilot.pause()
            progress = str(view.query_one("#run-progress").render())
            if shown.progression is not None:
                assert f"(p{shown.progression})" in progress, (shown, progress)
            rejected = [i for i, t in enumerate(view.state.piece(SynthTests).tests) if t.verdict == "rejected"]
            if not kept_one and rejected and shown.step.startswith("self_debug"):
                await pilot.press("4")
                await wait_until(pilot, lambda: screen.check_action("toggle_test_verdict", ()), "the Tests tab")
                grid = view.query_one("#tests-grid")
                grid.move_cursor(row=rejected[0])
                await pilot.pause()
                await pilot.press("space")
                await wait_until(pilot, lambda: bool(screen.steering.test_verdicts), "the keep")
                kept_one = True
            held = list(gate._waiting.values())
            before = len(passed)
            await pilot.press("n")
            await wait_until(
                pilot,
                lambda shown=shown, before=before: (
                    shown in passed[before:] and (screen.shown_stop != shown or not screen.running)
                ),
                f"n to let {shown} through",
            )
            went = [s for s in passed[before:] if s in held]
            assert went == [shown], (shown, went, held)
            assert stops < 40
        assert stops >= 2 and kept_one
        await finish_run(pilot)


async def test_the_demo_script_model_on_another_problem_asks_before_the_run():
    """The demo responder writes remove_Occ whatever the problem: a user's own
    problem failed at the first check and looked wrong. Ctrl+R now says so first."""
    from qflow_tui.core.llm.script import ScriptClient
    from qflow_tui.ui.screens.confirm import Confirm

    client = ScriptClient("qflow_tui/data/demo/responder.py")
    app = build_app(
        client,
        config=FAST,
        problem_text="Write a function to add two numbers.",
        tests_text="assert add(1, 2) == 3",
    )
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        compose = app.screen
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm), "the question")
        assert "only knows remove_Occ" in app.screen.question and "for add every check" in app.screen.detail
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is compose, "the form")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm), "the question again")
        await pilot.press("y")  # run anyway
        await wait_until(pilot, lambda: isinstance(app.screen, RunScreen), "the run")
        run = app.screen
        # Every check fails, as the question said, but the run goes through and
        # shows what the script model answered: its program, the checker's
        # reasoning (the program has no add, so the call raises NameError), a
        # rejected cell rather than a failed one, and the first program reverted to.
        await wait_until(pilot, lambda: not run.running, "the run to end")
        state = run.query_one(RunView).state
        assert state.failed is None and state.finished is not None
        assert state.finished.outcome == "reverted"
        generated = [c.status for (step, _), c in state.cells.items() if step == "program_generator"]
        assert generated and set(generated) == {"rejected"}, generated
        assert "def remove_Occ" in state.programs[0][0][1]
        checked = [r for r in state.piece(ImaginedChecks).records.values() if r.progression == 0]
        assert checked and all(r.verdict == "fail" for r in checked)
        assert "NameError" in checked[0].reasoning and "MBPP 11" in checked[0].reasoning
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is compose, "the form")
        await pilot.press("f4")  # its own problem: no question
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, RunScreen), "the demo's run")
        await finish_run(pilot)
