"""A person's edits to a run: what the workflow takes in place of an agent's
answer at a chosen step of a chosen progression. The workflow consults the
run's :class:`Steering` where an agent would answer; every edit taken is a
``steered`` event in the session (who, what, from what, to what)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..events import ProgramCandidate, Steered

if TYPE_CHECKING:
    from ..context import RunContext


@dataclass
class Steering:
    """Edits keyed by (step, progression)."""

    programs: dict[tuple[str, int], str] = field(default_factory=dict)
    """The program a progression ends the step with, in place of the agent's answer."""
    verdicts: dict[tuple[str, int], bool] = field(default_factory=dict)
    """The Code Quality Checker's decision on the step's program: True accept, False reject."""
    who: str = "user"

    def __bool__(self) -> bool:
        return bool(self.programs or self.verdicts)


def steered_program(ctx: RunContext, step: str, progression: int, current: str, agent: str) -> str | None:
    """The edited program for ``step`` of ``progression``, taken once (and said
    in a ``steered`` event); None when nobody edited it."""
    steering = ctx.steering
    if not isinstance(steering, Steering):
        return None
    program = steering.programs.pop((step, progression), None)
    if program is None:
        return None
    ctx.event(
        Steered(
            step=step,
            agent=agent,
            progression=progression,
            who=steering.who,
            what="program",
            before=current,
            after=program,
        )
    )
    ctx.event(ProgramCandidate(step=step, agent=agent, progression=progression, program=program))
    return program


def steered_verdict(ctx: RunContext, step: str, progression: int) -> bool | None:
    """The overridden quality verdict for ``step`` of ``progression``, taken once; None: the checker decides."""
    steering = ctx.steering
    if not isinstance(steering, Steering):
        return None
    verdict = steering.verdicts.pop((step, progression), None)
    if verdict is None:
        return None
    ctx.event(
        Steered(
            step=step,
            agent="code_quality_checker",
            progression=progression,
            who=steering.who,
            what="verdict",
            before="the checker's verdict (not asked)",
            after="accept" if verdict else "reject",
        )
    )
    return verdict
