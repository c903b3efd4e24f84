"""A retry the run waits to make counts down live in its agent pane, and `g`
(in the footer only while a retry waits) gives it up: the call ends as failed,
the workflow takes that as the agent's failed answer, and the session says the
user gave it up."""

from __future__ import annotations

import json

from ui_app import SIZE
from ui_fakes import InProcessSandbox, load_responder
from ui_steps import finish_run, start_run, wait_until

from qflow_tui.core.config import RunConfig
from qflow_tui.core.llm import LLMError
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.session import read_session
from qflow_tui.core.summary import tally_stops
from qflow_tui.ui.app import create_app
from qflow_tui.ui.palette import Palette, palette
from qflow_tui.ui.screens.compose import EXAMPLE_STATEMENT, EXAMPLE_TESTS
from qflow_tui.ui.widgets.agent_pane import AgentPane, render_call
from qflow_tui.ui.widgets.run_view import RunView

COLOURS = Palette("green", "red", "yellow", "cyan", "blue", "grey50", "white", "black", "monokai", "monokai", True)

#: Long enough that the test cannot pass by the wait running out.
RETRY_AFTER = 90.0


class Clock:
    """The app's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def busy_for_p0_client() -> ScriptClient:
    """MBPP 11 (tests/scripts/mbpp11.py), except that progression 0's program
    generator is always rate limited: the run waits to retry it, and progression
    1 cannot win before progression 0 has finished its stage."""
    respond = load_responder()

    def busy(request: dict) -> str:
        if request["agent"] == "program_generator" and request["progression"] == 0:
            error = LLMError("the provider is busy (HTTP 429)", status=429, retryable=True)
            error.retry_after = RETRY_AFTER
            raise error
        return respond(request)

    return ScriptClient.from_function(busy, name="tests/scripts/mbpp11.py")


def session_events(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]


def footer_keys(screen) -> set[str]:
    return {b.binding.description for b in screen.active_bindings.values() if b.enabled}


async def test_a_waiting_retry_counts_down_and_g_gives_it_up():
    clock = Clock()
    app = create_app(
        RunConfig(model="script/tests/scripts/mbpp11.py").replace(prompts=2),
        client=busy_for_p0_client(),
        sandbox=InProcessSandbox(),
        clock=clock,
        problem_text=EXAMPLE_STATEMENT,
        tests_text=EXAMPLE_TESTS,
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_run(pilot)
        view = screen.query_one(RunView)
        await wait_until(pilot, lambda: bool(screen.retry_waits.waiting), "the retry to wait")
        view.flush()
        await pilot.pause()
        # The key is offered now, and only now.
        assert screen.check_action("give_up_retry", ())
        assert "Give up retry" in footer_keys(screen)
        (waiting,) = view.state.retries_waiting
        call = view.state.calls[waiting]
        assert call.agent == "program_generator" and call.progression == 0
        pane = screen.query_one("#pane-program_generator", AgentPane)
        pane_text = pane.text
        view.action_show_tab("tab-agents")
        await pilot.pause()
        assert "↻ retrying: attempt 2 of 5 in 90 s" in pane_text()
        assert "1 waiting to retry" in str(view.query_one("#run-progress").render())
        # The countdown follows the clock, once a second.
        clock.now = 3.2
        view.tick()
        await pilot.pause()
        assert "↻ retrying: attempt 2 of 5 in 87 s" in pane_text()

        await pilot.press("ctrl+g")
        finished = await finish_run(pilot)
        # Progression 0's program generator failed; progression 1 went on and won.
        assert finished.state.finished is not None
        assert finished.state.finished.outcome == "accepted"
        assert finished.state.finished.progression == 1
        assert not screen.retry_waits.waiting
        assert not screen.check_action("give_up_retry", ())
        assert "Give up retry" not in footer_keys(screen)
        assert call.retry == "given_up"
        text = render_call(call, palette(app)).plain
        assert "✗ retry given up by the user (attempt 2 of 5 not made)" in text

        events = session_events(screen.session_path)
        (given,) = [e for e in events if e["kind"] == "llm_call_given_up"]
        assert given["call_id"] == waiting and given["progression"] == 0 and given["retry_attempt"] == 2
        # The one attempt made was the call's last: no retry was ever started.
        assert not [e for e in events if e["kind"] == "llm_call_started" and e.get("retry_of")]
        notices = [e["message"] for e in events if e["kind"] == "notice"]
        assert any("progression 0 stopped" in m and "given up by the user" in m for m in notices)
        assert events[-1]["stops"].get("given_up") == 1 and "retried" not in events[-1]["stops"]
        # Read back from the session, the tally agrees with the live one.
        assert tally_stops(read_session(screen.session_path).events) == events[-1]["stops"]


def test_a_replayed_retry_says_what_became_of_it():
    """The same events replayed: a retry that was made, and one the run's end cut off."""
    from qflow_tui.core import events as ev
    from qflow_tui.ui.state import RunState

    where = {"agent": "program_generator", "progression": 0, "step": "program_generator"}
    state = RunState()
    stream: list[ev.Event] = [
        ev.LLMCallStarted(**where, call_id="c1", model="m", system="", messages=[], temperature=0.0),
        ev.LLMCallFailed(**where, call_id="c1", error="busy (HTTP 429)", will_retry=True),
        ev.LLMCallRetry(**where, call_id="c1", retry_attempt=2, retry_attempts=5, wait=4.0, error="busy (HTTP 429)"),
    ]
    for i, e in enumerate(stream, start=1):
        e.seq = i
        state.apply(e)
    assert state.retries_waiting == {"c1"}
    assert "↻ retrying: attempt 2 of 5 in 4.0 s" in render_call(state.calls["c1"], COLOURS).plain
    state.apply(
        ev.LLMCallStarted(**where, call_id="c2", model="m", system="", messages=[], temperature=0.0, retry_of="c1")
    )
    assert not state.retries_waiting
    assert render_call(state.calls["c1"], COLOURS).plain.endswith("busy (HTTP 429)\n↻ retried: attempt 2 of 5")
    state.apply(ev.LLMCallFailed(**where, call_id="c2", error="busy (HTTP 429)", will_retry=True))
    state.apply(ev.LLMCallRetry(**where, call_id="c2", retry_attempt=3, retry_attempts=5, wait=8.0, error="busy"))
    state.apply(ev.RunFailed(error="cancelled by the user", cancelled=True))
    assert not state.retries_waiting
    assert "↻ retry not made (attempt 3 of 5): the run ended" in render_call(state.calls["c2"], COLOURS).plain


