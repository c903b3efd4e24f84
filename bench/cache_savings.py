"""What a prompt cache could have served: the share of a recorded run's input
tokens that each provider's prefix cache would have read instead of computing.

Reads any session (the demo, a SmolLM2 run, a bench folder's sessions) and
replays its model calls, in the order and at the times they were made, against
a model of each provider's cache, as published:

  anthropic   two breakpoints: one on the system prompt and the automatic one
              (a top-level ``cache_control``) on the last block; blocks are the
              system prompt, then each message; a later request reads the
              longest cached prefix that ends on a block boundary within 20
              blocks of its last; nothing shorter than the
              model's minimum is written (the price table's, for the session's
              model where it is an ``anthropic/`` one, else for the default
              model: 1,024 tokens for the Sonnet 5 line, 4,096 for Haiku 4.5;
              ``--min-tokens`` overrides it); an entry lives 5 minutes after
              its last use. Writes cost 1.25x the input price, reads 0.1x.
  openai      automatic caching of every prompt of 1,024 tokens or more; a
              request reads the longest common prefix with a cached prompt, in
              steps of 128 tokens from 1,024; entries live 5 minutes idle (the
              low end of the published 5-10).
  llama.cpp   the server's own prompt cache: each slot keeps the last prompt and
              answer it processed, and a request reuses its longest common
              prefix with the slot it lands on (the most similar; no minimum, no
              lifetime).

An entry can serve a request only once the call that wrote it has finished
(parallel progressions that start together do not share), which errs on the
side of less saving. Tokens are counted from characters at the session's own
ratio (recorded input tokens over prompt characters, where the provider
reported usage; 4 characters a token otherwise), so the figures are estimates
and say so.

Usage: python bench/cache_savings.py SESSION_OR_FOLDER [...] [--min-tokens N]
       [--slots 2] [--json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qflow_tui.core.config import RunConfig
from qflow_tui.core.events import Event, LLMCallFailed, LLMCallFinished, LLMCallStarted
from qflow_tui.core.llm.prices import cache_min_tokens
from qflow_tui.core.session import read_session

TTL = 300.0
"""Seconds an Anthropic or OpenAI cache entry lives after its last use."""
ANTHROPIC_LOOKBACK = 20
"""Block boundaries before the breakpoint that Anthropic checks for a hit."""
OPENAI_MIN, OPENAI_STEP = 1024, 128
CHARS_PER_TOKEN = 4.0
"""The fallback ratio where a session recorded no usage."""


@dataclass
class Call:
    """One model call as recorded: who made it, its prompt as blocks, and when
    it started and ended."""

    agent: str
    blocks: list[str]
    """The system prompt, then each message's text, in the order sent."""
    start: float
    end: float
    response: str = ""
    input_tokens: int | None = None

    @property
    def text(self) -> str:
        return "\x00".join(self.blocks)


@dataclass
class Tally:
    """Input tokens of one agent (or of a whole run) and what each cache would
    have done with them."""

    calls: int = 0
    input: float = 0.0
    anthropic_read: float = 0.0
    anthropic_write: float = 0.0
    openai_read: float = 0.0
    llamacpp_read: float = 0.0

    def add(self, other: Tally) -> None:
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def shares(self) -> dict[str, float]:
        """Each figure as a share of the input tokens (0..1)."""
        total = self.input or 1.0
        return {
            "anthropic_read": self.anthropic_read / total,
            "anthropic_write": self.anthropic_write / total,
            "anthropic_cost": (
                self.input
                - self.anthropic_read
                - self.anthropic_write
                + 0.1 * self.anthropic_read
                + 1.25 * self.anthropic_write
            )
            / total,
            "openai_read": self.openai_read / total,
            "llamacpp_read": self.llamacpp_read / total,
        }


@dataclass
class Run:
    """A session's calls, ready to be replayed against the cache models."""

    name: str
    calls: list[Call]
    chars_per_token: float
    measured_ratio: bool
    per_agent: dict[str, Tally] = field(default_factory=dict)


def calls_of(events: Iterable[Event]) -> list[Call]:
    """The session's model calls in the order they started; a call that never
    finished ends where the stream does."""
    started: dict[str, Call] = {}
    order: list[Call] = []
    last_ts = 0.0
    for e in events:
        last_ts = max(last_ts, e.ts)
        if isinstance(e, LLMCallStarted):
            blocks = [e.system, *(str(m.get("content", "")) for m in e.messages)]
            call = Call(agent=e.agent or "?", blocks=blocks, start=e.ts, end=float("inf"))
            started[e.call_id] = call
            order.append(call)
        elif isinstance(e, LLMCallFinished) and e.call_id in started:
            call = started[e.call_id]
            call.end, call.response = e.ts, e.response
            if e.input_tokens is not None and not e.tokens_estimated:
                call.input_tokens = e.input_tokens
        elif isinstance(e, LLMCallFailed) and e.call_id in started:
            started[e.call_id].end = e.ts
    for call in order:
        if call.end == float("inf"):
            call.end = last_ts
    return order


