"""Workflow steps: one typed identity and one way in and out of a step (the gate,
then started; finished, failed or stopped), shared by every workflow."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .events import StepOutcomeWord
from .llm import LLMError
from .steer.gate import Stop

if TYPE_CHECKING:
    from .context import RunContext


@dataclass(frozen=True)
class StepId:
    """Where a step sits in its workflow, in the paper's words.

    The step's name in events is ``stage`` alone, or ``stage:N`` with N the
    epoch (self-debug epochs, refinement iterations) or the attempt (clarifier
    attempts, Phase 2 iterations)."""

    stage: str
    """``program_generator``, ``self_debug``, ``clarifier``, ``test_executor``, ``solver`` ..."""
    epoch: int | None = None
    attempt: int | None = None
    progression: int | None = None
    """Index of the parallel progression, None for the run's shared steps."""
    node: str | None = None
    """The search-tree node the step works on (CodeTree)."""

    @property
    def name(self) -> str:
        number = self.epoch if self.epoch is not None else self.attempt
        return self.stage if number is None else f"{self.stage}:{number}"


@dataclass
class StepOutcome:
    """What the body of a step leaves for its ``step_finished`` event."""

    id: StepId
    outcome: StepOutcomeWord = "done"
    """``accepted``, ``rejected``, ``skipped`` or ``done``."""
    detail: str = ""
    """A few words on what the step did (``2/3 pass``), shown beside it in the timeline."""

    @property
    def name(self) -> str:
        """The step's name in events: ``fix:2``."""
        return self.id.name


@asynccontextmanager
async def step(
    ctx: RunContext,
    stage: str | StepId,
    agent: str | None,
    *,
    epoch: int | None = None,
    attempt: int | None = None,
    progression: int | None = None,
    node: str | None = None,
    detail: str = "",
    check: bool = False,
    stopped: str = "stopped",
) -> AsyncIterator[StepOutcome]:
    """Enter one step: ``async with step(ctx, "fix", "debugger", epoch=2, progression=0) as s:``.

    First the gate (step mode, breakpoints: the run waits here while a person
    looks or edits), then ``step_started``; on leaving, ``step_finished`` with
    the outcome and detail the body set on ``s`` (``s.outcome``:
    ``accepted``, ``rejected``, ``skipped`` or ``done``, the default), ``failed``
    on a model error, or ``stopped`` (with the detail ``stopped``) when the
    step is cancelled.

    The step's name (``s.name``, what events, breakpoints and ``fork --at``
    use) is ``stage``, or ``stage:N`` for a numbered step: ``epoch=N`` (a
    round of a loop: self-debug epochs, refinement iterations) or
    ``attempt=N`` (clarifier attempts). ``progression`` is the parallel
    progression the step works for (None: the whole run's); ``node`` a search
    tree's node. ``check``: ``agent`` checks the program the step's first
    agent wrote (enter it with that step's name), so the stop is that
    check's, as breakpoints and the app name it. ``stage`` may be a whole
    :class:`StepId` (the keyword identity arguments are then ignored)."""
    if isinstance(stage, StepId):
        sid = stage
    else:
        sid = StepId(stage, epoch=epoch, attempt=attempt, progression=progression, node=node)
    progression, node = sid.progression, sid.node
    name = sid.name
    await ctx.checkpoint(Stop(name, progression, agent, check))
    ctx.step_started(name, agent, progression, detail=detail, node=node)
    result = StepOutcome(sid)
    try:
        yield result
    except LLMError as exc:
        ctx.step_finished(name, "failed", agent, progression, detail=str(exc), node=node)
        raise
    except asyncio.CancelledError:
        ctx.step_finished(name, "stopped", agent, progression, detail=stopped, node=node)
        raise
    ctx.step_finished(name, result.outcome, agent, progression, detail=result.detail, node=node)


def decision_said(decision: str, reason: str) -> tuple[str, str, str]:
    """A decision as read aloud: (the check's verdict, the decision, what comes
    next). A reason that starts with the verdict (``rejected: on to
    self-debugging``) is split so the verdict comes first: "rejected, so
    continue: on to self-debugging", never "continue  rejected: ..." (a
    decision to go on that seemed to contradict its rejection)."""
    for verdict in ("rejected", "accepted"):
        if reason.startswith(verdict + ": "):
            return verdict, decision, reason[len(verdict) + 2 :]
    return "", decision, reason
