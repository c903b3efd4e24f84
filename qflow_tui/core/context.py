"""What a workflow run carries around: the problem, settings, model, sandbox, the
event emitter and the step gate, plus the one place where model calls are made
(so every call is evented, counted and throttled the same way)."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar, Unpack

from .config import RunConfig
from .events import (
    Decision,
    Emitter,
    Event,
    GateStop,
    LLMCallFailed,
    LLMCallFinished,
    LLMCallGivenUp,
    LLMCallRetry,
    LLMCallStarted,
    Notice,
    StepFinished,
    StepOutcomeWord,
    StepStarted,
    TextDelta,
)
from .llm import Completion, LLMClient, LLMError, LLMRequest, estimate_tokens
from .llm.base import RequestPlace, count_cut, prompt_text_tokens
from .llm.limiter import ConnectionLimiter, limiter_for
from .llm.limits import CallLimits, complete_within_limits
from .llm.retry import RetryPolicy, RetryWaits, gave_up, given_up_by_user, is_busy
from .problem import Problem
from .prompts import PromptLibrary
from .steer.gate import Gate, OpenGate, Stop
from .summary import Tokens, count_call, tokens_to_dict, total

T = TypeVar("T")

#: Streamed text is handed on in batches: at most this often...
DELTA_INTERVAL = 0.05
#: ...or when this many characters have gathered.
DELTA_CHARS = 160


async def gather_all(coros: Iterable[Awaitable[T]]) -> list[T]:
    """Run awaitables concurrently; on the first failure cancel the rest and
    raise that failure itself (not an ExceptionGroup), so one failed model call
    does not leave sibling progressions spending tokens in the background."""
    tasks: list[asyncio.Task[T]] = []
    try:
        async with asyncio.TaskGroup() as tg:
            for c in coros:
                tasks.append(tg.create_task(c))  # type: ignore[arg-type]
    except BaseExceptionGroup as group:
        first: BaseException = group
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        raise first from None
    return [t.result() for t in tasks]


@dataclass
class RunContext:
    """What a workflow's run function is given: the problem, the settings, the
    model, the sandbox, the event stream, the step gate and a person's edits.
    A run function reads :attr:`problem` and :attr:`config`, asks the model
    with ``await ctx.call(ctx.request(role, prompt, ...), step=...)``, and
    emits what it decides with :meth:`event`; it never builds one itself."""

    problem: Problem
    """The statement, the entry point and the visible tests (``test_sources``)."""
    config: RunConfig
    """The run's settings: the run-wide fields, and the workflow's own, read
    with ``SETTING.of(ctx.config)``."""
    client: LLMClient
    sandbox: Any
    """A :class:`qflow_tui.core.sandbox.Sandbox` (typed loosely to keep imports light)."""
    emit: Emitter
    gate: Gate = field(default_factory=OpenGate)
    prompts: PromptLibrary = field(default_factory=PromptLibrary)
    """qflow's own prompts/ (a plugin keeps its prompts in its package, with a
    :class:`PromptLibrary` of its own)."""
    tokens: Tokens = field(default_factory=dict)
    reused_calls: int = 0
    """Model calls not made because identical work was already done in this run
    (an imagined-execution check of a program text already checked against the
    same test reuses that verdict)."""
    imagined_verdicts: dict[tuple[str, str], asyncio.Future[Any]] = field(default_factory=dict)
    """(program text, test) -> the imagined-execution result, finished or in flight."""
    stops: dict[str, int] = field(default_factory=dict)
    """Model calls by how they ended (``finished``, ``max_tokens``, ``repetition``,
    ``timeout``, ``failed``, ``cancelled``)."""
    limits: CallLimits = field(init=False)
    """What every model call may take besides max_tokens (from the config)."""
    retry: RetryPolicy = field(init=False)
    """When a failed call is tried again (from the config)."""
    limiter: ConnectionLimiter | None = None
    """The provider's adaptive connection limiter, shared by the runs of this
    process that use the same provider and base URL (made at the first call)."""
    steering: Any = None
    """A :class:`qflow_tui.core.steer.Steering`: a person's edits the workflow takes
    in place of an agent's answer (None: nobody steers)."""
    retry_waits: RetryWaits = field(default_factory=RetryWaits)
    """The retries being waited for; the app gives one up through it."""
    stopped: set[int] = field(default_factory=set)
    """Progressions the workflow has stopped: no model call of theirs starts any
    more. Cancelling a progression's task does not reach the tasks it had just
    made (the concurrent checks of its tests) until it runs again, and the loop
    may run those first: without this they would start, and be paid for, calls
    whose result the run will never use."""
    _ids: Any = field(default_factory=lambda: itertools.count(1))
    usage_warned: bool = False
    """Whether the run has said that its provider reported no usable token counts."""

    def __post_init__(self) -> None:
        # A stdin/stdout problem's agents read the I/O prompts (prompts/.../io/).
        self.prompts = self.prompts.for_kind(self.problem.kind)
        self.limits = self.config.call_limits()
        self.retry = self.config.retry_policy()

    def count_stop(self, stop_reason: str) -> None:
        self.stops[stop_reason] = self.stops.get(stop_reason, 0) + 1

    # -- events ---------------------------------------------------------------

    def event(self, ev: Event) -> Event:
        """Emit ``ev`` to every sink (the app, the session file, the headless
        log) in order, with its sequence number and time; return it. A
        :class:`Decision` also lets a decision breakpoint stop the run at its
        next step."""
        if isinstance(ev, Decision):
            # Decision breakpoints: the gate stops the run at the next step after one.
            note = getattr(self.gate, "note_decision", None)
            if note is not None:
                note(ev.decision, ev.progression, ev.step)
        return self.emit(ev)

    async def checkpoint(self, stop: Stop) -> None:
        """Stop at the step gate before ``stop`` (an agent's work at a step). The
        stop is an event first (whether the gate is stepping or open), so a replay
        cuts exactly here."""
        self.emit(GateStop(step=stop.step, progression=stop.progression, agent=stop.agent, check=stop.check))
        await self.gate.checkpoint(stop)

    def step_started(
        self,
        step: str,
        agent: str | None = None,
        progression: int | None = None,
        detail: str = "",
        node: str | None = None,
    ) -> None:
        self.emit(StepStarted(step=step, agent=agent, progression=progression, detail=detail, node=node))

    def step_finished(
        self,
        step: str,
        outcome: StepOutcomeWord,
        agent: str | None = None,
        progression: int | None = None,
        detail: str = "",
        node: str | None = None,
    ) -> None:
        self.emit(
            StepFinished(step=step, agent=agent, progression=progression, outcome=outcome, detail=detail, node=node)
        )

    # -- model calls -----------------------------------------------------------

    async def call(self, request: LLMRequest, *, step: str) -> str:
        """Make one model call: emit its start, streamed text and end, count its
        tokens, and return the response text. A failure worth retrying (busy,
        dropped, cut mid-stream) is retried as a whole call under the run's
        :class:`RetryPolicy`, each retry an ``llm_call_retry`` event; the failed
        attempt stays in the session with its partial text. Raises
        :class:`LLMError`."""
        request.step = step
        waited = 0.0
        attempt = 1
        retry_of: str | None = None
        while True:
            try:
                return await self._attempt(request, step, attempt, waited, retry_of)
            except _Retry as retry:
                where: dict[str, Any] = {"step": step, "agent": request.agent, "progression": request.progression}
                # Registered before the event goes out: whoever hears it may give it up at once.
                self.retry_waits.begin(retry.call_id)
                self.emit(
                    LLMCallRetry(
                        **where,
                        call_id=retry.call_id,
                        retry_attempt=attempt + 1,
                        retry_attempts=self.retry.attempts,
                        wait=retry.wait,
                        error=str(retry.error),
                        status=retry.error.status,
                    )
                )
                if await self.retry_waits.wait(retry.call_id, retry.wait):
                    # The attempt was counted as retried; it is the call's last now.
                    self.stops["retried"] = self.stops.get("retried", 1) - 1
                    if not self.stops["retried"]:
                        del self.stops["retried"]
                    self.count_stop("given_up")
                    self.emit(
                        LLMCallGivenUp(
                            **where,
                            call_id=retry.call_id,
                            retry_attempt=attempt + 1,
                            retry_attempts=self.retry.attempts,
                            error=str(retry.error),
                        )
                    )
                    raise given_up_by_user(retry.error, attempt + 1, self.retry.attempts) from None
                waited += retry.wait
                attempt += 1
                retry_of = retry.call_id

    async def _attempt(
        self, request: LLMRequest, step: str, attempt: int, waited: float, retry_of: str | None = None
    ) -> str:
        """One attempt at a call, holding a connection slot of the provider only
        while it runs (never while it waits to retry)."""
        if self.limiter is None:
            self.limiter = limiter_for(self.client, self.config.concurrency)
        async with self.limiter.slot():
            if request.progression is not None and request.progression in self.stopped:
                raise asyncio.CancelledError
            call_id = f"c{next(self._ids)}"
            prompt_hash = request.prompt_hash()
            common: dict[str, Any] = {"step": step, "agent": request.agent, "progression": request.progression}
            self.emit(
                LLMCallStarted(
                    **common,
                    call_id=call_id,
                    model=getattr(self.client, "name", ""),
                    system=request.system,
                    messages=[dict(m) for m in request.messages],
                    temperature=request.temperature,
                    turn=request.turn,
                    epoch=request.epoch,
                    attempt=request.attempt,
                    test=request.test,
                    prompt_hash=prompt_hash,
                    node=request.node,
                    retry_of=retry_of,
                )
            )
            buffer: list[str] = []
            size = 0
            streamed = 0
            last = time.monotonic()
            started = last

            def flush() -> None:
                nonlocal size, last
                if buffer:
                    self.emit(TextDelta(**common, call_id=call_id, text="".join(buffer)))
                    buffer.clear()
                    size = 0
                last = time.monotonic()

            so_far: list[str] = []

            def on_delta(text: str) -> None:
                nonlocal size, streamed
                so_far.append(text)
                buffer.append(text)
                size += len(text)
                streamed += len(text)
                if size >= DELTA_CHARS or time.monotonic() - last >= DELTA_INTERVAL:
                    flush()

            def failed(
                error: str, stop_reason: str, will_retry: bool = False, counted: tuple[int, int, bool] | None = None
            ) -> None:
                flush()
                self.count_stop("retried" if will_retry else stop_reason)
                inp, out, exact = counted or (None, None, False)
                if inp is not None:
                    count_call(self.tokens, request.agent, inp, out, estimated=not exact, cut=True)
                self.emit(
                    LLMCallFailed(
                        **common,
                        call_id=call_id,
                        error=error,
                        stop_reason=stop_reason,
                        partial_chars=streamed,
                        latency=time.monotonic() - started,
                        will_retry=will_retry,
                        input_tokens=inp,
                        output_tokens=out,
                        tokens_estimated=inp is not None and not exact,
                    )
                )

            try:
                completion = await complete_within_limits(self.client, request, on_delta, self.limits)
            except asyncio.CancelledError:
                # A person's stop: the prompt was sent and the answer so far made;
                # counted by estimate, as nothing may be awaited here.
                answer = estimate_tokens("".join(so_far))
                failed("cancelled", "cancelled", counted=(prompt_text_tokens(request), answer, False))
                raise
            except LLMError as exc:
                if is_busy(exc):
                    lowered = self.limiter.busy()
                    if lowered is not None:
                        self.emit(
                            Notice(
                                level="warning",
                                message=f"{getattr(self.client, 'name', 'the provider')} is busy: "
                                f"at most {lowered} calls at once for now",
                            )
                        )
                wait = self.retry.wait_before(attempt, exc, waited)
                failed(str(exc), exc.stop_reason, will_retry=wait is not None, counted=exc.counted)
                if wait is not None:
                    raise _Retry(call_id, exc, wait) from None
                raise gave_up(exc, attempt, waited) from None
            except Exception as exc:  # an SDK or script failure we did not map: still readable
                msg = f"{type(exc).__name__}: {exc}"
                failed(msg, "failed")
                raise LLMError(f"model call failed ({request.agent}): {msg}") from exc
            self.limiter.succeeded()
            flush()
            reported = completion.input_tokens is not None and completion.output_tokens is not None
            warning = None if reported else await self._count_unreported(request, completion)
            inp, out = completion.input_tokens, completion.output_tokens
            stop_reason = completion.stop_reason or "finished"
            self.count_stop(stop_reason)
            cache_read, cache_write = completion.cache_read_tokens, completion.cache_write_tokens
            count_call(
                self.tokens,
                request.agent,
                inp,
                out,
                cache_read=cache_read,
                cache_write=cache_write,
                thinking=completion.thinking_tokens,
                estimated=completion.tokens_estimated,
            )
            self.emit(
                LLMCallFinished(
                    **common,
                    call_id=call_id,
                    response=completion.text,
                    input_tokens=inp,
                    output_tokens=out,
                    latency=completion.latency,
                    prompt_hash=prompt_hash,
                    tokens_estimated=completion.tokens_estimated,
                    cache_read_tokens=cache_read,
                    cache_write_tokens=cache_write,
                    thinking_tokens=completion.thinking_tokens,
                    stop_reason=stop_reason,
                    time_to_first_token=completion.time_to_first_token,
                    detail=_cut_detail(completion, request.max_tokens),
                    usage_reported=reported,
                )
            )
            if warning:
                self.emit(Notice(level="warning", message=warning))
            return completion.text

    async def _count_unreported(self, request: LLMRequest, completion: Completion) -> str | None:
        """A provider that reported no usable token counts (none, or impossible
        ones): the call is counted by the server's tokenizer where it has one
        (llama.cpp's ``/tokenize``), else by estimate (:func:`estimate_tokens`,
        words and punctuation marks), marked so. Returns the warning the run
        gives the first time, else None."""
        inp, out, exact = await count_cut(self.client, request, completion.text)
        if completion.input_tokens is None:
            completion.input_tokens = inp
        if completion.output_tokens is None:
            completion.output_tokens = out
        completion.tokens_estimated = completion.tokens_estimated or not exact
        if self.usage_warned:
            return None
        self.usage_warned = True
        how = "by the server's tokenizer" if exact else "by estimate (words and punctuation marks)"
        return f"{self.client.name} reported no usable token counts: its calls are counted {how}, and so is their cost"

    def request(
        self,
        agent: str,
        prompt: tuple[str, str] | None = None,
        *,
        messages: list[dict[str, str]] | None = None,
        system: str = "",
        temperature: float | None = None,
        **where: Unpack[RequestPlace],
    ) -> LLMRequest:
        """A model request from ``role`` ``agent`` with the run's temperature,
        max_tokens and seed: ``prompt`` is a rendered prompt file's
        ``(system, user)``, or give ``messages`` (and ``system``) for a
        conversation. ``where`` says where it sits and is recorded with the
        call: ``progression=``, ``epoch=``, ``attempt=``, ``turn=``, ``test=``,
        ``node=``. Replay, fork and resume find the recorded answer by that
        place and the prompt (:class:`~qflow_tui.core.llm.base.LLMRequest`
        says how): give each call of a loop a place of its own."""
        if prompt is not None:
            system, user = prompt
            messages = [{"role": "user", "content": user}]
        return LLMRequest(
            agent=agent,
            messages=messages or [],
            system=system,
            temperature=self.config.temperature if temperature is None else temperature,
            max_tokens=self.config.max_tokens,
            seed=self.config.seed if self.config.seed >= 0 else None,
            **where,
        )

    @property
    def llm_calls(self) -> int:
        return total(self.tokens).calls

    def token_summary(self) -> dict[str, dict[str, int]]:
        return tokens_to_dict(self.tokens)


def _cut_detail(completion: Completion, max_tokens: int) -> str:
    """A cut answer's loss in words, for its event (empty when it finished)."""
    reason, thinking = completion.stop_reason, completion.thinking_tokens
    if reason == "max_tokens":
        if thinking:  # max_tokens bounds the thinking and the answer together
            return (
                f"cut at max tokens ({max_tokens}), {thinking:,} of them spent thinking: "
                "raise max_tokens or lower effort"
            )
        return f"cut at max tokens ({max_tokens})"
    if reason == "repetition" and completion.repetition is not None:
        span, chars = completion.repetition.span, completion.repetition.chars
        times = chars // span if span else 0
        return f"stopped for repetition: a {span}-character span repeated {times} times (kept once)"
    return ""


class _Retry(Exception):
    """One attempt failed in a way the policy retries after ``wait`` seconds."""

    def __init__(self, call_id: str, error: LLMError, wait: float) -> None:
        super().__init__(str(error))
        self.call_id = call_id
        self.error = error
        self.wait = wait
