"""Step-through: a gate the workflow awaits before each step.

Headless runs use :class:`OpenGate`; the app uses :class:`StepGate`, which can
run free, pause before the next step, or let exactly one step through, and stop
at breakpoints (:class:`Breakpoint`: before a chosen agent or step, at every
step of a progression, after a Quality Checker rejection or a revert).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Stop:
    """A place a run may stop before: one agent's work at a step of a progression."""

    step: str
    """The step's name in events: ``self_debug:1``."""
    progression: int | None = None
    """The progression, or None for a step of the whole run."""
    agent: str | None = None
    """The agent about to work."""
    check: bool = False
    """The agent checks the work the step's first agent did (the workflow's
    checker: QualityFlow's Code Quality Checker), rather than starting the step."""


class Gate(Protocol):
    async def checkpoint(self, stop: Stop) -> None: ...


class OpenGate:
    async def checkpoint(self, stop: Stop) -> None:
        return None


#: Breakpoint kinds and what each names.
BREAKPOINT_KINDS = {
    "agent": "an agent role, e.g. agent:self_debugger (stop before each of its steps)",
    "step": "a step or a stage, e.g. step:self_debug:2, step:self_debug (stop before it starts)",
    "check": "the check of a step's program, e.g. check:self_debug:1, check:self_debug, or check:all",
    "progression": "a progression index, e.g. progression:1 (stop before each of its steps)",
    "decision": "decision:reject (after the checker rejects) or decision:revert",
}
_DECISIONS = ("reject", "revert")


class BreakpointError(ValueError):
    """A breakpoint that cannot be read (one line for the user)."""


@dataclass(frozen=True)
class Breakpoint:
    """Where a run in free mode stops: ``kind:value``."""

    kind: str
    value: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.value}"

    @classmethod
    def parse(cls, text: str) -> Breakpoint:
        kind, sep, value = text.strip().partition(":")
        kinds = ", ".join(f"{k}:..." for k in BREAKPOINT_KINDS)
        if not sep or kind not in BREAKPOINT_KINDS or not value:
            raise BreakpointError(f"breakpoint {text!r} is not one of {kinds} (e.g. agent:self_debugger)")
        if kind == "progression" and not value.isdigit():
            raise BreakpointError(f"breakpoint {text!r}: a progression is a number from 0, e.g. progression:1")
        if kind == "decision" and value not in _DECISIONS:
            raise BreakpointError(f"breakpoint {text!r}: a decision breakpoint is decision:reject or decision:revert")
        return cls(kind, value)

    def matches(self, stop: Stop) -> bool:
        """Whether ``stop`` is one to stop at (decision breakpoints are matched
        by the gate, which sees the decisions)."""
        if self.kind == "agent":
            return stop.agent == self.value
        if self.kind == "progression":
            return stop.progression == int(self.value)
        if self.kind in ("step", "check") and stop.check == (self.kind == "check"):
            # A whole step name (self_debug:2) or a stage (self_debug); every check: check:all.
            named = self.value in (stop.step, stop.step.split(":", 1)[0])
            return named or (self.kind == "check" and self.value == "all")
        return False


def _decided(reasons: dict[int | None, str]) -> str:
    """Decision breakpoints' reasons in words, each with the progressions it
    came from: ``decision:reject after program_generator (p1, p3)``."""
    by_reason: dict[str, list[str]] = {}
    for progression, reason in reasons.items():
        by_reason.setdefault(reason, []).extend([] if progression is None else [f"p{progression}"])
    return "; ".join(f"{r} ({', '.join(ps)})" if ps else r for r, ps in by_reason.items())