async def test_retry_waits_give_up_only_what_waits():
    import asyncio

    from qflow_tui.core.llm.retry import RetryWaits

    waits = RetryWaits()
    assert waits.give_up() == 0
    waits.begin("c1")
    waits.begin("c2")
    first = asyncio.ensure_future(waits.wait("c1", 60))
    second = asyncio.ensure_future(waits.wait("c2", 0.01))
    assert await second is False  # its wait ran out: the retry is made
    assert waits.waiting == ["c1"]
    assert waits.give_up("c9") == 0 and waits.give_up() == 1
    assert await first is True and waits.waiting == []


async def test_progressions_stopping_for_one_reason_toast_it_once():
    # A server that is down stops all six progressions alike: one toast says
    # why, then the run's failure; not seven toasts stacked over the program.
    def down(request: dict) -> str:
        raise LLMError("could not reach http://127.0.0.1:9/v1: is the server running?")

    client = ScriptClient.from_function(down, name="down.py")
    config = RunConfig(model="script/down.py").replace(prompts=6)
    app = create_app(config, client=client, sandbox=InProcessSandbox(), clock=lambda: 0.0, remember_theme=False)
    app.problem_text, app.tests_text = EXAMPLE_STATEMENT, EXAMPLE_TESTS
    async with app.run_test(size=SIZE) as pilot:
        await start_run(pilot)
        await finish_run(pilot)
        toasts = [str(n.message) for n in app._notifications]
        assert len([t for t in toasts if "stopped: could not reach" in t]) == 1, toasts
        assert any(m.title == "Run failed" for m in app.message_log)
        # The session still says each progression stopped.
        notices = [e for e in session_events(app.screen.session_path) if e["kind"] == "notice"]
        assert len([e for e in notices if "stopped: could not reach" in e["message"]]) == 6
