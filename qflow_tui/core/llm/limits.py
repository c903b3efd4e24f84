"""Per-call limits that hold whatever the provider does: a wall-time limit and a
stop for degenerate repetition in the streamed text.

A small model at temperature 0 often loops ("return a + b\\n" over and over)
until ``max_tokens``; one such call ran 762 s on a busy machine and held up a
whole run. :func:`complete_within_limits` wraps any :class:`LLMClient` call:
it watches the deltas with a :class:`RepetitionDetector` and ends the stream
when the tail has become the same span repeated many times (the answer is kept,
with the repetition collapsed to one copy, and marked ``repetition``), and it
ends a call that outlives its time limit with a non-fatal :class:`LLMError`
whose ``stop_reason`` is ``timeout`` (the text streamed so far stays in the
session as the call's deltas).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from ..summary import CUT_REASONS
from .base import Completion, DeltaCallback, LLMClient, LLMError, LLMRequest, Repetition, count_cut

#: Why a call ended, as recorded on its event and counted in the run summary.
STOP_REASONS = ("finished", "max_tokens", "repetition", "timeout", "failed", "retried", "cancelled")
__all__ = ["CUT_REASONS", "STOP_REASONS", "CallLimits", "RepetitionDetector", "complete_within_limits"]

#: The providers' own words for a finished answer and for one cut at max tokens.
_PROVIDER_STOPS = {
    "end_turn": "finished",
    "stop_sequence": "finished",
    "stop": "finished",
    "tool_use": "finished",
    "tool_calls": "finished",
    "max_tokens": "max_tokens",
    "length": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
}


def normalise_stop_reason(provider_reason: str | None) -> str:
    """``end_turn``/``stop`` -> ``finished``; ``max_tokens``/``length`` -> ``max_tokens``.
    Anything else a provider says (``content_filter``, ``refusal``) is kept as it is."""
    if provider_reason is None:
        return "finished"
    return _PROVIDER_STOPS.get(provider_reason, provider_reason)


class RepetitionDetector:
    """Notices when the end of a growing text is one span repeated over and over.

    Work stays linear in the length of the stream: the tail is examined only
    each time ``check_every`` more characters have arrived, and then only its
    last ``window`` characters, with one pass of the prefix function (KMP) over
    that window reversed, which gives the shortest period of every suffix.
    A suffix of length ``L`` with shortest period ``p`` counts as degenerate
    when ``L >= min_chars`` and ``L >= min_repeats * p``: at least
    ``min_repeats`` copies of the span and enough text that ordinary code
    (a few identical lines, a row of ``0, 0, 0``) never trips it.
    """

    def __init__(
        self, *, min_repeats: int = 5, min_chars: int = 500, window: int = 8192, check_every: int = 256
    ) -> None:
        self.min_repeats = min_repeats
        self.min_chars = min_chars
        self.window = window
        self.check_every = check_every
        self._parts: list[str] = []
        self._size = 0
        self._next_check = min_chars
        self.period = 0
        """Length of the repeated span once found."""
        self.repeated = 0
        """Characters at the end of the text that are the span repeated."""

    @property
    def text(self) -> str:
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    def feed(self, delta: str) -> bool:
        """Add streamed text; True once the tail is a degenerate repetition."""
        self._parts.append(delta)
        self._size += len(delta)
        if self._size < self._next_check:
            return False
        self._next_check = self._size + self.check_every
        return self._check()

    def _check(self) -> bool:
        text = self.text
        tail = text[-self.window :][::-1]  # reversed: suffixes of text are prefixes here
        n = len(tail)
        pi = [0] * n
        best_len = best_period = 0
        k = 0
        for i in range(1, n):
            c = tail[i]
            while k and tail[k] != c:
                k = pi[k - 1]
            if tail[k] == c:
                k += 1
            pi[i] = k
            length = i + 1
            period = length - k
            if k and length >= self.min_chars and length >= self.min_repeats * period:
                best_len, best_period = length, period
        if best_len:
            self.repeated, self.period = best_len, best_period
            return True
        return False

    def collapsed(self) -> str:
        """The text with its repeated tail cut down to one copy of the span."""
        text = self.text
        if not self.repeated:
            return text
        return text[: len(text) - self.repeated + self.period]


@dataclass(frozen=True)
class CallLimits:
    """What one model call may take besides its ``max_tokens``."""

    time_limit: float | None = 300.0
    """Seconds of wall time for the whole call (``None``: no limit)."""
    repetition_stop: bool = True
    """End a stream whose tail has become one span repeated over and over."""


class _RepetitionSeen(Exception):
    """Raised from the delta callback to end the provider's stream."""


async def complete_within_limits(
    client: LLMClient, request: LLMRequest, on_delta: DeltaCallback, limits: CallLimits
) -> Completion:
    """``client.complete`` under ``limits``. Sets ``stop_reason`` to one
    of :data:`STOP_REASONS` (keeping the provider's own word in
    ``provider_stop_reason``). Raises a non-fatal :class:`LLMError`
    with ``stop_reason="timeout"`` when the time limit passes."""
    detector = RepetitionDetector() if limits.repetition_stop else None
    loop = asyncio.get_running_loop()
    start = loop.time()
    first: float | None = None
    streamed: list[str] = []

    def watch(text: str) -> None:
        nonlocal first
        if first is None and text:
            first = loop.time() - start
        streamed.append(text)
        on_delta(text)
        if detector is not None and detector.feed(text):
            raise _RepetitionSeen

    deadline = asyncio.timeout(limits.time_limit)
    try:
        async with deadline:
            completion = await client.complete(request, watch)
    except _RepetitionSeen:
        assert detector is not None
        latency = loop.time() - start
        # The provider sends no usage for a stream we end: count it ourselves.
        inp, out, exact = await count_cut(client, request, detector.text)
        return Completion(
            text=detector.collapsed(),
            input_tokens=inp,
            output_tokens=out,
            tokens_estimated=not exact,
            latency=latency,
            stop_reason="repetition",
            time_to_first_token=first,
            repetition=Repetition(detector.period, detector.repeated, len(detector.text)),
        )
    except TimeoutError:
        if not deadline.expired():
            raise
        err = LLMError(
            f"{getattr(client, 'name', 'the model')}: no complete answer within {limits.time_limit:g} s "
            "(the per-call time limit; raise it with --call-timeout)",
            stop_reason="timeout",
        )
        err.counted = await count_cut(client, request, "".join(streamed))
        raise err from None
    provider_reason = completion.stop_reason
    completion.provider_stop_reason = provider_reason
    completion.stop_reason = normalise_stop_reason(provider_reason)
    if completion.time_to_first_token is None:
        completion.time_to_first_token = first
    return completion
