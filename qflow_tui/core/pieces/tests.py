"""The synthesized tests of a run (QualityFlow's and AgentCoder's test designers,
the tests any workflow runs in the sandbox, a person's own): each with its Test
Quality Checker verdict, a person's mark and its last result per progression."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import events as ev
from .base import RunReading, StatePiece, register_piece


@dataclass
class SynthTest:
    """One synthesized test, its Test Quality Checker verdict and last results."""

    test: str
    round: int
    verdict: str | None = None
    """``kept``, ``rejected`` or None before the TQC judged it."""
    source: str = "designed"
    """``designed`` (a test designer's, for the TQC to judge) or ``run`` (seen
    only in a sandbox run: no TQC verdict will come)."""
    reasoning: str = ""
    value: str | None = None
    detail: str = ""
    results: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Last execution result against each progression's program, keyed by progression."""
    steered: str = ""
    """What a person made of it: ``kept`` or ``rejected`` over the TQC, ``edited``,
    ``deleted``, ``replaced``; ``written`` for a test a person added (empty: untouched)."""

    @property
    def standing(self) -> str | None:
        """``kept`` or ``rejected`` as the run now uses it: a person's keep or drop
        over the TQC's verdict, a person's own test kept, an edited, deleted or
        replaced test in neither (None, as before a verdict)."""
        if self.steered in ("kept", "rejected"):
            return self.steered
        if self.steered == "written":
            return "kept"
        if self.steered in ("edited", "deleted", "replaced"):
            return None
        return self.verdict


@dataclass(frozen=True)
class TestCounts:
    """The tests as the Tests tab's header counts them."""

    designed: int
    """Designed by a test designer (for the TQC to judge)."""
    most: int
    """The most the run keeps, as its test design said (0: not said)."""
    ran: int
    """Seen only in a sandbox run."""
    kept: int
    """Kept as the run now uses them (a person's marks over the TQC's)."""
    rejected: int


def _whole(value: object) -> int:
    """A recorded whole number, or 0 for anything else."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


@register_piece
@dataclass
class SynthTests(StatePiece):
    """The run's synthesized tests in the order first seen, and its test design's progress."""

    events = (ev.SandboxRun, ev.TestsDesigned, ev.TQCVerdict, ev.Steered)
    tests: list[SynthTest] = field(default_factory=list)
    designed: int = 0
    """Tests the last round of test design ended with."""
    round: int = 0
    """The last round of test design (0: none yet)."""
    most: int = 0
    """The most tests the run keeps, as its test design said (0: not said)."""
    _index: dict[str, int] = field(default_factory=dict)

    def judged(self) -> list[SynthTest]:
        """The tests the Test Quality Checker judged, in the order they were designed."""
        return [t for t in self.tests if t.verdict is not None]

    def designed_tests(self) -> list[str]:
        """The tests the test designer wrote, in order, each once."""
        return [t.test for t in self.tests if t.source == "designed" and t.round > 0]

    def counts(self) -> TestCounts:
        return TestCounts(
            designed=sum(1 for t in self.tests if t.source == "designed"),
            most=self.most,
            ran=sum(1 for t in self.tests if t.source == "run"),
            kept=sum(1 for t in self.tests if t.standing == "kept"),
            rejected=sum(1 for t in self.tests if t.standing == "rejected"),
        )

    def apply(self, state: RunReading, event: ev.Event) -> None:
        if isinstance(event, ev.SandboxRun):
            self._ran(event)
        elif isinstance(event, ev.TestsDesigned):
            self._designed(state, event)
        elif isinstance(event, ev.TQCVerdict):
            self._judged(state, event)
        elif isinstance(event, ev.Steered):
            self._steered(event)

    def _add(self, test: str, round: int, source: str = "designed") -> int:
        idx = self._index[test.strip()] = len(self.tests)
        self.tests.append(SynthTest(test=test, round=round, source=source))
        return idx

    def _ran(self, e: ev.SandboxRun) -> None:
        if e.progression is None:
            return
        debugging = e.purpose in ("self_debug", "after_debug")
        for r in e.results:
            key = str(r.get("test", "")).strip()
            idx = self._index.get(key)
            if idx is None and not debugging and key:
                # A test the workflow ran without designing it through the TQC
                # (AgentCoder's, CodeTree's, the visible tests): the table shows it too.
                idx = self._add(str(r.get("test", "")), 0, "run")
            if idx is not None:
                result = dict(r)
                result["step"] = e.step
                result["when"] = ("after" if e.purpose == "after_debug" else "before") if debugging else "at"
                if e.load_error and r.get("status") != "pass":
                    result.setdefault("error", e.load_error)
                self.tests[idx].results[e.progression] = result

    def _designed(self, state: RunReading, e: ev.TestsDesigned) -> None:
        self.round = e.round
        self.designed = e.total
        # Older sessions did not say: their settings were QualityFlow's fields.
        self.most = e.most or _whole(state.config.get("max_tests"))
        rounds = e.rounds or _whole(state.config.get("test_rounds"))
        for t in e.tests:
            if t.strip() not in self._index:
                self._add(t, e.round)
        if e.step:
            of = f"/{rounds}" if rounds else ""
            state.cell(e.step, e.progression).detail = f"{e.total} tests, round {e.round}{of}"

    def _judged(self, state: RunReading, e: ev.TQCVerdict) -> None:
        idx = self._index.get(e.test.strip())
        if idx is None:
            idx = self._add(e.test, 0)
        t = self.tests[idx]
        t.verdict = e.verdict
        t.reasoning = e.reasoning
        t.value = e.value
        t.detail = e.detail
        kept = sum(1 for s in self.tests if s.verdict == "kept")
        rejected = sum(1 for s in self.tests if s.verdict == "rejected")
        if e.step:
            state.cell(e.step, e.progression).detail = f"{kept} kept, {rejected} rejected"

    def _steered(self, e: ev.Steered) -> None:
        if e.what == "test verdict":
            self._mark(e.test, e.after)
        elif e.what == "test":
            if e.before:
                self._mark(e.before, "edited" if e.after else "deleted")
            if e.after:
                self._written(e.after)
        elif e.what == "tests":
            for t in self.tests:
                if t.source == "designed" and not t.steered:
                    t.steered = "replaced"
            for test in e.after.splitlines():
                self._written(test)

    def _mark(self, test: str, what: str) -> None:
        idx = self._index.get(test.strip())
        if idx is not None:
            self.tests[idx].steered = what

    def _written(self, test: str) -> None:
        """A test a person wrote: a row of its own on the Tests tab."""
        idx = self._index.get(test.strip())
        if idx is None:
            idx = self._add(test, 0, "person")
        self.tests[idx].steered = "written"
