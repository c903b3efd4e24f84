"""The one client protocol every model provider implements."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict

from ..safe_text import valid_text


class LLMError(Exception):
    """A model call failed in a way a user can act on; the message says how.

    ``fatal`` errors end the whole run (a rejected key, an unknown model, a
    replay with no recording for the call): every other call would fail the same
    way. Others (busy, timed out, a request too long) end only the progression
    that made the call; ``status`` and ``retryable`` say more where known.
    ``stop_reason`` is what the call's event records: ``failed``, or ``timeout``
    when the per-call time limit ended it. ``resumable`` False: the failure is
    decided by the recorded problem itself (the reference model's problem
    without a reference), which a resume runs again unchanged, so it would
    fail the same way and ``qflow solve`` offers none."""

    def __init__(
        self,
        message: str,
        *,
        fatal: bool = False,
        status: int | None = None,
        retryable: bool = False,
        stop_reason: str = "failed",
        resumable: bool = True,
    ) -> None:
        super().__init__(message)
        self.resumable = resumable
        self.fatal = fatal
        self.status = status
        self.retryable = retryable
        self.stop_reason = stop_reason
        self.retry_after: float | None = None
        """Seconds the server asked to wait before trying again (``retry-after``)."""
        self.counted: tuple[int, int, bool] | None = None
        """(prompt tokens, answer tokens so far, exact) of a call we cut (the time
        limit): it cost them though the provider reported no usage."""


class ScriptRequest(TypedDict):
    """What a ``script/<file.py>`` responder's ``respond(request)`` receives: the
    fixed contract of script models (see :meth:`LLMRequest.as_script_request`)."""

    agent: str
    turn: int
    messages: list[dict[str, str]]
    system: str
    temperature: float
    progression: int | None
    epoch: int | None
    attempt: int | None
    test: str | None


class CallPlace(TypedDict, total=False):
    """Where a model call sits inside a loop, beyond its agent, turn and
    progression (the fields of :class:`LLMRequest` of the same names)."""

    epoch: int | None
    attempt: int | None
    node: str | None


class RequestPlace(CallPlace, total=False):
    """Every place field of :class:`LLMRequest` a workflow may give
    ``RunContext.request`` (the run sets the rest)."""

    turn: int
    progression: int | None
    test: str | None
    step: str | None


@dataclass
class LLMRequest:
    """One model call. The fields beyond the prompt say where in the workflow it
    happens, so script models and the replay client can answer by position.
    A workflow makes one with ``ctx.request(role, prompt, progression=...,
    epoch=..., attempt=..., turn=..., test=...)``.

    Replay, fork and resume match a call to the recording by its place
    (``agent``, ``progression``, ``epoch``, ``attempt``, ``turn``, ``test`` and
    ``node``) and by the hash of what the model is shown (``system``,
    ``messages``, ``temperature``); a call whose place matches none is still
    answered by a recorded call of the same agent with the very same prompt.
    So give each call of a loop a place of its own (``epoch=n`` for the n-th
    round, ``attempt=k`` for the k-th try inside it, ``turn`` for the n-th
    message of one conversation): two calls with one place and one prompt are
    answered in recorded order, and a call whose place is new and whose prompt
    differs is asked of the live model (or fails, with no fallback model)."""

    agent: str
    """The role that asks (one of the spec's ``Agent`` roles)."""
    messages: list[dict[str, str]]
    """The conversation: ``{"role": "user" | "assistant", "content": text}``, in order."""
    system: str = ""
    """The system prompt (empty: none)."""
    temperature: float = 0.0
    """Sampling temperature; the run's unless the call gives its own."""
    max_tokens: int = 4096
    """The longest answer, in tokens (the run's ``--max-tokens``)."""
    turn: int = 1
    """The n-th message of one conversation (1: its first): a multi-turn agent
    numbers its follow-ups."""
    progression: int | None = None
    """The progression (parallel line of work) the call belongs to; None: the whole run's."""
    epoch: int | None = None
    """The round of a loop (``fix:2`` is epoch 2); ``step(ctx, stage, ..., epoch=n)`` names the step alike."""
    attempt: int | None = None
    """The try within a round (a clarifier's k-th attempt); numbered as ``epoch``."""
    test: str | None = None
    """The test the call is about, for an agent asked once per test (a test checker)."""
    seed: int | None = None
    """Sampling seed, where the provider takes one (not part of the prompt hash)."""
    step: str | None = None
    """Workflow step the call belongs to (set by the run context; not sent to
    script models, whose contract is fixed)."""
    node: str | None = None
    """The search-tree node the call works on (CodeTree); not sent to script models."""

    def prompt_hash(self) -> str:
        """Stable hash of what the model is shown (system + messages + temperature).
        Text that is not valid Unicode is hashed as the session records it
        (:func:`valid_text`), so a replay finds the call."""
        blob = json.dumps(
            {"system": self.system, "messages": self.messages, "temperature": self.temperature},
            sort_keys=True,
            ensure_ascii=False,
        )
        return hashlib.sha256(valid_text(blob).encode()).hexdigest()[:16]

    def as_script_request(self) -> ScriptRequest:
        """The exact dict a ``script/<file.py>`` responder receives."""
        return {
            "agent": self.agent,
            "turn": self.turn,
            "messages": [dict(m) for m in self.messages],
            "system": self.system,
            "temperature": self.temperature,
            "progression": self.progression,
            "epoch": self.epoch,
            "attempt": self.attempt,
            "test": self.test,
        }


@dataclass
class Completion:
    """What a client's ``complete`` returns: the whole answer and what it cost."""

    text: str
    """The answer, whole (the pieces given to ``on_delta``, joined)."""
    input_tokens: int | None = None
    """Every token of the prompt, the cached ones included."""
    output_tokens: int | None = None
    """The answer's tokens as the provider reports them; None: not reported (never 0 for unknown)."""
    latency: float = 0.0
    """Seconds from the request to the last piece."""
    tokens_estimated: bool = False
    """The counts are an estimate (``estimate_tokens``), not the provider's."""
    cache_read_tokens: int | None = None
    """Of ``input_tokens``, those served from the provider's prompt cache (priced lower)."""
    cache_write_tokens: int | None = None
    """Of ``input_tokens``, those written to the prompt cache (Anthropic prices them higher)."""
    thinking_tokens: int | None = None
    """Of ``output_tokens``, those the model spent reasoning before its answer
    (Anthropic's adaptive thinking, OpenAI's reasoning tokens): billed as output,
    never part of ``text``. ``None``: the provider did not say."""
    stop_reason: str | None = None
    """Why the answer ended. A provider gives its own word (``end_turn``,
    ``length``); the call limits (``llm.limits``) turn it into the run's:
    ``finished``, ``max_tokens``, ``repetition`` or the provider's word,
    keeping the provider's in :attr:`provider_stop_reason`."""
    provider_stop_reason: str | None = None
    time_to_first_token: float | None = None
    """Seconds from the request to the first streamed text (None: not streamed)."""
    repetition: Repetition | None = None
    """Set when the call was ended for repeating itself (``stop_reason`` ``repetition``)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """A provider's own diagnostics (``request_id``, ``usage_reported``,
    ``truncated``, ``temperature_sent``, ``model``): shown and logged, read by
    no shared code."""


@dataclass(frozen=True)
class Repetition:
    """What the repetition guard saw when it ended a call."""

    span: int
    """Characters of the repeated period."""
    chars: int
    """Characters that repeated it."""
    streamed: int
    """Characters streamed in all before the call was ended."""


DeltaCallback = Callable[[str], None]


class LLMClient(Protocol):
    """An async streaming model client.

    ``complete`` calls ``on_delta`` with each piece of text as it arrives and
    returns the whole completion with token counts and latency.
    """

    name: str

    async def complete(self, request: LLMRequest, on_delta: DeltaCallback) -> Completion: ...

    async def aclose(self) -> None: ...


TOKEN_RE = re.compile(r"\w+|[^\w\s]")


def estimate_tokens(text: str) -> int:
    """A deterministic stand-in for a tokenizer, for providers that report no usage
    (script models, some local servers): words and punctuation marks."""
    return len(TOKEN_RE.findall(text))


def estimated_completion(request: LLMRequest, text: str, started: float, *, cut: bool = False) -> Completion:
    """The completion of a model that reports no usage and answers in-process
    (a script, the reference model): ``text``, its tokens and the prompt's
    estimated (:func:`estimate_tokens`), the latency since ``started``
    (``time.perf_counter``), stopped at max_tokens when ``cut``."""
    prompt = request.system + "".join(m.get("content", "") for m in request.messages)
    return Completion(
        text=text,
        input_tokens=estimate_tokens(prompt),
        output_tokens=estimate_tokens(text),
        latency=time.perf_counter() - started,
        tokens_estimated=True,
        stop_reason="max_tokens" if cut else "stop",
    )


def prompt_text_tokens(request: LLMRequest) -> int:
    """An estimate of the tokens of everything ``request`` shows the model."""
    return estimate_tokens(request.system) + sum(estimate_tokens(m.get("content", "")) for m in request.messages)


#: Seconds counting a cut call's tokens with the server's tokenizer may take in
#: all, after which the estimate stands.
COUNT_TIMEOUT = 5.0


async def count_cut(client: LLMClient, request: LLMRequest, text: str) -> tuple[int, int, bool]:
    """(prompt tokens, answer tokens, exact) of a call cut before the provider
    reported usage: the client's own count where it has one (llama.cpp's
    ``/tokenize``), else an estimate."""
    counter = getattr(client, "count_tokens", None)
    if counter is not None:
        try:
            # A whole deadline: the call was cut (often for its time limit), and a
            # server that drips must not hold the run past it for a count.
            async with asyncio.timeout(COUNT_TIMEOUT):
                counted: tuple[int, int, bool] = await counter(request, text)
            return counted
        except Exception:  # a count that fails or is late leaves the estimate
            pass
    return prompt_text_tokens(request), estimate_tokens(text), False


async def close_quietly(client: LLMClient | None) -> None:
    """Close a client the caller owns, at the end of a run or a bench: a
    failure to close (a connection already gone) changes nothing the run did."""
    if client is None:
        return
    try:
        await client.aclose()
    except Exception:
        pass