def ratio_of(calls: list[Call]) -> tuple[float, bool]:
    """Characters per token from the calls whose provider reported usage."""
    chars = sum(len(c.text) for c in calls if c.input_tokens)
    tokens = sum(c.input_tokens or 0 for c in calls if c.input_tokens)
    if chars and tokens:
        return chars / tokens, True
    return CHARS_PER_TOKEN, False


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    lo = 0
    # Compare in chunks first: prompts share long prefixes, and slicing is fast in C.
    step = 256
    while lo + step <= n and a[lo : lo + step] == b[lo : lo + step]:
        lo += step
    while lo < n and a[lo] == b[lo]:
        lo += 1
    return lo


def _key(blocks: list[str]) -> str:
    return hashlib.sha256("\x00".join(blocks).encode("utf-8", "surrogatepass")).hexdigest()


class Anthropic:
    """Two breakpoints, as the clients ask: one on the system prompt (the part
    every call of an agent shares) and the automatic one on the last block.
    Hits land on block boundaries within the lookback; nothing shorter than the
    minimum is written."""

    def __init__(self, min_tokens: int, tokens: Any) -> None:
        self.min_tokens = min_tokens
        self.tokens = tokens
        self.entries: dict[str, tuple[float, float]] = {}  # key -> (usable from, expires)

    def serve(self, call: Call) -> tuple[float, float]:
        n = len(call.blocks)
        read, read_k = 0.0, 0
        for k in range(n, max(0, n - ANTHROPIC_LOOKBACK), -1):
            key = _key(call.blocks[:k])
            entry = self.entries.get(key)
            if entry and entry[0] <= call.start < entry[1]:
                read, read_k = self.tokens(call.blocks[:k]), k
                self.entries[key] = (entry[0], call.start + TTL)
                break
        written = 0.0
        for k in sorted({1, n}):
            size = self.tokens(call.blocks[:k])
            if k <= read_k or size < self.min_tokens:
                continue
            key = _key(call.blocks[:k])
            old = self.entries.get(key)
            self.entries[key] = (call.end if old is None else old[0], call.end + TTL)
            written = size
        return read, max(0.0, written - read)


class OpenAI:
    """Automatic caching of prompts from 1,024 tokens, read in 128-token steps."""

    def __init__(self, tokens: Any) -> None:
        self.tokens = tokens
        self.entries: list[tuple[str, float, float]] = []  # (text, usable from, expires)

    def serve(self, call: Call) -> float:
        text = call.text
        best, best_i = 0, -1
        for i, (other, usable, expires) in enumerate(self.entries):
            if usable <= call.start < expires:
                common = _common_prefix(text, other)
                if common > best:
                    best, best_i = common, i
        read = 0.0
        tokens = self.tokens.chars(best)
        if tokens >= OPENAI_MIN:
            read = OPENAI_MIN + (tokens - OPENAI_MIN) // OPENAI_STEP * OPENAI_STEP
            other, usable, _ = self.entries[best_i]
            self.entries[best_i] = (other, usable, call.start + TTL)
        if self.tokens.chars(len(text)) >= OPENAI_MIN:
            self.entries.append((text, call.end, call.end + TTL))
        return float(read)


class LlamaCpp:
    """The server's slots: each keeps its last prompt and answer; a request goes
    to the slot whose content shares the longest prefix with it."""

    def __init__(self, slots: int, tokens: Any) -> None:
        self.tokens = tokens
        self.slots = [""] * max(1, slots)
        self.free_at = [0.0] * len(self.slots)

    def serve(self, call: Call) -> float:
        text = call.text
        idle = [i for i, free_at in enumerate(self.free_at) if free_at <= call.start]
        if not idle:  # every slot busy: the request waits for the first to free up
            idle = [min(range(len(self.slots)), key=lambda i: self.free_at[i])]
        shared = {i: _common_prefix(text, self.slots[i]) for i in idle}
        best = max(idle, key=lambda i: (shared[i], -self.free_at[i]))
        self.slots[best] = text + "\x00" + call.response
        self.free_at[best] = max(call.end, call.start)
        return self.tokens.chars(shared[best])


