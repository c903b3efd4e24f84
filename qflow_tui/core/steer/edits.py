"""A person's edits to a run: what the workflow takes in place of an agent's
answer at a chosen step of a chosen progression, the synthesized tests it
debugs against, and the statement the clarifier reads. The workflow consults
the run's :class:`Steering` where an agent would answer; every edit taken is a
``steered`` event in the session (who, what, from what, to what).

The store sits below the workflows, which read it; what a workflow will take
at a fork asks the workflow specs and stays in :mod:`qflow_tui.core.steer.fork`.

A :class:`Steering` may change while the run goes (the app puts a person's
edits into it while the step gate holds the run): the workflow takes each edit
once, the first time it reaches the place the edit applies to."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .. import pyparse
from ..events import ProgramCandidate, Steered, SteeredWhat
from ..problem import ProblemError, parse_tests
from ..safe_text import one_line

if TYPE_CHECKING:
    from ..context import RunContext


class SteerError(ValueError):
    """An edit that cannot be taken (one line for the user)."""


@dataclass
class TestSetEdit:
    """The synthesized tests as a person changed them: what was taken and the events to say so."""

    kept: list[str]
    """The tests the run goes on with: kept by the judge or a person, written or edited by a person."""
    rejected: list[str]
    """The tests left out: rejected by the judge or dropped by a person."""
    changed: bool = False
    """Whether a person's edit was taken (each said by a ``steered`` event)."""


@dataclass
class Steering:
    """Edits keyed by where they apply."""

    programs: dict[tuple[str, int], str] = field(default_factory=dict)
    """(step, progression) -> the program the progression carries on with from
    that step: in place of the step's agent answer (program_generator,
    self_debug:N, clarifier:N), or, once the step has answered, in place of its
    answer at the step's quality check."""
    verdicts: dict[tuple[str, int], bool] = field(default_factory=dict)
    """The Code Quality Checker's decision on the step's program: True accept, False reject."""
    next_verdicts: dict[int, bool] = field(default_factory=dict)
    """Progression -> the decision of its next quality check, whatever step that is."""
    test_verdicts: dict[str, bool] = field(default_factory=dict)
    """A synthesized test (its text) -> kept (True) or dropped (False), over the Test Quality Checker's verdict."""
    test_edits: dict[str, str] = field(default_factory=dict)
    """A synthesized test -> its new text (kept: a person wrote it), or "" to delete it."""
    added_tests: list[str] = field(default_factory=list)
    """Tests a person adds to the kept set."""
    tests: list[str] | None = None
    """Every synthesized test replaced by these (all kept); None: the run's own."""
    statement: str | None = None
    """The problem statement the clarifier and the clarified generator read; None: the problem's."""
    who: str = "user"

    def __bool__(self) -> bool:
        return bool(self.pending())

    def has_test_edits(self) -> bool:
        return bool(self.test_verdicts or self.test_edits or self.added_tests or self.tests is not None)

    def brief(self) -> str:
        """The edits not taken yet, in a few words for a status line ("program of p0, drop test ×2")."""
        words = [f"program of p{p}" for _, p in self.programs]
        words += [f"verdict of p{p}" for _, p in self.verdicts] + [f"verdict of p{p}" for p in self.next_verdicts]
        words += ["tests replaced"] if self.tests is not None else []
        words += ["keep test" if v else "drop test" for v in self.test_verdicts.values()]
        words += ["edit test" if new else "delete test" for new in self.test_edits.values()]
        words += ["add test"] * len(self.added_tests)
        words += ["statement"] if self.statement is not None else []
        counted = {w: words.count(w) for w in words}
        return ", ".join(w if n == 1 else f"{w} ×{n}" for w, n in counted.items())

    def pending(self) -> list[str]:
        """The edits not taken yet, in words ("program of p0 at self_debug:1")."""
        out = [f"program of p{p} at {step}" for step, p in self.programs]
        out += [f"verdict of p{p} at {step} ({_word(v)})" for (step, p), v in self.verdicts.items()]
        out += [f"verdict of p{p}'s next check ({_word(v)})" for p, v in self.next_verdicts.items()]
        if self.tests is not None:
            out.append(f"synthesized tests replaced ({len(self.tests)})")
        out += [f"{'keep' if v else 'drop'} test {_short(t)}" for t, v in self.test_verdicts.items()]
        out += [f"{'edit' if new else 'delete'} test {_short(t)}" for t, new in self.test_edits.items()]
        out += [f"add test {_short(t)}" for t in self.added_tests]
        if self.statement is not None:
            out.append("problem statement (for the clarifier)")
        return out


def _word(verdict: bool) -> str:
    return "accept" if verdict else "reject"


def _short(test: str, width: int = 48) -> str:
    one = " ".join(test.split())
    return one if len(one) <= width else one[: width - 1] + "…"


def check_program(text: str, where: str = "the program") -> str:
    """``text`` if it is valid Python, else :class:`SteerError` naming the line."""

    if not text.strip():
        raise SteerError(f"{where} is empty: write the program the run should carry on with")
    try:
        pyparse.parse(text)
    except SyntaxError as exc:
        raise SteerError(f"{where} is not valid Python (line {exc.lineno}: {exc.msg}); fix it and try again") from None
    return text


def check_tests(text: str, entry_point: str, where: str = "the tests") -> list[str]:
    """The asserts in ``text``, each calling ``entry_point``, else :class:`SteerError` (one line)."""
    try:
        cases, _, setup = parse_tests(text, entry_point)
    except ProblemError as exc:
        raise SteerError(f"{where}: {exc}") from None
    if setup:
        raise SteerError(f"{where}: imports are the problem's setup, not a test; write asserts only")
    return [c.source for c in cases]


