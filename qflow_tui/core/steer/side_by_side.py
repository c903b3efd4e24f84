"""Two sessions side by side: the steps each took with their decisions, the
first place where they part, the final programs with a unified diff, the
outcomes, and tokens and time per agent."""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from ..events import (
    Decision,
    Event,
    ImaginedCheck,
    LLMCallFinished,
    ProgramCandidate,
    SandboxRun,
    Steered,
    StepFinished,
)
from ..safe_text import one_line
from ..session import SessionData, read_header
from ..session.family import Lineage, lineage
from ..session.listing import forked_at_of_header, parent_of_header
from ..summary import SummaryRecord, tally_events


class MarkRecord(TypedDict):
    """A :class:`Mark` in a comparison's JSON."""

    what: str
    step: str | None
    progression: int | None
    agent: str | None
    value: str


class LineageRecord(TypedDict):
    """A session's forks back to its root, in a comparison's JSON."""

    ancestors: list[str]
    loop: list[str]
    missing: str | None
    words: str


class SideRecord(TypedDict):
    """One of the two sessions of a comparison."""

    session: str
    workflow: str
    model: str
    parent: str | None
    forked_at: str | None
    lineage: LineageRecord
    outcome: str
    accepted_at: str | None
    progression: int | None
    llm_calls: int
    duration: float
    final_program: str | None
    agents: dict[str, dict[str, float]]
    visible_checks: list[dict[str, str]]
    steps: list[MarkRecord]


class Divergence(TypedDict):
    """Where two trails part: the index and each side's mark there (None: that trail ended)."""

    index: int
    a: MarkRecord | None
    b: MarkRecord | None


class Comparison(TypedDict):
    """:func:`compare_sessions`' JSON-ready object (``qflow compare --json``)."""

    a: SideRecord
    b: SideRecord
    relation: str
    same_until: int
    divergence: Divergence | None
    same_program: bool
    program_diff: str


@dataclass(frozen=True)
class Mark:
    """One thing a run did that a comparison lines up: a program produced, a
    step finished, a decision, a person's edit."""

    what: str
    """``program``, ``step``, ``decision`` or ``steered``."""
    step: str | None
    progression: int | None
    agent: str | None
    value: str
    """The step's outcome, the decision, the edit's kind, or a program's short hash."""

    def to_dict(self) -> MarkRecord:
        return {
            "what": self.what,
            "step": self.step,
            "progression": self.progression,
            "agent": self.agent,
            "value": self.value,
        }

    def words(self) -> str:
        prog = f"[p{self.progression}] " if self.progression is not None else ""
        agent = f" {self.agent}" if self.agent else ""
        return f"{prog}{self.step or '-'}{agent}: {self.what} {self.value}"


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def trail(events: list[Event]) -> list[Mark]:
    """What a run did, without times and ids, step by step in the order the
    steps first began, and within a step progression by progression.
    Progressions run concurrently and interleave as timing has it; grouped, two
    runs of the same story line up mark for mark and part only where they
    really differ."""
    return [mark for mark, _ in placed_trail(events)]


def placed_trail(events: list[Event]) -> list[tuple[Mark, int]]:
    """:func:`trail`, each mark with the index in ``events`` of the event it
    comes from (a replay opens there)."""
    out: list[tuple[Mark, int]] = []
    for i, e in enumerate(events):
        match e:
            case ProgramCandidate():
                out.append((Mark("program", e.step, e.progression, e.agent, _short_hash(e.program)), i))
            case StepFinished():
                out.append((Mark("step", e.step, e.progression, e.agent, e.outcome), i))
            case Decision():
                out.append((Mark("decision", e.step, e.progression, e.agent, e.decision), i))
            case Steered():
                out.append((Mark("steered", e.step, e.progression, e.agent, f"{e.what} by {e.who}"), i))
    first: dict[str | None, int] = {}
    for n, (m, _) in enumerate(out):
        first.setdefault(m.step, n)
    order = sorted(range(len(out)), key=lambda n: (first[out[n][0].step], out[n][0].progression or -1, n))
    return [out[n] for n in order]


def first_divergence(a: list[Mark], b: list[Mark]) -> int | None:
    """Index of the first mark where the trails differ (one may end first); None: the same."""
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def per_agent(events: list[Event]) -> dict[str, dict[str, float]]:
    """Tokens in and out, calls and seconds spent in model calls, per agent."""
    out: dict[str, dict[str, float]] = {
        agent: {"input": t.input, "output": t.output, "calls": t.calls, "seconds": 0.0}
        for agent, t in tally_events(events).items()
    }
    for e in events:
        if isinstance(e, LLMCallFinished) and e.agent in out:
            out[e.agent]["seconds"] = round(out[e.agent]["seconds"] + (e.latency or 0.0), 3)
    return dict(sorted(out.items()))


