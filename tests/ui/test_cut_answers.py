"""A cut answer is marked in its agent pane: the state keeps why, the pane
adds a "✂" line under the text."""

from __future__ import annotations

from qflow_tui.core import events as ev
from qflow_tui.ui.palette import Palette
from qflow_tui.ui.state import RunState
from qflow_tui.ui.widgets.agent_pane import render_call

COLOURS = Palette("green", "red", "yellow", "cyan", "blue", "grey50", "white", "black", "monokai", "monokai", True)
WHERE = {"agent": "program_generator", "progression": 0, "step": "program_generator", "call_id": "c1"}


def _state(*finish: ev.Event) -> RunState:
    state = RunState()
    start = ev.LLMCallStarted(**WHERE, model="m", system="", messages=[], temperature=0.0)
    for i, e in enumerate([start, ev.TextDelta(**WHERE, text="def f("), *finish], start=1):
        e.seq = i
        state.apply(e)
    return state


def test_an_answer_cut_at_max_tokens_says_so_in_its_pane():
    state = _state(
        ev.LLMCallFinished(
            **WHERE,
            response="def f(",
            input_tokens=None,
            output_tokens=None,
            latency=1.0,
            stop_reason="max_tokens",
            detail="cut at max tokens (512)",
        )
    )
    (call,) = state.calls_for("program_generator", 0)
    assert call.cut == "cut at max tokens (512)"
    assert render_call(call, COLOURS).plain.endswith("def f(\n✂ cut at max tokens (512)")


def test_a_finished_answer_has_no_mark_and_a_timeout_has_one():
    done = _state(ev.LLMCallFinished(**WHERE, response="def f(): pass", input_tokens=3, output_tokens=4, latency=1.0))
    assert "✂" not in render_call(done.calls_for("program_generator", 0)[0], COLOURS).plain
    timed_out = _state(
        ev.LLMCallFailed(**WHERE, error="m: no complete answer within 300 s", stop_reason="timeout", partial_chars=6)
    )
    assert "✂ timed out" in render_call(timed_out.calls_for("program_generator", 0)[0], COLOURS).plain