def check_test(text: str, entry_point: str) -> str:
    """One assert calling ``entry_point``, else :class:`SteerError` (one line)."""
    tests = check_tests(text, entry_point, "the test")
    if len(tests) != 1:
        raise SteerError(f"the test: write one assert, not {len(tests)}")
    return tests[0]


def _steering(ctx: RunContext) -> Steering | None:
    steering = ctx.steering
    return steering if isinstance(steering, Steering) else None


def has_program(ctx: RunContext, step: str, progression: int) -> bool:
    """Whether a person's program waits for ``step`` of ``progression``."""
    steering = _steering(ctx)
    return steering is not None and (step, progression) in steering.programs


def steered_program(ctx: RunContext, step: str, progression: int, current: str, agent: str) -> str | None:
    """The edited program for ``step`` of ``progression``, taken once (and said
    in a ``steered`` event); None when nobody edited it."""
    steering = _steering(ctx)
    if steering is None:
        return None
    program = steering.programs.pop((step, progression), None)
    if program is None:
        return None
    ctx.event(
        Steered(
            step=step,
            agent=agent,
            progression=progression,
            who=steering.who,
            what="program",
            before=current,
            after=program,
        )
    )
    ctx.event(ProgramCandidate(step=step, agent=agent, progression=progression, program=program))
    return program


def steered_verdict(ctx: RunContext, step: str, progression: int, checker: str) -> bool | None:
    """The overridden quality verdict for ``step`` of ``progression`` (or for the
    progression's next check), taken once; None: ``checker`` (the role) decides."""
    steering = _steering(ctx)
    if steering is None:
        return None
    verdict = steering.verdicts.pop((step, progression), None)
    if verdict is None:
        verdict = steering.next_verdicts.pop(progression, None)
    if verdict is None:
        return None
    ctx.event(
        Steered(
            step=step,
            agent=checker,
            progression=progression,
            who=steering.who,
            what="verdict",
            before="the checker's verdict (not asked)",
            after=_word(verdict),
        )
    )
    return verdict


def steered_tests(
    ctx: RunContext,
    kept: list[str],
    rejected: list[str],
    step: str,
    progression: int | None,
    *,
    designer: str,
    judge: str,
) -> TestSetEdit:
    """The synthesized tests after a person's pending test edits (each taken once,
    each a ``steered`` event, said by ``designer``'s role, or ``judge``'s for a
    test's verdict); an edit naming a test the set does not hold stays pending.
    Tests a person writes or edits are kept: the person is their judge."""
    out = TestSetEdit(list(kept), list(rejected))
    steering = _steering(ctx)
    if steering is None or not steering.has_test_edits():
        return out

    def said(what: SteeredWhat, before: str, after: str, test: str = "") -> None:
        out.changed = True
        ctx.event(
            Steered(
                step=step,
                agent=judge if what == "test verdict" else designer,
                progression=progression,
                who=steering.who,
                what=what,
                before=before,
                after=after,
                test=test,
            )
        )

    if steering.tests is not None:
        new, steering.tests = steering.tests, None
        said("tests", "\n".join(out.kept), "\n".join(new))
        out.kept, out.rejected = list(new), []
    for test, keep in list(steering.test_verdicts.items()):
        source, target = (out.rejected, out.kept) if keep else (out.kept, out.rejected)
        if test not in source:
            if test in target:  # already so: nothing to change, nothing to say
                del steering.test_verdicts[test]
            continue
        del steering.test_verdicts[test]
        source.remove(test)
        target.append(test)
        said("test verdict", "rejected" if keep else "kept", "kept" if keep else "rejected", test)
    for test, new_text in list(steering.test_edits.items()):
        holder = out.kept if test in out.kept else out.rejected if test in out.rejected else None
        if holder is None:
            continue
        del steering.test_edits[test]
        holder.remove(test)
        if new_text:
            out.kept.append(new_text)
        said("test", test, new_text, test)
    for test in steering.added_tests:
        if test not in out.kept:
            out.kept.append(test)
            said("test", "", test, test)
    steering.added_tests = []
    return out


def steered_statement(ctx: RunContext, step: str, progression: int, current: str, reader: str) -> str | None:
    """The statement a person wrote for ``reader`` (a role), taken once; None: unchanged."""
    steering = _steering(ctx)
    if steering is None or steering.statement is None:
        return None
    statement, steering.statement = steering.statement, None
    ctx.event(
        Steered(
            step=step,
            agent=reader,
            progression=progression,
            who=steering.who,
            what="statement",
            before=current,
            after=statement,
        )
    )
    return statement


def steered_words(e: Steered, limit: int | None = 50) -> str:
    """What a person's edit changed, in a few words (a timeline row, a log line);
    a test's text cut at ``limit`` characters (None: whole, for a row that cuts
    itself, so one ellipsis ends it, not two)."""
    test = one_line(e.test or e.after or e.before, limit)
    if e.what == "program":
        return "program replaced"
    if e.what == "verdict":
        return f"quality verdict: {e.after}"
    if e.what == "test verdict":
        return f"test {e.after}: {test}"
    if e.what == "test":
        change = "added" if not e.before else "deleted" if not e.after else "edited"
        return f"test {change}: {one_line(e.after or e.before, limit)}"
    if e.what == "tests":
        return f"synthesized tests replaced ({len(e.after.splitlines())})"
    if e.what == "statement":
        return "statement edited (for the clarifier)"
    return e.what
