"""The words a run's state is shown in: the view model the run screen, replay
and ``qflow solve``'s progress line read, so :class:`RunState` holds data only."""

from __future__ import annotations

from dataclasses import dataclass

from .pieces import SynthTests, TestCounts
from .run_state import RunState, numbered_step


@dataclass(frozen=True)
class RunText:
    """One run's state, in words."""

    state: RunState

    def progress(self) -> str:
        """One line: which step (and which of its repeats), how many tests designed."""
        state = self.state
        if state.failed is not None:
            return "cancelled" if state.failed.cancelled else "failed: " + state.failed.error
        if state.finished is not None:
            where = f" at {state.finished.accepted_at}" if state.finished.accepted_at else ""
            return f"finished: {state.finished.outcome}{where}"
        if not state.started:
            return "waiting to start"
        parts = [state.step_label(state.current_step) if state.current_step else "starting"]
        numbered = numbered_step(state.current_step or "")
        if numbered:
            repeats = sum(1 for s in state.plan if (numbered_step(s.step) or ("", 0))[0] == numbered[0])
            if repeats > 1:
                parts[0] += f" of {repeats}"
        tests = state.piece(SynthTests)
        if tests.round:
            most = f"/{tests.most}" if tests.most else ""
            parts.append(f"tests designed {tests.designed}{most}")
        if state.streaming:
            parts.append(f"{len(state.streaming)} streaming")
        if state.retries_waiting:
            parts.append(f"{len(state.retries_waiting)} waiting to retry")
        return " · ".join(parts)

    def test_counts(self) -> TestCounts:
        """The tests as the Tests tab's header counts them."""
        return self.state.piece(SynthTests).counts()
