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
