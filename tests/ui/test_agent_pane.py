"""The agent pane draws its lines itself: a token grows the pane's scroll range,
never the screen's layout, and the pane follows the stream until the user
scrolls up."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Grid

from qflow_tui.core import events as ev
from qflow_tui.ui.state import RunState
from qflow_tui.ui.widgets.agent_pane import AgentPane

WHERE = {"agent": "program_generator", "progression": 0, "step": "program_generator", "call_id": "c1"}


class PaneApp(App[None]):
    CSS = "Grid { grid-size: 1; } AgentPane { height: 8; overflow-x: hidden; }"

    def compose(self) -> ComposeResult:
        with Grid():
            yield AgentPane("program_generator")


def started() -> tuple[RunState, list[int]]:
    state = RunState()
    seq = [0]
    feed(state, seq, ev.LLMCallStarted(**WHERE, model="m", system="", messages=[], temperature=0.0))
    return state, seq


def feed(state: RunState, seq: list[int], event: ev.Event) -> None:
    seq[0] += 1
    event.seq = seq[0]
    state.apply(event)


async def test_streamed_lines_never_reflow_the_screen():
    app = PaneApp()
    async with app.run_test(size=(60, 12)) as pilot:
        pane = app.query_one(AgentPane)
        state, seq = started()
        pane.update_from(state, 0)
        await pilot.pause()
        layouts = 0
        reflow = app.screen._refresh_layout

        def counting(*args, **kwargs):
            nonlocal layouts
            layouts += 1
            return reflow(*args, **kwargs)

        app.screen._refresh_layout = counting  # type: ignore[method-assign]
        for n in range(40):
            feed(state, seq, ev.TextDelta(**WHERE, text=f"line {n} of the answer\n"))
            pane.update_from(state, 0)
            await pilot.pause()
        # When the scrollbar first appears (two requests); never one per token.
        assert layouts <= 2
        assert "line 39 of the answer" in pane.text()
        assert pane.virtual_size.height > 40


async def test_the_pane_follows_the_stream_until_the_user_scrolls_up():
    app = PaneApp()
    async with app.run_test(size=(60, 12)) as pilot:
        pane = app.query_one(AgentPane)
        state, seq = started()
        for n in range(30):
            feed(state, seq, ev.TextDelta(**WHERE, text=f"line {n}\n"))
        pane.update_from(state, 0)
        await pilot.pause()
        assert pane.max_scroll_y > 0 and pane.scroll_y == pane.max_scroll_y
        pane.focus()
        await pilot.press("home")
        await pilot.pause()
        assert pane.scroll_y == 0
        feed(state, seq, ev.TextDelta(**WHERE, text="more\nand more\n"))
        pane.update_from(state, 0)
        await pilot.pause()
        assert pane.scroll_y == 0, "scrolled up: the new lines must not pull the view down"
        await pilot.press("end")
        await pilot.pause()
        feed(state, seq, ev.TextDelta(**WHERE, text="the end\n"))
        pane.update_from(state, 0)
        await pilot.pause()
        assert pane.scroll_y == pane.max_scroll_y
        assert "the end" in pane.text()


async def test_text_that_brings_the_scrollbar_is_wrapped_beside_it():
    app = PaneApp()
    async with app.run_test(size=(40, 12)) as pilot:
        pane = app.query_one(AgentPane)
        state, seq = started()
        pane.update_from(state, 0)
        await pilot.pause()
        assert not pane.show_vertical_scrollbar
        # One update long enough to need the scrollbar: words that exactly fill a
        # line without it must wrap to the width left beside it.
        words = " ".join(["abcdefghi"] * 40)
        feed(state, seq, ev.TextDelta(**WHERE, text=words))
        pane.update_from(state, 0)
        await pilot.pause()
        assert pane.show_vertical_scrollbar
        width = pane.scrollable_content_region.width
        assert pane._width == width
        longest = max(len(line.rstrip()) for line in pane.text().splitlines())
        assert longest <= width, (longest, width)


async def test_a_call_waiting_for_its_first_token_says_so_once_then_streams():
    app = PaneApp()
    async with app.run_test(size=(40, 12)) as pilot:  # narrow: a long header wraps
        pane = app.query_one(AgentPane)
        state, seq = started()
        pane.update_from(state, 0)
        await pilot.pause()
        assert pane.text().count("first token") == 1 and "waiting for the first token…" in pane.text()
        assert pane.border_subtitle == "waiting for first token"
        feed(state, seq, ev.TextDelta(**WHERE, text="def f():"))
        pane.update_from(state, 0)
        await pilot.pause()
        assert "first token" not in pane.text() and "def f():" in pane.text()
        assert pane.border_subtitle == "1 streaming"


def test_a_checkers_call_is_headed_as_on_the_step_it_checks():
    """The Code Quality Checker's calls on the generator's step read as the
    generator's ('c10 program_generator · turn 2'); the header now says the
    step in the plan's words, after 'on' when the step is another agent's."""
    from qflow_tui.ui.palette import Palette
    from qflow_tui.ui.state import CallRecord, PlanStep
    from qflow_tui.ui.widgets.agent_pane import call_header, step_words

    state = RunState()
    state.plan = [PlanStep("program_generator", "generate", ("program_generator", "code_quality_checker"), "gen")]
    check = CallRecord("c10", "code_quality_checker", "program_generator", 0, turn=2)
    made = CallRecord("c1", "program_generator", "program_generator", 0)
    again = CallRecord("c20", "solver", "solver:3", 0)
    state.plan.append(PlanStep("solver", "solve", ("solver",), "solve"))
    assert step_words(state, check) == "on generate"
    assert step_words(state, made) == "generate"
    assert step_words(state, again) == "solve 3"  # a numbered repeat, labelled after its plan
    colours = Palette("green", "red", "yellow", "cyan", "blue", "grey50", "white", "black", "monokai", "monokai", True)
    assert call_header(check, colours, step_words(state, check)).plain.startswith("── c10 on generate · turn 2")
    assert call_header(made, colours, step_words(state, made)).plain.startswith("── c1 generate")
    # A long test in the header is cut with an ellipsis, not mid-value.
    long = CallRecord("c8", "code_quality_checker", "program_generator", 0, test="assert f(" + "1.0, " * 30 + ") == 2")
    long.status = "failed"
    head = call_header(long, colours, step_words(state, long)).plain
    assert "assert f(1.0, 1.0" in head and head.endswith("… failed"), head


async def test_home_reaches_the_first_line_while_the_call_streams():
    """Issue 57: Home in a pane that follows a stream went back to the tail
    (a token arrived before the scroll's first frame and pulled it down)."""
    app = PaneApp()
    async with app.run_test(size=(60, 12)) as pilot:
        app.animation_level = "full"  # as in a terminal: the tests' default scrolls at once
        pane = app.query_one(AgentPane)
        state, seq = started()
        for n in range(40):
            feed(state, seq, ev.TextDelta(**WHERE, text=f"line {n}\n"))
        pane.update_from(state, 0)
        await pilot.pause()
        pane.focus()
        await pilot.press("home")
        # The next tokens at once, and on every tenth of a second as the run view paints.
        for n in range(12):
            feed(state, seq, ev.TextDelta(**WHERE, text=f"one more line {n}\n"))
            pane.update_from(state, 0)
            await pilot.pause(0.1)
        assert pane.scroll_y == 0
        assert pane.render_line(0).text.startswith("── c1"), "the call's header is the first line shown"
        await pilot.press("end")
        feed(state, seq, ev.TextDelta(**WHERE, text="the last line\n"))
        pane.update_from(state, 0)
        await pilot.pause()
        assert pane.scroll_y == pane.max_scroll_y, "End follows the stream again"