class StepGate:
    """A gate that starts paused (``stepping=True``) or open.

    ``step()`` lets the announced checkpoint pass, ``resume()`` opens it for good,
    ``pause()`` makes the next checkpoint wait again. ``on_wait`` is called with
    the step name whenever the workflow stops at the gate.

    Progressions run concurrently, so several may wait at once: they pass one
    per ``step()``, in a fixed order among those waiting: round by round (every
    progression's k-th step before anyone's (k+1)-th), and within a round the
    run's shared steps first, then the lowest progression index. A checkpoint
    that arrives while another is announced goes first if it is earlier in that
    order (a shared step a check asked for, after the next progression's check
    was shown). :attr:`waiting` is the one the next ``step()`` lets through; a
    stop that arrives after that ``step()``, even one earlier in the order, waits
    to be announced in its turn. ``resume()`` lets the announced stop go for
    sure; the others queued behind it meet their own breakpoints.
    """

    def __init__(
        self,
        stepping: bool = False,
        on_wait: Callable[[Stop], None] | None = None,
        breakpoints: Iterable[Breakpoint | str] = (),
    ) -> None:
        self._stepping = stepping
        self.breakpoints: list[Breakpoint] = [
            b if isinstance(b, Breakpoint) else Breakpoint.parse(b) for b in breakpoints
        ]
        """Where a run going free stops by itself (any one matching)."""
        self.stopped_by: str | None = None
        """Why the run stopped at the gate: the breakpoint that matched
        (``agent:self_debugger``, ``decision:reject after self_debug:1``); None in step mode."""
        self._after_decision: dict[int | None, str] = {}
        """Progressions (None: the whole run) a matching decision came for: the next checkpoint stops."""
        self._go: set[tuple[int, int, int]] = set()
        """Announced stops a ``step()`` let through that have not passed yet."""
        self._cond = asyncio.Condition()
        self.on_wait = on_wait
        self.waiting: Stop | None = None
        """The stop the next ``step()`` lets through (announced), if any."""
        self._waiting: dict[tuple[int, int, int], Stop] = {}
        self._arrivals = itertools.count()
        self._passed: dict[int | None, int] = {}
        """The last step number each progression (None: the shared steps) came to the gate with."""
        self._announced: tuple[int, int, int] | None = None
        self._resumed: tuple[int, int, int] | None = None
        """The stop ``resume()`` let go: it passes whatever the others queued behind it meet."""

    @property
    def stepping(self) -> bool:
        return self._stepping

    @property
    def waiting_at(self) -> str | None:
        """The step of the stop the next ``step()`` lets through, if any."""
        return self.waiting.step if self.waiting is not None else None

    @property
    def waiting_progression(self) -> int | None:
        return self.waiting.progression if self.waiting is not None else None

    def _announce(self) -> None:
        """Say who waits first, once per new head of the queue (never a stop already let go)."""
        queued = [k for k in self._waiting if k != self._resumed]
        if not self._stepping or self._go or not queued:
            self.waiting = None
            self._announced = None
            return
        head = min(queued)
        self.waiting = self._waiting[head]
        if head != self._announced:
            self._announced = head
            if self.on_wait:
                self.on_wait(self.waiting)

    def note_decision(self, decision: str, progression: int | None = None, step: str | None = None) -> None:
        """The checker decided (``accept``, ``continue``, ``clarify``,
        ``revert``): a matching decision breakpoint stops the run at the next
        checkpoint of that progression (or of the whole run)."""
        for b in self.breakpoints:
            if b.kind != "decision":
                continue
            if (b.value == "revert" and decision == "revert") or (b.value == "reject" and decision != "accept"):
                self._after_decision[progression] = f"{b} after {step or 'a check'}"
                return

    def _hit(self, stop: Stop) -> str | None:
        """Why this checkpoint is a stop (a breakpoint matched), or None.

        Each matching decision stops the run once, at the first step after it:
        its progression's next step, or a step of the whole run (test design,
        the revert) that comes first, which then stands for every decision
        waiting."""
        if stop.progression is not None and stop.progression in self._after_decision:
            return _decided({stop.progression: self._after_decision.pop(stop.progression)})
        if None in self._after_decision or (stop.progression is None and self._after_decision):
            waiting, self._after_decision = self._after_decision, {}
            return _decided(waiting)
        hit = next((b for b in self.breakpoints if b.matches(stop)), None)
        return str(hit) if hit is not None else None

    async def checkpoint(self, stop: Stop) -> None:
        async with self._cond:
            round_no = self._passed[stop.progression] = self._passed.get(stop.progression, -1) + 1
            if not self._stepping:
                reason = self._hit(stop) if self.breakpoints else None
                if reason is None:
                    return
                # A breakpoint: stop here as step mode does, until step() or resume().
                self._stepping, self.stopped_by = True, reason
            me = (round_no, -1 if stop.progression is None else stop.progression, next(self._arrivals))
            self._waiting[me] = stop
            try:
                while True:
                    self._announce()
                    await self._cond.wait_for(lambda: not self._stepping or me in self._go or me == self._resumed)
                    if self._stepping or me == self._resumed or not self.breakpoints:
                        break
                    # Queued at the gate when the run was let go: a breakpoint of its own
                    # still stops it (agent:self_debugger stops every progression's debugger).
                    reason = self._hit(stop)
                    if reason is None:
                        break
                    self._stepping, self.stopped_by = True, reason
            finally:
                del self._waiting[me]
                self._go.discard(me)
                if self._resumed == me:
                    self._resumed = None
            self._announce()
            self._cond.notify_all()

    async def _set(self, stepping: bool) -> None:
        async with self._cond:
            self._stepping = stepping
            self._announce()
            self._cond.notify_all()

    async def step(self) -> None:
        """Let the announced stop through; with none announced, nothing (a step is
        never kept for a stop that has not been shown)."""
        async with self._cond:
            if self._stepping and self._announced is not None:
                self._go.add(self._announced)
            self._announce()
            self._cond.notify_all()

    async def resume(self) -> None:
        """Run free again (to the next breakpoint, if any); the announced stop goes for sure."""
        self.stopped_by = None
        self._resumed = self._announced if self._announced is not None else (min(self._waiting, default=None))
        await self._set(stepping=False)

    async def pause(self) -> None:
        async with self._cond:
            self._stepping = True
            self._announce()
