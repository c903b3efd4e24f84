"""Steering a live run in the app: while the step gate holds the run, each key
puts an edit into the run's Steering, the status line says it is pending, the
run takes it when it goes on (a steered row on the timeline, a steered event in
the session), and the downstream run changes. Breakpoints from the compose
screen's "Break at" field and from the timeline (b, B)."""

from __future__ import annotations

from typing import Any

from ui_app import SIZE, build_app
from ui_steps import finish_run, settle, start_run, step_to, wait_for_gate, wait_until

from qflow_tui.core.config import RunConfig
from qflow_tui.core.pieces import SynthTests
from qflow_tui.core.session import read_session
from qflow_tui.core.steer.gate import Breakpoint
from qflow_tui.ui.screens.compose import ComposeScreen
from qflow_tui.ui.screens.run_screen import RunScreen
from qflow_tui.ui.screens.steer_edit import SteerEditScreen
from qflow_tui.ui.widgets.run_view import RunView
from qflow_tui.ui.widgets.timeline import Timeline, render_timeline

ONE = RunConfig(model="script/tests/scripts/mbpp11.py").replace(prompts=1)

FIXED = (
    "def remove_Occ(s, ch):\n"
    "    i = s.find(ch)\n"
    "    s = s if i < 0 else s[:i] + s[i + 1:]\n"
    "    j = s.rfind(ch)\n"
    "    return s if j < 0 else s[:j] + s[j + 1:]\n"
)


def _status(screen: RunScreen) -> str:
    return screen.query_one(RunView).gate_status


def _session(screen: RunScreen) -> Any:
    assert screen.session_path is not None
    return read_session(screen.session_path)


def _timeline_text(screen: RunScreen, width: int = 120) -> str:
    from rich.console import Console

    view = screen.query_one(RunView)
    console = Console(width=width, record=True)
    from qflow_tui.ui.palette import palette

    marks = screen.query_one("#timeline-tab", Timeline).marks
    console.print(render_timeline(view.state, 0, palette(screen.app), marks=marks))
    return console.export_text()


async def _editor(pilot: Any, text: str) -> SteerEditScreen:
    """The edit dialog that is open, its text replaced by ``text``."""
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, SteerEditScreen), "the edit dialog")
    dialog = pilot.app.screen
    assert isinstance(dialog, SteerEditScreen)
    dialog.query_one("#steer-editor").load_text(text)
    await pilot.pause()
    return dialog


async def test_edit_keys_show_only_at_a_stop_of_a_qualityflow_run() -> None:
    app = build_app(config=ONE, stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await wait_for_gate(pilot, screen, "program_generator")
        assert screen.check_action("edit_program", ()) and screen.check_action("override_verdict", ())
        assert screen.check_action("edit_statement", ())
        assert not screen.check_action("toggle_test_verdict", ())  # the Tests tab is not shown
        await pilot.press("c")
        await finish_run(pilot)
        for action in ("edit_program", "override_verdict", "edit_statement", "add_test"):
            assert not screen.check_action(action, ()), action


async def test_e_edits_the_stopped_progressions_program_syntax_checked_then_the_run_checks_it() -> None:
    app = build_app(config=ONE, stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await step_to(pilot, screen, "check:program_generator", 0)
        await pilot.press("e")
        dialog = await _editor(pilot, "def remove_Occ(s, ch)\n    return s\n")
        editor = dialog.query_one("#steer-editor")
        assert editor.language == "python" and editor.is_syntax_aware  # highlighted as python
        await pilot.press("ctrl+s")
        await pilot.pause()
        # Not taken: the dialog stays, with the line that is wrong.
        assert pilot.app.screen is dialog
        assert "not valid Python (line 1" in str(dialog.query_one("#steer-error").render())
        await _editor(pilot, FIXED)
        # Fixed: the error goes as the text changes, before ctrl+s (issue 57).
        hint = dialog.query_one("#steer-error")
        assert "not valid Python" not in str(hint.render()) and not hint.has_class("-error")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: pilot.app.screen is screen, "the run screen")
        assert screen.steering.programs == {("program_generator", 0): FIXED}
        assert "✎ edit pending: program of p0 — continues on n/c · ⏸ before checking generate (p0)" in _status(screen)
        await pilot.press("c")
        view = await finish_run(pilot)
        # The edited program was checked in place of the generator's, and accepted at once.
        assert view.state.finished is not None and view.state.finished.accepted_at == "program_generator"
        assert view.state.finished.final_program == FIXED
        assert "steered p0 by user: program replaced" in _timeline_text(screen)
        (steered,) = [e for e in _session(screen).events if e.kind == "steered"]
        assert (steered.what, steered.step, steered.after) == ("program", "program_generator", FIXED)
        assert "find(ch)" in steered.before and "edit pending" not in _status(screen)


async def test_leaving_the_editor_keeps_what_was_written_as_a_draft() -> None:
    app = build_app(config=ONE, stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await wait_for_gate(pilot, screen, "program_generator")
        await pilot.press("e")
        await _editor(pilot, "def remove_Occ(s, ch):\n    return 'draft'\n")
        await pilot.press("escape")
        await wait_until(pilot, lambda: pilot.app.screen is screen, "the run screen")
        assert not screen.steering
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, SteerEditScreen), "the edit dialog")
        assert "return 'draft'" in pilot.app.screen.query_one("#steer-editor").text
        await pilot.press("escape")
        await pilot.press("x", "y")  # cancel, and yes to the question
        await finish_run(pilot)