def visible_checks(events: list[Event], progression: int | None, accepted_at: str | None) -> list[dict[str, str]]:
    """The Code Quality Checker's verdict on each visible test, for the final
    program: the check of the step that accepted it, otherwise the last check
    of its progression (imagined execution, or the visible tests run in the
    sandbox under the ``python`` checker)."""
    rounds: dict[tuple[str | None, int | None], list[dict[str, str]]] = {}
    order: list[tuple[str | None, int | None]] = []
    for e in events:
        match e:
            case ImaginedCheck():
                rows = [{"test": e.test, "verdict": str(e.verdict)}]
            case SandboxRun(purpose="python_checker"):
                rows = [{"test": str(r.get("test", "")), "verdict": str(r.get("status", ""))} for r in e.results]
            case _:
                continue
        key = (e.step, e.progression)
        if key not in rounds:
            order.append(key)
            rounds[key] = []
        rounds[key].extend(rows)
    if accepted_at is not None and (accepted_at, progression) in rounds:
        return rounds[(accepted_at, progression)]
    mine = [k for k in order if progression is None or k[1] == progression]
    return rounds[mine[-1]] if mine else []


def _parent_of(path: Path) -> str | None:
    """The parent a session's header names (raises SessionError, a ValueError,
    for a file that is not a session)."""
    return parent_of_header(read_header(path))


def relation(a: Path, b: Path, line_a: Lineage, line_b: Lineage) -> str:
    """How two sessions are related through their forks, in words: ``B is a
    fork of A``, ``A descends from B (3 forks)``, ``both descend from R``, or ""."""
    same = {_key(p): i for i, p in enumerate(line_a.ancestors)}
    if _key(a) in {_key(p) for p in line_b.ancestors}:
        n = [_key(p) for p in line_b.ancestors].index(_key(a)) + 1
        return "B is a fork of A" if n == 1 else f"B descends from A ({n} forks)"
    if _key(b) in same:
        n = same[_key(b)] + 1
        return "A is a fork of B" if n == 1 else f"A descends from B ({n} forks)"
    common = next((p for p in line_b.ancestors if _key(p) in same), None)
    return f"both descend from {one_line(common.name, 120)}" if common is not None else ""


def _key(path: Path) -> str:
    try:
        return str(path.resolve())
    except (OSError, RuntimeError):
        return str(path)


def compare_sessions(a: SessionData, b: SessionData) -> Comparison:
    """The comparison of two read sessions (:class:`SessionData`), as one JSON-ready object."""
    trails = trail(a.events), trail(b.events)
    at = first_divergence(*trails)
    summaries = a.summary(), b.summary()
    programs = summaries[0]["final_program"] or "", summaries[1]["final_program"] or ""
    # A diff line per program line, the last one too (unified_diff glues a
    # line without its newline to the next).
    ended = tuple(p if not p or p.endswith("\n") else p + "\n" for p in programs)
    diff = "".join(
        difflib.unified_diff(
            ended[0].splitlines(keepends=True),
            ended[1].splitlines(keepends=True),
            fromfile=f"A {a.path.name}",
            tofile=f"B {b.path.name}",
        )
    )
    divergence: Divergence | None = None
    if at is not None:
        divergence = {
            "index": at,
            "a": trails[0][at].to_dict() if at < len(trails[0]) else None,
            "b": trails[1][at].to_dict() if at < len(trails[1]) else None,
        }

    lines = lineage(Path(a.path), _parent_of), lineage(Path(b.path), _parent_of)

    def side(data: SessionData, marks: list[Mark], summary: SummaryRecord, line: Lineage) -> SideRecord:
        return {
            "session": str(data.path),
            "workflow": data.header.get("workflow", ""),
            "model": data.header.get("model", ""),
            "parent": data.header.get("parent"),
            "forked_at": forked_at_of_header(data.header),
            "lineage": {
                "ancestors": [str(p) for p in line.ancestors],
                "loop": [str(p) for p in line.loop],
                "missing": str(line.missing) if line.missing is not None else None,
                "words": line.words(),
            },
            "outcome": summary["outcome"],
            "accepted_at": summary["accepted_at"],
            "progression": summary["progression"],
            "llm_calls": summary["llm_calls"],
            "duration": summary["duration"],
            "final_program": summary["final_program"],
            "agents": per_agent(data.events),
            "visible_checks": visible_checks(data.events, summary["progression"], summary["accepted_at"]),
            "steps": [m.to_dict() for m in marks],
        }

    return {
        "a": side(a, trails[0], summaries[0], lines[0]),
        "b": side(b, trails[1], summaries[1], lines[1]),
        "relation": relation(Path(a.path), Path(b.path), *lines),
        "same_until": at if at is not None else len(trails[0]),
        "divergence": divergence,
        "same_program": programs[0] == programs[1],
        "program_diff": diff,
    }
