"""The app's own retry policy for model calls, visible as events.

The SDKs would retry by themselves, silently and without a bound on
``retry-after``; their retries are off and this policy decides instead:
retry what a later attempt may cure (408, 409, 429, 5xx including Anthropic's
529 overloaded, a refused or dropped connection, a stalled or cut stream) with
exponential backoff, honouring the server's ``retry-after``, within a cap on
the total wait of one call; never retry what will fail the same way again
(400, 401, 403, 404, a prompt too long for the window, an unreadable reply, the
per-call time limit).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from .base import LLMError

#: HTTP statuses that say "busy": the provider wants fewer calls at once.
BUSY_STATUSES = (429, 503, 529)


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait before calling again."""

    attempts: int = 5
    """Attempts in all (the first call included); 1 means never retry."""
    base_delay: float = 1.0
    """Wait before the second attempt; doubles with each further one."""
    max_delay: float = 30.0
    """The longest single wait of the backoff (a ``retry-after`` may ask for more,
    within ``max_total_wait``)."""
    max_total_wait: float = 120.0
    """The most one call may spend waiting between its attempts."""

    def wait_before(self, attempt: int, error: LLMError, waited: float) -> float | None:
        """Seconds to wait before attempt ``attempt + 1`` after ``error`` ended
        attempt ``attempt`` (having waited ``waited`` so far), or None to give up."""
        if error.fatal or not error.retryable or attempt >= self.attempts:
            return None
        backoff = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        wait = error.retry_after if error.retry_after is not None else backoff
        if waited + wait > self.max_total_wait:
            return None
        return wait


def is_busy(error: LLMError) -> bool:
    """The provider said it is overloaded or rate limited."""
    return error.status in BUSY_STATUSES


def gave_up(error: LLMError, attempts: int, waited: float) -> LLMError:
    """The last error, saying how hard we tried (same flags, same stop reason)."""
    if attempts <= 1:
        return error
    final = LLMError(
        f"{error} (gave up after {attempts} attempts, {waited:.1f} s of waiting)",
        fatal=error.fatal,
        status=error.status,
        retryable=error.retryable,
        stop_reason=error.stop_reason,
    )
    final.retry_after = error.retry_after
    return final


class RetryWaits:
    """The retries a run is waiting to make, and the one way to call one off: a
    person gives up a waiting retry (the app's key), and the call then ends as
    failed, as if the policy itself had given up. One per run."""

    def __init__(self) -> None:
        self._waiting: dict[str, asyncio.Event] = {}

    @property
    def waiting(self) -> list[str]:
        """The call ids (of the failed attempts) whose retry is being waited for."""
        return list(self._waiting)

    def begin(self, call_id: str) -> None:
        """Say that the retry of ``call_id`` is waited for from now (before its
        event goes out, so whoever hears the event can give it up)."""
        self._waiting[call_id] = asyncio.Event()

    async def wait(self, call_id: str, seconds: float) -> bool:
        """Wait ``seconds`` for the retry of ``call_id`` (after :meth:`begin`);
        True when a person gave it up meanwhile."""
        flag = self._waiting.get(call_id)
        if flag is None:
            flag = self._waiting[call_id] = asyncio.Event()
        try:
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for drops a
            # cancellation (the run stopping this progression) that arrives as the
            # flag is set, and the progression would go on.
            async with asyncio.timeout(max(0.0, seconds)):
                await flag.wait()
            return True
        except TimeoutError:
            return flag.is_set()
        finally:
            self._waiting.pop(call_id, None)

    def give_up(self, call_id: str | None = None) -> int:
        """Give up the waiting retry of ``call_id``, or every waiting retry;
        returns how many were given up."""
        ids = [call_id] if call_id is not None else list(self._waiting)
        given = 0
        for cid in ids:
            flag = self._waiting.get(cid)
            if flag is not None and not flag.is_set():
                flag.set()
                given += 1
        return given


def given_up_by_user(error: LLMError, attempt: int, attempts: int) -> LLMError:
    """The error a call ends with when a person gave up its retry before
    attempt ``attempt`` of ``attempts``: the workflow takes it as that agent's
    failed answer, as when the policy gives up."""
    final = LLMError(
        f"{error} (retry given up by the user before attempt {attempt} of {attempts})",
        fatal=error.fatal,
        status=error.status,
        retryable=False,
        stop_reason="given_up",
    )
    return final