async def test_ctrl_a_in_the_editor_selects_all_so_typing_replaces_it() -> None:
    app = build_app(config=ONE, stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await wait_for_gate(pilot, screen, "program_generator")
        await pilot.press("e")
        dialog = await _editor(pilot, "def remove_Occ(s, ch):\n    return s\n")
        editor = dialog.query_one("#steer-editor")
        editor.move_cursor((1, 4))
        assert "ctrl+a select all" in str(dialog.query_one("#steer-error").render())
        await pilot.press("ctrl+a")
        assert editor.selected_text == editor.text
        await pilot.press("x")
        await wait_until(pilot, lambda: editor.text == "x", "the text replaced")
        await pilot.press("escape")
        await wait_until(pilot, lambda: pilot.app.screen is screen, "the run screen")
        await pilot.press("x", "y")  # cancel, and yes to the question
        await finish_run(pilot)


async def test_keys_queued_in_the_editor_go_together_in_order_and_a_priority_key_waits() -> None:
    """Held or typed faster than a frame, editing keys reach the editor together
    (a few waits, not one a key, which drew a frame a key: 300 backspaces took
    seconds), in the order typed (a character after backspaces lands after them),
    and Ctrl+S typed after them takes every one of them."""
    from textual import events

    from qflow_tui.ui.messages import KeyDone

    app = build_app(config=ONE, stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await wait_for_gate(pilot, screen, "program_generator")
        await pilot.press("e")
        dialog = await _editor(pilot, "def remove_Occ(s, ch):\n    return s\n" + "#" * 60)
        editor = dialog.query_one("#steer-editor")
        editor.move_cursor(editor.document.end)
        waits = 0
        posted = editor.post_message

        def count(message: Any) -> bool:
            nonlocal waits
            waits += isinstance(message, KeyDone)
            return posted(message)

        editor.post_message = count  # type: ignore[method-assign]
        keys = [("backspace", None)] * 60 + [("y", "y"), ("left", None), ("x", "x")]
        for key, character in [*keys, ("ctrl+s", None)]:
            app.post_message(events.Key(key, character))
        await wait_until(pilot, lambda: pilot.app.screen is screen, "the edit taken")
        assert screen.steering.programs == {("program_generator", 0): "def remove_Occ(s, ch):\n    return s\nxy"}
        assert waits <= 5, f"{waits} waits for {len(keys)} keys queued at once"
        await pilot.press("c")
        await finish_run(pilot)


async def test_a_and_r_override_the_next_quality_check_and_the_same_key_undoes() -> None:
    app = build_app(config=ONE, stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await step_to(pilot, screen, "check:program_generator", 0)
        await pilot.press("a")
        assert screen.steering.next_verdicts == {0: True}
        await pilot.press("a")
        assert not screen.steering and "edit pending" not in _status(screen)
        await pilot.press("r")
        assert screen.steering.next_verdicts == {0: False}
        await pilot.press("a")
        assert screen.steering.next_verdicts == {0: True}
        assert "edit pending: verdict of p0 — continues on n/c" in _status(screen)
        await pilot.press("c")
        view = await finish_run(pilot)
        # The buggy first program is accepted without asking the checker.
        assert view.state.finished is not None and view.state.finished.accepted_at == "program_generator"
        assert "rfind" not in view.state.finished.final_program
        assert not view.state.calls_for("code_quality_checker", 0)
        assert "quality verdict: accept" in _timeline_text(screen)
        # The decision says a person accepted it, not the checker's reason (it was never asked).
        assert "accepted by a person (steered): the checker was not asked" in _timeline_text(screen)
        assert "all visible tests pass" not in _timeline_text(screen)
        # Narrow, the reason wraps under its decision, indented, not at the edge.
        narrow = _timeline_text(screen, width=44).splitlines()
        at = next(i for i, line in enumerate(narrow) if "generate: accept" in line.lower())
        assert narrow[at].startswith("  generate:") and narrow[at + 1].startswith("  "), narrow[at : at + 3]
        assert narrow[at + 1].strip(), narrow[at : at + 3]


async def test_tests_tab_keys_keep_drop_edit_add_and_delete_synthesized_tests() -> None:
    app = build_app(config=ONE, stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await step_to(pilot, screen, "self_debug:1", 0)
        await pilot.press("4")
        view = screen.query_one(RunView)
        grid = view.query_one("#tests-grid")
        synth = [t.test for t in view.state.piece(SynthTests).tests]
        assert len(synth) == 10 and view.state.piece(SynthTests).tests[9].verdict == "rejected"
        assert screen.check_action("toggle_test_verdict", ())
        # The Tests tab's keys take the footer there; the program's keys are back on the other tabs.
        assert not screen.check_action("edit_program", ()) and not screen.check_action("edit_statement", ())
        await pilot.press("space")  # test 1: kept -> dropped
        grid.move_cursor(row=9)
        await pilot.pause()
        await pilot.press("space")  # test 10 (wrong): rejected -> kept
        grid.move_cursor(row=1)
        await pilot.pause()
        await pilot.press("d")  # test 2: deleted
        grid.move_cursor(row=2)
        await pilot.pause()
        await pilot.press("t")  # test 3: edited
        edited = 'assert remove_Occ("abcbd", "b") == "acd"'
        await _editor(pilot, edited)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: pilot.app.screen is screen, "the run screen")
        await pilot.press("plus")
        await _editor(pilot, "assert remove_Occ('x', 'y') == 'x'\nassert remove_Occ('z', 'z') == ''")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "write one assert, not 2" in str(pilot.app.screen.query_one("#steer-error").render())
        added = 'assert remove_Occ("zz", "z") == ""'
        await _editor(pilot, added)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: pilot.app.screen is screen, "the run screen")
        assert screen.steering.test_verdicts == {synth[0]: False, synth[9]: True}
        assert screen.steering.test_edits == {synth[1]: "", synth[2]: edited}
        assert screen.steering.added_tests == [added]
        assert "edit pending: drop test, keep test, delete test, edit test, add test — continues" in _status(screen)
        await pilot.press("c")
        view = await finish_run(pilot)
        events = _session(screen).events
        ran = next(e for e in events if e.kind == "sandbox_run" and e.purpose == "self_debug")
        tests = {r["test"] for r in ran.results}
        # What the self-debugger ran: the kept set as edited, not as the TQC left it.
        assert tests == {*synth[3:8], synth[9], edited, added}
        whats = sorted((e.what, e.after) for e in events if e.kind == "steered")
        assert whats == sorted(
            [("test verdict", "rejected"), ("test verdict", "kept"), ("test", ""), ("test", edited), ("test", added)]
        )
        assert "test deleted" in _timeline_text(screen)
        # The Tests tab says what a person made of each test, over the TQC's verdict.
        marks = {t.test: t.steered for t in view.state.piece(SynthTests).tests if t.steered}
        assert marks == {
            synth[0]: "rejected",
            synth[9]: "kept",
            synth[1]: "deleted",
            synth[2]: "edited",
            edited: "written",
            added: "written",
        }
        cell = str(view.query_one("#tests-grid").get_cell_at((0, 1)))
        assert cell == "✎ rejected"


async def test_w_edits_the_statement_the_clarifier_path_reads() -> None:
    config = ONE.replace(epochs=0, clarify=1)
    app = build_app(config=config, stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await wait_for_gate(pilot, screen, "program_generator")
        await pilot.press("w")
        await _editor(pilot, "   ")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "the statement is empty" in str(pilot.app.screen.query_one("#steer-error").render())
        await _editor(pilot, "Remove BOTH the first and the last occurrence of ch.")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: pilot.app.screen is screen, "the run screen")
        assert "edit pending: statement — continues on n/c" in _status(screen)
        await pilot.press("c")
        await finish_run(pilot)
        events = _session(screen).events
        (steered,) = [e for e in events if e.kind == "steered"]
        assert (steered.what, steered.step) == ("statement", "clarifier:1")
        prompts = {
            e.agent: e.messages[-1]["content"] for e in events if e.kind == "llm_call_started" and e.attempt == 1
        }
        assert "Remove BOTH" in prompts["clarifier"] and "Remove BOTH" in prompts["program_generator"]
        first = next(e for e in events if e.kind == "llm_call_started" and e.agent == "program_generator")
        assert "Remove BOTH" not in first.messages[-1]["content"]


async def test_b_on_the_timeline_sets_a_breakpoint_where_the_run_then_stops() -> None:
    app = build_app(config=ONE, stepping=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        await wait_for_gate(pilot, screen, "program_generator")
        await pilot.press("1")  # the Timeline tab, its step rows under a cursor
        assert screen.check_action("toggle_breakpoint", ())
        stages = screen.query_one(RunView).state.planned_stages()
        for _ in range(stages.index("self_debug:2")):
            await pilot.press("down")
        await pilot.press("b")
        await pilot.press("up")
        await pilot.press("B")  # self_debug:1's agent: the self-debugger
        assert screen.gate.breakpoints == [Breakpoint("step", "self_debug:2"), Breakpoint("agent", "self_debugger")]
        await pilot.press("b")
        await pilot.press("b")  # set, then removed again
        assert Breakpoint("step", "self_debug:1") not in screen.gate.breakpoints
        assert "● self-debug 2" in _timeline_text(screen) and "● self-debug 1" in _timeline_text(screen)
        await pilot.press("c")  # run free, to the breakpoint
        await wait_for_gate(pilot, screen, "self_debug:1", 0)
        assert screen.gate.stopped_by == "agent:self_debugger"
        assert "breakpoint agent:self_debugger: before self-debug 1" in _status(screen)
        await pilot.press("c")
        view = await finish_run(pilot)
        assert view.state.finished is not None and view.state.finished.accepted_at == "self_debug:1"


async def test_break_at_on_the_compose_screen() -> None:
    app = build_app(config=ONE)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        compose = app.screen
        assert isinstance(compose, ComposeScreen)
        field = compose.query_one("#break-at")
        # Shown for every workflow (it was once hidden with the workflow settings).
        assert field.display and field.parent.display and field.region.height >= 1
        field.value = "agent:self_debugger, when:reject"
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert app.screen is compose
        error = str(compose.query_one("#compose-error").render())
        assert "breakpoint 'when:reject' is not one of" in error and "\n" not in error.strip()
        compose.query_one("#break-at").value = "agent:self_debugger, decision:revert"
        screen = await start_run(pilot)
        assert screen.gate.breakpoints == [Breakpoint("agent", "self_debugger"), Breakpoint("decision", "revert")]
        await wait_for_gate(pilot, screen, "self_debug:1", 0)
        assert screen.gate.stopped_by == "agent:self_debugger"
        await pilot.press("c")
        await finish_run(pilot)


class TestSteerSnapshots:
    """The stop with an edit pending, and the program editor with a syntax error, at 80x24."""

    def test_stop_with_an_edit_pending(self, snap_compare):
        async def run_before(pilot):
            screen = await start_run(pilot)
            await step_to(pilot, screen, "check:program_generator", 0)
            await pilot.press("e")
            await _editor(pilot, FIXED)
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: pilot.app.screen is screen, "the run screen")
            await pilot.press("1")
            await settle(pilot)

        assert snap_compare(build_app(config=ONE, stepping=True), terminal_size=SIZE, run_before=run_before)

    def test_program_editor_with_a_syntax_error(self, snap_compare):
        async def run_before(pilot):
            screen = await start_run(pilot)
            await step_to(pilot, screen, "check:program_generator", 0)
            await pilot.press("e")
            await _editor(pilot, "def remove_Occ(s, ch)\n    return s\n")
            await pilot.press("ctrl+s")
            await settle(pilot)

        assert snap_compare(build_app(config=ONE, stepping=True), terminal_size=SIZE, run_before=run_before)
