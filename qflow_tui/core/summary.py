"""A run's result in one type (what ``qflow solve --json`` prints) and the one
tally of tokens per agent that the run, the app, the session reader and the CLI
all keep the same way."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from .events import Event, LLMCallFailed, LLMCallFinished, LLMCallGivenUp

#: Stop reasons that mean an answer was cut short (see core/llm/limits.py).
CUT_REASONS = ("max_tokens", "repetition", "timeout")


@dataclass
class TokenTally:
    """Tokens and calls of one agent (or of a whole run).

    ``input`` is every prompt token; ``cache_read`` and ``cache_write`` are the
    parts of it the provider served from, or wrote to, its prompt cache, each
    priced at its own rate. ``estimated`` counts the calls whose tokens were
    estimated (a cut call counted without the server's tokenizer, a script
    model); ``cut`` the calls that ended without an answer (time limit, a
    person's stop) whose tokens are counted all the same."""

    input: int = 0
    output: int = 0
    calls: int = 0
    cache_read: int = 0
    cache_write: int = 0
    estimated: int = 0
    cut: int = 0
    thinking: int = 0
    """Of ``output``, the tokens a reasoning model spent thinking."""

    def add(
        self,
        input_tokens: int | None,
        output_tokens: int | None,
        *,
        cache_read: int | None = None,
        cache_write: int | None = None,
        thinking: int | None = None,
        estimated: bool = False,
        cut: bool = False,
    ) -> None:
        """Count one model call; unknown counts add nothing. A ``cut`` call adds
        its tokens but is not a finished call."""
        self.thinking += _count(thinking)
        self.input += _count(input_tokens)
        self.output += _count(output_tokens)
        self.cache_read += _count(cache_read)
        self.cache_write += _count(cache_write)
        self.estimated += bool(estimated)
        if cut:
            self.cut += 1
        else:
            self.calls += 1

    @property
    def fresh_input(self) -> int:
        """Prompt tokens neither read from nor written to a cache."""
        return max(0, self.input - self.cache_read - self.cache_write)

    def to_dict(self) -> dict[str, int]:
        """``input``, ``output`` and ``calls``; the cache and cut counts only where
        there are any, so a run without caching reads as it always did."""
        out = {"input": self.input, "output": self.output, "calls": self.calls}
        for key in _OPTIONAL:
            if value := getattr(self, key):
                out[key] = value
        return out

    @classmethod
    def from_dict(cls, raw: object) -> TokenTally:
        """Tolerant of what a file may hold: a field that is not a whole number counts 0."""
        if not isinstance(raw, Mapping):
            return cls()
        return cls(*(_count(raw.get(k)) for k in ("input", "output", "calls", *_OPTIONAL)))


_OPTIONAL = ("cache_read", "cache_write", "estimated", "cut", "thinking")

#: The most tokens one model call is believed to read or write: no model's window
#: comes near it (the largest hold a few million). A provider that reports more
#: reported nothing usable, and the call is counted by estimate.
MAX_CALL_TOKENS = 100_000_000

#: The most a tally read back from a file is believed to hold: a larger count is
#: not one qflow wrote, and counts 0 (a float holds every whole number up to it
#: exactly, so a price times it never overflows).
MAX_TALLY = 10**15


def _count(value: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TALLY:
        return value
    return 0


#: Tokens per agent role.
Tokens = dict[str, TokenTally]


def count_call(
    tokens: Tokens,
    agent: str | None,
    input_tokens: int | None,
    output_tokens: int | None,
    *,
    cache_read: int | None = None,
    cache_write: int | None = None,
    thinking: int | None = None,
    estimated: bool = False,
    cut: bool = False,
) -> None:
    """Add one model call of ``agent`` to ``tokens``."""
    tokens.setdefault(agent or "unknown", TokenTally()).add(
        input_tokens,
        output_tokens,
        cache_read=cache_read,
        cache_write=cache_write,
        thinking=thinking,
        estimated=estimated,
        cut=cut,
    )


def count_event(tokens: Tokens, event: Event) -> None:
    """Add the model call an ``LLMCallFinished`` event ends, or the tokens a cut
    ``LLMCallFailed`` counted, to ``tokens``; other events add nothing."""
    match event:
        case LLMCallFinished():
            count_call(
                tokens,
                event.agent,
                event.input_tokens,
                event.output_tokens,
                cache_read=event.cache_read_tokens,
                cache_write=event.cache_write_tokens,
                thinking=event.thinking_tokens,
                estimated=event.tokens_estimated,
            )
        case LLMCallFailed(input_tokens=int()):
            count_call(
                tokens,
                event.agent,
                event.input_tokens,
                event.output_tokens,
                estimated=event.tokens_estimated,
                cut=True,
            )
        case _:
            pass


def total(tokens: Tokens) -> TokenTally:
    """All agents together."""
    t = TokenTally()
    for tally in tokens.values():
        for key in ("input", "output", "calls", *_OPTIONAL):
            setattr(t, key, getattr(t, key) + getattr(tally, key))
    return t


def tokens_to_dict(tokens: Tokens) -> dict[str, dict[str, int]]:
    return {agent: t.to_dict() for agent, t in sorted(tokens.items())}


def tokens_from_dict(raw: object) -> Tokens:
    if not isinstance(raw, Mapping):
        return {}
    return {str(agent): TokenTally.from_dict(t) for agent, t in raw.items()}


def count_stop(stops: dict[str, int], event: Event) -> None:
    """Add one model call's end (finished, failed or given up) to ``stops``."""
    match event:
        case LLMCallFinished(stop_reason=reason):
            stops[reason or "finished"] = stops.get(reason or "finished", 0) + 1
        case LLMCallFailed(stop_reason=reason, will_retry=will_retry):
            key = "retried" if will_retry else reason or "failed"
            stops[key] = stops.get(key, 0) + 1
        case LLMCallGivenUp():
            # The attempt counted as retried was the call's last: a person gave up its retry.
            stops["retried"] = stops.get("retried", 1) - 1
            if not stops["retried"]:
                del stops["retried"]
            stops["given_up"] = stops.get("given_up", 0) + 1


def tally_stops(events: Iterable[Event]) -> dict[str, int]:
    """Model calls among ``events`` by how they ended."""
    stops: dict[str, int] = {}
    for e in events:
        count_stop(stops, e)
    return stops


def tally_events(events: Iterable[Event]) -> Tokens:
    """Tokens of the model calls among ``events`` (finished, and cut but counted)."""
    tokens: Tokens = {}
    for e in events:
        count_event(tokens, e)
    return tokens


class SummaryRecord(TypedDict):
    """:meth:`RunSummary.to_dict`: the ``qflow solve --json`` object."""

    final_program: str
    outcome: str
    accepted_at: str | None
    progression: int | None
    llm_calls: int
    tokens: dict[str, dict[str, int]]
    session: str | None
    duration: float
    warnings: list[str]
    stops: dict[str, int]
    cut_calls: int
    cost: dict[str, Any]
    detail: NotRequired[str]


@dataclass
class RunSummary:
    """What a run came to: the ``qflow solve --json`` object, also what
    ``qflow replay --json`` prints for a recorded run."""

    final_program: str
    outcome: str
    """``accepted``, ``reverted``, ``unchecked``; for a recording also ``failed``,
    ``cancelled`` or ``incomplete``."""
    accepted_at: str | None
    progression: int | None
    llm_calls: int
    tokens: dict[str, dict[str, int]]
    session: str | None
    duration: float
    warnings: list[str] = field(default_factory=list)
    detail: str = ""
    """More about the result in words (CodeTree: the node returned); only in
    the JSON when there is something to say."""
    stops: dict[str, int] = field(default_factory=dict)
    """Model calls by how they ended: ``finished``, ``max_tokens``, ``repetition``,
    ``timeout``, ``failed``, ``cancelled``."""
    cost: dict[str, Any] = field(default_factory=dict)
    """US dollars per agent and in total with the date of the prices, or
    ``{"unpriced": model}`` (core/llm/prices.py); empty when not worked out."""

    def to_dict(self) -> SummaryRecord:
        record: SummaryRecord = {
            "final_program": self.final_program,
            "outcome": self.outcome,
            "accepted_at": self.accepted_at,
            "progression": self.progression,
            "llm_calls": self.llm_calls,
            "tokens": self.tokens,
            "session": self.session,
            "duration": round(self.duration, 3),
            "warnings": self.warnings,
            "stops": dict(sorted(self.stops.items())),
            "cut_calls": self.cut_calls,
            "cost": self.cost,
        }
        if self.detail:
            record["detail"] = self.detail
        return record

    @property
    def cut_calls(self) -> int:
        """Calls whose answer was cut short (max tokens, repetition, time limit)."""
        return sum(self.stops.get(reason, 0) for reason in CUT_REASONS)

    @property
    def total_tokens(self) -> TokenTally:
        return total(tokens_from_dict(self.tokens))
