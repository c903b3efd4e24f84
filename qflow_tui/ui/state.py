"""The run's state as the app shows it: the core's one projection of a run
(core/run_state.py, with the pieces of core/pieces/ and its words from
core/run_text.py), fed events whose text is made safe for the terminal."""

from __future__ import annotations

from ..core import events as ev
from ..core import run_state
from ..core.pieces import ImaginedChecks, ImaginedRecord, SearchNode, SearchNodes, SynthTest, SynthTests, is_imagining
from ..core.run_state import (
    MAX_CALL_CHARS,
    MAX_CALLS_PER_PANE,
    AgentInfo,
    CallRecord,
    PlanStep,
    RunShape,
    StageCell,
    find_plan_step,
    run_shape,
)
from ..core.run_text import RunText
from ..core.safe_text import scrub

__all__ = [
    "MAX_CALLS_PER_PANE",
    "MAX_CALL_CHARS",
    "AgentInfo",
    "CallRecord",
    "ImaginedChecks",
    "ImaginedRecord",
    "PlanStep",
    "RunShape",
    "RunState",
    "RunText",
    "SearchNode",
    "SearchNodes",
    "StageCell",
    "SynthTest",
    "SynthTests",
    "find_plan_step",
    "is_imagining",
    "run_shape",
]


class RunState(run_state.RunState):
    """The projection with every string cleaned as it enters: model, program and
    file text never drives the terminal."""

    def apply(self, event: ev.Event) -> None:
        super().apply(scrub(event))
