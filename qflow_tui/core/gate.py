"""Step-through: a gate the workflow awaits before each step.

Headless runs use :class:`OpenGate`; the app uses :class:`StepGate`, which can
run free, pause before the next step, or let exactly one step through.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol


class Gate(Protocol):
    async def checkpoint(self, step: str) -> None: ...


class OpenGate:
    async def checkpoint(self, step: str) -> None:
        return None


class StepGate:
    """A gate that starts paused (``stepping=True``) or open.

    ``step()`` lets one checkpoint pass, ``resume()`` opens it for good,
    ``pause()`` makes the next checkpoint wait again. ``on_wait`` is called with
    the step name whenever the workflow stops at the gate.
    """

    def __init__(self, stepping: bool = False, on_wait: Callable[[str], None] | None = None) -> None:
        self._stepping = stepping
        self._tokens = 0
        self._cond = asyncio.Condition()
        self.on_wait = on_wait
        self.waiting_at: str | None = None

    @property
    def stepping(self) -> bool:
        return self._stepping

    async def checkpoint(self, step: str) -> None:
        async with self._cond:
            if not self._stepping:
                return
            if self._tokens == 0:
                self.waiting_at = step
                if self.on_wait:
                    self.on_wait(step)
                await self._cond.wait_for(lambda: not self._stepping or self._tokens > 0)
                self.waiting_at = None
            if self._stepping:
                self._tokens -= 1

    async def _set(self, stepping: bool | None = None, add: int = 0) -> None:
        async with self._cond:
            if stepping is not None:
                self._stepping = stepping
            self._tokens += add
            self._cond.notify_all()

    async def step(self) -> None:
        await self._set(add=1)

    async def resume(self) -> None:
        await self._set(stepping=False)

    async def pause(self) -> None:
        async with self._cond:
            self._stepping = True
            self._tokens = 0
