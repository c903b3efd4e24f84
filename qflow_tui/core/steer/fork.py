"""Fork a recorded session at a step: the new run takes every model call the
recording made before that step from the recording (prompt-hash matching of
:class:`~qflow_tui.core.llm.replay.ReplayClient`, no tokens) and asks the live
model for everything from the step on, even where the recording has an answer."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..llm import Completion, DeltaCallback, LLMClient, LLMRequest
from ..llm.replay import RecordedCall, ReplayClient, describe_call


class ForkError(Exception):
    """A fork that cannot be made as asked (one line for the user)."""


@dataclass(frozen=True)
class BranchPoint:
    step: str
    """The step's name in events: ``self_debug:1``."""
    progression: int | None
    """The progression whose step starts the branch (None: a shared step)."""
    event_index: int
    """Index of that step's first ``step_started`` in the recording's events."""
    prefix_calls: frozenset[str]
    """Call ids the recording started before the branch: answered from it."""
    prefix_steps: frozenset[tuple[str, int | None]] = frozenset()
    """(step, progression) the recording started before the branch."""


def session_steps(events: list[Any]) -> list[str]:
    """The steps a session took, in the order they first started."""
    seen: dict[str, None] = {}
    for e in events:
        if e.kind == "step_started" and e.step:
            seen.setdefault(e.step, None)
    return list(seen)


def branch_point(events: list[Any], step: str, progression: int | None = None) -> BranchPoint:
    """Where ``step`` (of ``progression`` when given) first started; raises
    :class:`ForkError` naming the steps the session has."""
    for i, e in enumerate(events):
        if e.kind == "step_started" and e.step == step and (progression is None or e.progression == progression):
            before = events[:i]
            prefix = frozenset(x.call_id for x in before if x.kind == "llm_call_started")
            started = frozenset((x.step, x.progression) for x in before if x.kind == "step_started" and x.step != step)
            return BranchPoint(
                step=step, progression=e.progression, event_index=i, prefix_calls=prefix, prefix_steps=started
            )
    steps = session_steps(events)
    where = f" for progression {progression}" if progression is not None else ""
    raise ForkError(f"the session has no step {step!r}{where}; its steps: {', '.join(steps) if steps else 'none'}")


class ForkClient(ReplayClient):
    """A replay model that answers only the calls made before the branch point;
    every other call goes to ``fallback`` (the live model)."""

    def __init__(self, path: str | Path, fallback: LLMClient, point: BranchPoint) -> None:
        super().__init__(path, fallback)
        self.point = point
        self.prefix_calls = point.prefix_calls
        self.live_before: list[str] = []
        """Calls of steps the recording took before the branch that it could not
        answer (other settings changed their prompts): asked of the live model."""
        # Calls from the branch on are spent already as far as matching goes.
        self._used.update(c.call_id for c in self.calls if c.call_id not in self.prefix_calls)

    def _match(self, request: LLMRequest, prompt_hash: str) -> RecordedCall | None:
        call = super()._match(request, prompt_hash)
        return call if call is not None and call.call_id in self.prefix_calls else None

    async def complete(self, request: LLMRequest, on_delta: DeltaCallback) -> Completion:
        fell_back = self.fell_back
        completion = await super().complete(request, on_delta)
        if self.fell_back > fell_back and (request.step, request.progression) in self.point.prefix_steps:
            self.live_before.append(describe_call(request, request.step))
        return completion
