"""RunState's pieces: the state some workflows' events build of their own, folded
by the one reducer after the shared state, and a plugin's piece taken the same way."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from qflow_tui.core import events as ev
from qflow_tui.core.pieces import PIECES, ImaginedChecks, SearchNodes, StatePiece, SynthTests, register_piece
from qflow_tui.core.run_state import RunState
from qflow_tui.core.run_text import RunText


@dataclass
class Retries(StatePiece):
    """A plugin's piece: the calls that waited for a retry, and the step each was in."""

    events = (ev.LLMCallRetry,)
    seen: list[tuple[str, str | None]] = field(default_factory=list)

    def apply(self, state: RunState, event: ev.Event) -> None:
        assert isinstance(event, ev.LLMCallRetry)
        call = state.calls[event.call_id]  # the shared state is folded first
        self.seen.append((call.call_id, call.step))


def _retrying() -> list[ev.Event]:
    return [
        ev.RunStarted(workflow="qualityflow", model="m", config={}, problem={}),
        ev.LLMCallStarted(
            call_id="c1",
            agent="program_generator",
            step="program_generator",
            progression=0,
            model="m",
            system="",
            messages=[],
            temperature=0.0,
        ),
        ev.LLMCallRetry(call_id="c1", error="busy", retry_attempt=2, retry_attempts=3, wait=1.0),
    ]


def test_a_registered_piece_folds_its_events_after_the_shared_state():
    register_piece(Retries)
    try:
        assert register_piece(Retries) is Retries and PIECES.count(Retries) == 1
        state = RunState()
        for e in _retrying():
            state.apply(e)
        assert state.piece(Retries).seen == [("c1", "program_generator")]
        state.reset()
        assert state.piece(Retries).seen == []  # a fresh piece per run
    finally:
        PIECES.remove(Retries)


def test_a_piece_never_registered_is_one_clear_error():
    with pytest.raises(KeyError, match="Retries is not a registered piece"):
        RunState().piece(Retries)


def test_the_built_in_pieces_each_fold_their_own_events():
    state = RunState()
    for e in [
        ev.RunStarted(workflow="qualityflow", model="m", config={"max_tests": 9, "test_rounds": 2}, problem={}),
        ev.StepStarted(step="test_designer", agent="test_designer"),
        ev.TestsDesigned(step="test_designer", tests=["assert f(1) == 1", "assert f(2) == 4"], round=1, total=2),
        ev.TQCVerdict(step="test_quality_checker", index=1, test="assert f(2) == 4", verdict="rejected"),
        ev.ImaginedCheck(
            step="program_generator",
            progression=0,
            test="assert f(1) == 1",
            function_call="f(1)",
            reasoning="r",
            answer="1",
            value="1",
            verdict="pass",
        ),
        ev.TreeNode(node="1", parent=None, strategy="s", code="x", passed=1, total=1, score=1.0, action="accept"),
    ]:
        state.apply(e)
    tests = state.piece(SynthTests)
    assert [(t.test, t.verdict) for t in tests.tests] == [("assert f(1) == 1", None), ("assert f(2) == 4", "rejected")]
    assert state.cells[("test_designer", None)].detail == "2 tests, round 1/2"
    assert RunText(state).progress() == "design tests · tests designed 2/9"
    assert RunText(state).test_counts().rejected == 1
    assert [r.verdict for r in state.piece(ImaginedChecks).of(0)] == ["pass"]
    assert list(state.piece(SearchNodes).nodes) == ["1"] and state.piece(SearchNodes).returned is None
