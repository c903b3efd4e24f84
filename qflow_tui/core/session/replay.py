"""``replay/<session.jsonl>``: a model that answers with the responses recorded
in a session, so a run can be re-executed (under the same or another config)
without spending tokens where the prompts still match.

A call is matched by where it happens in the workflow (agent, progression,
epoch, attempt, turn, test) and by the hash of what the model is shown. When no
recorded call matches at that place, a recorded call of the same agent with the
very same prompt is reused (the model saw exactly that input, so the answer
stands); otherwise the call is answered by the fallback client when one is
given, or fails with an :class:`LLMError` naming the call.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict, deque
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..events import Event, LLMCallFinished, LLMCallStarted
from ..llm.base import Completion, DeltaCallback, LLMClient, LLMError, LLMRequest
from ..llm.registry import ClientOptions, Need, Provider
from ..llm.script import chunk_text
from .fileformat import SessionError
from .reader import read_session


@dataclass
class RecordedCall:
    """One finished model exchange from a session."""

    call_id: str
    step: str | None
    agent: str
    progression: int | None
    epoch: int | None
    attempt: int | None
    turn: int
    test: str | None
    prompt_hash: str
    response: str
    input_tokens: int | None
    output_tokens: int | None
    tokens_estimated: bool
    latency: float
    node: str | None = None
    """The search-tree node the call worked on (CodeTree)."""
    stop_reason: str = "finished"
    """How the recorded call ended; a replayed call ends the same way."""

    @property
    def position(self) -> tuple[object, ...]:
        return (self.agent, self.progression, self.epoch, self.attempt, self.turn, self.test, self.node)


def _position(request: LLMRequest) -> tuple[object, ...]:
    return (
        request.agent,
        request.progression,
        request.epoch,
        request.attempt,
        request.turn,
        request.test,
        request.node,
    )


def describe_call(request: LLMRequest, step: str | None = None) -> str:
    """The place of a call in words: ``self_debugger (step self_debug:1,
    progression 0, epoch 1, turn 1)``."""
    parts = []
    if step:
        parts.append(f"step {step}")
    for name in ("progression", "epoch", "attempt", "node"):
        value = getattr(request, name)
        if value is not None:
            parts.append(f"{name} {value}")
    parts.append(f"turn {request.turn}")
    if request.test:
        test = request.test if len(request.test) <= 60 else request.test[:57] + "..."
        parts.append(f"test {test}")
    return f"{request.agent} ({', '.join(parts)})"


def load_recorded_calls(events: list[Event]) -> list[RecordedCall]:
    started: dict[str, LLMCallStarted] = {}
    calls: list[RecordedCall] = []
    for e in events:
        if isinstance(e, LLMCallStarted):
            started[e.call_id] = e
        elif isinstance(e, LLMCallFinished):
            s = started.pop(e.call_id, None)
            if s is None:
                continue
            calls.append(
                RecordedCall(
                    call_id=e.call_id,
                    step=s.step,
                    agent=s.agent or "",
                    progression=s.progression,
                    epoch=s.epoch,
                    attempt=s.attempt,
                    turn=s.turn,
                    test=s.test,
                    prompt_hash=s.prompt_hash or e.prompt_hash,
                    response=e.response,
                    input_tokens=e.input_tokens,
                    output_tokens=e.output_tokens,
                    tokens_estimated=e.tokens_estimated,
                    latency=e.latency,
                    node=s.node,
                    stop_reason=e.stop_reason or "finished",
                )
            )
    return calls


class ReplayClient:
    """Answers model calls from a recorded session (see the module docstring)."""

    def __init__(
        self,
        path: str | Path,
        fallback: LLMClient | None = None,
        *,
        stream_delay: float = 0.0,
        words_per_chunk: int = 3,
    ) -> None:
        self.path = str(path)
        self.name = f"replay/{self.path}"
        self.fallback = fallback
        self._delay = stream_delay
        self._words = words_per_chunk
        try:
            data = read_session(Path(path).expanduser())
        except SessionError as exc:
            raise LLMError(f"replay model: {exc}", fatal=True) from None
        self.calls = load_recorded_calls(data.events)
        # Exact matches: place + prompt hash, consumed in recorded order.
        self._exact: dict[tuple[object, ...], deque[RecordedCall]] = defaultdict(deque)
        # Same agent and prompt anywhere in the run: reused when the place differs.
        self._by_prompt: dict[tuple[str, str], list[RecordedCall]] = defaultdict(list)
        self._at: dict[tuple[object, ...], list[RecordedCall]] = defaultdict(list)
        for c in self.calls:
            self._exact[(*c.position, c.prompt_hash)].append(c)
            self._by_prompt[(c.agent, c.prompt_hash)].append(c)
            self._at[c.position].append(c)
        self._used: set[str] = set()
        self.replayed = 0
        """Calls answered from the recording."""
        self.fell_back = 0
        """Calls answered by the fallback model."""

    def _match(self, request: LLMRequest, prompt_hash: str) -> RecordedCall | None:
        queue = self._exact.get((*_position(request), prompt_hash))
        while queue:
            call = queue.popleft()
            if call.call_id not in self._used:
                return call
        same = self._by_prompt.get((request.agent, prompt_hash), [])
        unused = [c for c in same if c.call_id not in self._used]
        if unused:
            return unused[0]
        if same and request.temperature == 0:
            # Asked again for an answer already given: at temperature 0 the
            # model's answer to this exact prompt is known, so give it again.
            return same[-1]
        return None

    def _missing(self, request: LLMRequest, prompt_hash: str) -> LLMError:
        step = request.step
        here = self._at.get(_position(request), [])
        if here:
            steps = sorted({c.step or "?" for c in here})
            why = (
                f"the recording has a call at this place (step {', '.join(steps)}) but with another prompt "
                f"(hash {prompt_hash}, recorded {', '.join(sorted({c.prompt_hash for c in here}))})"
            )
        else:
            why = "the recorded run made no call at this place"
        return LLMError(
            f"replay of {Path(self.path).name}: no recorded response for {describe_call(request, step)}: {why}; "
            "give --fallback-model to answer such calls with a live model",
            fatal=True,
        )

    async def complete(self, request: LLMRequest, on_delta: DeltaCallback) -> Completion:
        start = time.perf_counter()
        prompt_hash = request.prompt_hash()
        call = self._match(request, prompt_hash)
        if call is None:
            if self.fallback is not None:
                self.fell_back += 1
                return await self.fallback.complete(request, on_delta)
            raise self._missing(request, prompt_hash)
        self._used.add(call.call_id)
        self.replayed += 1
        for piece in chunk_text(call.response, self._words):
            on_delta(piece)
            # Yield between chunks so concurrent calls interleave as they would live.
            await asyncio.sleep(self._delay)
        return Completion(
            text=call.response,
            input_tokens=call.input_tokens,
            output_tokens=call.output_tokens,
            latency=time.perf_counter() - start,
            tokens_estimated=call.tokens_estimated,
            # A recorded cut stays a cut (its stop reason is one of ours already,
            # which normalising leaves as it is).
            stop_reason=call.stop_reason,
            extra={"replayed_from": call.call_id},
        )

    async def aclose(self) -> None:
        if self.fallback is not None:
            await self.fallback.aclose()


def _replay(rest: str, options: ClientOptions) -> LLMClient:
    return ReplayClient(rest, fallback=options.fallback)


def _replay_needs(model: str, base_url: str | None, env: Mapping[str, str]) -> Need | None:
    rest = model.partition("/")[2]
    if not Path(rest).expanduser().is_file():
        return Need("file", f"replay model {rest!r}: no such session file (give replay/<path to a session .jsonl>)")
    return None


#: The ``replay/`` provider: it lives in the session layer, which owns the
#: recordings, and is registered through the ``qflow.providers`` group as every
#: other provider is.
PROVIDER = Provider("replay", _replay, "replay/session.jsonl", needs=_replay_needs, free=True)