class Tokens:
    """Characters to tokens at one ratio."""

    def __init__(self, chars_per_token: float) -> None:
        self.ratio = chars_per_token

    def chars(self, n: int) -> float:
        return n / self.ratio

    def __call__(self, blocks: list[str]) -> float:
        return self.chars(len("\x00".join(blocks)))


def analyse(name: str, calls: list[Call], *, min_tokens: int = 1024, slots: int = 2) -> Run:
    """Replay the calls against the three cache models, per agent."""
    ratio, measured = ratio_of(calls)
    tokens = Tokens(ratio)
    anthropic, openai, llamacpp = Anthropic(min_tokens, tokens), OpenAI(tokens), LlamaCpp(slots, tokens)
    run = Run(name, calls, ratio, measured)
    for call in sorted(calls, key=lambda c: c.start):
        t = run.per_agent.setdefault(call.agent, Tally())
        t.calls += 1
        t.input += tokens(call.blocks)
        read, write = anthropic.serve(call)
        t.anthropic_read += read
        t.anthropic_write += write
        t.openai_read += openai.serve(call)
        t.llamacpp_read += llamacpp.serve(call)
    return run


def sessions(paths: Iterable[Path]) -> Iterator[tuple[Path, list[Call] | None, str]]:
    """Each session named or found under a folder, with its calls (or why not;
    for a session, ``why`` holds its model)."""
    for path in paths:
        files = sorted(path.rglob("*.jsonl")) if path.is_dir() else [path]
        for f in files:
            try:
                data = read_session(f)
            except Exception as exc:  # a file that is not a session is named and skipped
                yield f, None, str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                continue
            yield f, calls_of(data.events), str(data.header.get("model") or "")


def anthropic_minimum(model: str) -> int:
    """The shortest prompt Anthropic caches for the session's ``model`` (the
    price table's), or for the default model when the session ran another
    provider's: what caching the same run on Claude would have met."""
    if not model.startswith("anthropic/"):
        model = RunConfig().model
    return cache_min_tokens(model)


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def render(run: Run) -> str:
    how = "measured from recorded usage" if run.measured_ratio else "no usage recorded: estimated"
    lines = [
        f"{run.name}: {len(run.calls)} calls, {run.chars_per_token:.2f} characters a token ({how})",
        f"  {'agent':<24} {'calls':>5} {'input tok':>10}  {'anthropic read':>14} {'write':>6} {'cost':>6}"
        f"  {'openai read':>11}  {'llama.cpp read':>14}",
    ]
    total = Tally()
    for agent, t in sorted(run.per_agent.items()):
        total.add(t)
        lines.append(_row(agent, t))
    lines.append(_row("all", total))
    return "\n".join(lines)


def _row(agent: str, t: Tally) -> str:
    s = t.shares()
    return (
        f"  {agent:<24} {t.calls:>5} {round(t.input):>10,}  {_pct(s['anthropic_read']):>14} "
        f"{_pct(s['anthropic_write']):>6} {_pct(s['anthropic_cost']):>6}  {_pct(s['openai_read']):>11}  "
        f"{_pct(s['llamacpp_read']):>14}"
    )


def as_json(run: Run) -> dict[str, Any]:
    total = Tally()
    for t in run.per_agent.values():
        total.add(t)
    return {
        "session": run.name,
        "calls": len(run.calls),
        "chars_per_token": round(run.chars_per_token, 3),
        "ratio_measured": run.measured_ratio,
        "per_agent": {a: {"calls": t.calls, "input": round(t.input), **t.shares()} for a, t in run.per_agent.items()},
        "all": {"calls": total.calls, "input": round(total.input), **total.shares()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="session files or folders of them")
    parser.add_argument(
        "--min-tokens",
        type=int,
        help="Anthropic's minimum cacheable prefix (default: the price table's for the session's "
        "anthropic/ model, else for the default model)",
    )
    parser.add_argument("--slots", type=int, default=2, help="llama.cpp server slots (n_parallel)")
    parser.add_argument("--json", action="store_true", help="one JSON object per session")
    args = parser.parse_args(argv)
    shown = 0
    for path, calls, why in sessions(args.paths):
        if calls is None:
            print(f"skipped {path}: {why}", file=sys.stderr)
            continue
        if not calls:
            print(f"skipped {path}: no model calls", file=sys.stderr)
            continue
        least = args.min_tokens if args.min_tokens is not None else anthropic_minimum(why)
        run = analyse(str(path), calls, min_tokens=least, slots=args.slots)
        print(json.dumps(as_json(run)) if args.json else render(run) + "\n")
        shown += 1
    if not shown:
        print("no session with model calls found", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
