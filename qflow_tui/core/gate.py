"""Step-through: a gate the workflow awaits before each step.

Headless runs use :class:`OpenGate`; the app uses :class:`StepGate`, which can
run free, pause before the next step, or let exactly one step through.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Protocol


class Gate(Protocol):
    async def checkpoint(self, step: str, progression: int | None = None) -> None: ...


class OpenGate:
    async def checkpoint(self, step: str, progression: int | None = None) -> None:
        return None


class StepGate:
    """A gate that starts paused (``stepping=True``) or open.

    ``step()`` lets one checkpoint pass, ``resume()`` opens it for good,
    ``pause()`` makes the next checkpoint wait again. ``on_wait`` is called with
    the step name whenever the workflow stops at the gate.

    Progressions run concurrently, so several may wait at once: they pass one
    per ``step()``, in a fixed order, so stepping through a run is the same
    every time: round by round (every progression's k-th step before anyone's
    (k+1)-th), and within a round the run's shared steps first, then the lowest
    progression index. ``waiting_at`` and ``waiting_progression`` name the one
    the next ``step()`` lets through.
    """

    def __init__(self, stepping: bool = False, on_wait: Callable[[str], None] | None = None) -> None:
        self._stepping = stepping
        self._tokens = 0
        self._cond = asyncio.Condition()
        self.on_wait = on_wait
        self.waiting_at: str | None = None
        self.waiting_progression: int | None = None
        self._waiting: dict[tuple[int, int, int], tuple[str, int | None]] = {}
        self._arrivals = itertools.count()
        self._passed: dict[int | None, int] = {}
        """The last step number each progression (None: the shared steps) came to the gate with."""
        self._announced: tuple[int, int, int] | None = None

    @property
    def stepping(self) -> bool:
        return self._stepping

    def _announce(self) -> None:
        """Say who waits first, once per new head of the queue."""
        if not self._stepping or self._tokens > 0 or not self._waiting:
            self.waiting_at = self.waiting_progression = None
            self._announced = None
            return
        head = min(self._waiting)
        self.waiting_at, self.waiting_progression = self._waiting[head]
        if head != self._announced:
            self._announced = head
            if self.on_wait:
                self.on_wait(self.waiting_at)

    async def checkpoint(self, step: str, progression: int | None = None) -> None:
        async with self._cond:
            round_no = self._passed[progression] = self._passed.get(progression, -1) + 1
            if not self._stepping:
                return
            me = (round_no, -1 if progression is None else progression, next(self._arrivals))
            self._waiting[me] = (step, progression)
            try:
                self._announce()
                await self._cond.wait_for(lambda: not self._stepping or (self._tokens > 0 and min(self._waiting) == me))
            finally:
                del self._waiting[me]
            if self._stepping:
                self._tokens -= 1
            self._announce()
            self._cond.notify_all()

    async def _set(self, stepping: bool | None = None, add: int = 0) -> None:
        async with self._cond:
            if stepping is not None:
                self._stepping = stepping
            self._tokens += add
            self._announce()
            self._cond.notify_all()

    async def step(self) -> None:
        await self._set(add=1)

    async def resume(self) -> None:
        await self._set(stepping=False)

    async def pause(self) -> None:
        async with self._cond:
            self._stepping = True
            self._tokens = 0
            self._announce()
