"""How many model calls a provider gets at once: adaptive, per provider.

A limiter starts at the cap (``--max-connections``), halves when the provider
says it is busy (429, 503, 529 overloaded) and climbs back by one after as many
successful calls as the current limit (additive increase, multiplicative
decrease, as TCP does), never above the cap. One limiter serves every run of the
process that talks to the same provider and base URL, so two runs at once share
the provider's patience. Script and replay models need no limit at all.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

#: The cap for HTTP providers when the config leaves it automatic (0).
DEFAULT_MAX_CONNECTIONS = 16
#: Busy answers closer together than this count as one (a burst of 429s from
#: the calls already in flight must not halve the limit once per call).
BUSY_COOLDOWN = 1.0


class ConnectionLimiter:
    """At most ``limit`` calls in flight; ``None`` for no limit."""

    def __init__(self, cap: int | None, *, cooldown: float = BUSY_COOLDOWN) -> None:
        self.cap = cap
        self.limit = cap
        self.in_flight = 0
        self.cooldown = cooldown
        self.peak = 0
        """The most calls that were ever in flight at once."""
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._successes = 0
        self._last_cut = -float("inf")

    def __repr__(self) -> str:
        return f"ConnectionLimiter(limit={self.limit}, cap={self.cap}, in_flight={self.in_flight})"

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one connection for the body of the ``async with``."""
        await self._acquire()
        try:
            yield
        finally:
            self.in_flight -= 1
            self._wake()

    async def _acquire(self) -> None:
        while self.limit is not None and self.in_flight >= self.limit:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
                elif waiter.done() and not waiter.cancelled():
                    self._wake()  # pass the wake-up on to the next in line
                raise
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)

    def _wake(self) -> None:
        free = len(self._waiters) if self.limit is None else self.limit - self.in_flight
        while free > 0 and self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                free -= 1

    def busy(self) -> int | None:
        """The provider said 429 or overloaded: halve the limit (once per burst).
        Returns the new limit when it changed."""
        now = time.monotonic()
        if now - self._last_cut < self.cooldown:
            return None
        self._last_cut = now
        current = self.limit if self.limit is not None else max(self.in_flight, 2)
        new = max(1, current // 2)
        self._successes = 0
        if new == self.limit:
            return None
        self.limit = new
        return new

    def succeeded(self) -> None:
        """A call finished: after ``limit`` successes in a row, allow one more."""
        if self.limit is None or self.cap is None or self.limit >= self.cap:
            return
        self._successes += 1
        if self._successes >= self.limit:
            self._successes = 0
            self.limit += 1
            self._wake()


_shared: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], ConnectionLimiter]] = (
    weakref.WeakKeyDictionary()
)


def limiter_for(client: object, max_connections: int) -> ConnectionLimiter:
    """The limiter of ``client``'s provider and base URL on this event loop.
    ``max_connections`` 0 means automatic: no limit for a model that is not a
    network service (script, replay), :data:`DEFAULT_MAX_CONNECTIONS` otherwise."""
    base_url = getattr(client, "base_url", None)
    provider = getattr(client, "provider", None)
    if base_url is None or provider is None:  # script, replay: nothing to overload
        return ConnectionLimiter(max_connections or None)
    # A server with few slots (a model run in the app) says how many it has.
    cap = max_connections or getattr(client, "max_connections", None) or DEFAULT_MAX_CONNECTIONS
    loop = asyncio.get_running_loop()
    limiters = _shared.setdefault(loop, {})
    key = (provider, base_url, cap)
    if key not in limiters:
        limiters[key] = ConnectionLimiter(cap)
    return limiters[key]
