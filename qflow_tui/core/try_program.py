"""A program tried by hand, as a judge's page offers: on the problem's visible
tests (the samples) or on input a person types, in the sandbox, never in this
process. Information only: nothing here enters a run, a session or a verdict.

A stdin/stdout problem's program runs as its judge runs it (``iojudge``): each
sample's output beside the expected one, and on typed input what it printed. A
function problem's program runs the visible asserts (pass or fail, and what the
call returned) or one call a person types (``add(2, 3)``, or just ``2, 3``).
What a program printed or returned is cut to :data:`SHOWN_CHARS` characters
and made safe for a terminal; the screens still show it as plain text."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Literal

from .iojudge import NEVER_READ, PRINTED_NOTHING, io_config, judge_io
from .problem import Problem, ProblemError
from .pyparse import parse
from .safe_text import clean, one_line
from .sandbox import Sandbox
from .sandbox.api import SandboxProtocol
from .sandbox.report import SandboxReport, TestOutcome
from .setup_code import sandbox_setup

#: The most of what a program printed or returned that a row keeps, in characters.
SHOWN_CHARS = 2000
#: The most of an error a row keeps, in characters.
ERROR_CHARS = 600

Verdict = Literal["pass", "fail", "error", "timeout", "ran"]


class TryError(ValueError):
    """Input that cannot be tried; the message says what was wrong and what to do."""


@dataclass(frozen=True)
class TryRow:
    """One run of the program: a sample, a visible assert, or the typed input."""

    label: str
    """``sample 1``, the assert's source, or ``your input``."""
    given: str
    """The input (stdin, or the call) as given."""
    expected: str | None
    """The expected output (a sample's), or None (an assert says it in ``label``; typed input has none)."""
    got: str
    """What the program printed (stdin/stdout) or what the call returned (its repr); "" when nothing."""
    verdict: Verdict
    """``pass``/``fail`` against the expected, ``error``/``timeout``, or ``ran`` for typed input."""
    note: str = ""
    """Why it did not pass, or what to know about the output (it never read its input)."""


@dataclass(frozen=True)
class TryReport:
    """What trying a program gave: one row per run, in order."""

    kind: Literal["io", "function"]
    on: Literal["samples", "input"]
    rows: list[TryRow] = field(default_factory=list)
    load_error: str = ""
    """Why the program could not even load (a syntax error), once for every row."""
    isolation: str = ""

    def summary(self) -> str:
        """One line: ``1/2 samples pass``, ``3/3 visible asserts pass``, ``ran on your input``."""
        if self.on == "input":
            row = self.rows[0] if self.rows else None
            if row is None or row.verdict == "ran":
                return "ran on your input"
            return f"ran on your input: {row.verdict}"
        passed = sum(1 for r in self.rows if r.verdict == "pass")
        what = "samples" if self.kind == "io" else "visible asserts"
        line = f"{passed}/{len(self.rows)} {what} pass"
        failing = {r.note for r in self.rows if r.verdict != "pass"}
        if self.load_error:
            line += f": it does not load ({one_line(self.load_error, 80)})"
        elif self.kind == "io" and len(failing) == 1 and (note := failing.pop()):
            line += f": {one_line(note, 80)}"  # what every failing sample had in common
        return line


def problem_of(record: dict[str, object]) -> Problem:
    """The problem a run's first event recorded (a replay's), or TryError."""
    if not record:
        raise TryError("the run has not said its problem yet: wait for its first step")
    try:
        return Problem.from_dict(dict(record))
    except (ProblemError, KeyError, TypeError, ValueError) as exc:
        raise TryError(f"the session's problem cannot be read back ({one_line(str(exc), 80)})") from None


def _text(value: str | None, limit: int = SHOWN_CHARS) -> str:
    """Outside text for a screen: control sequences dropped, cut to ``limit``."""
    text = clean(value or "")
    return text if len(text) <= limit else text[:limit] + "…"


def _printed(actual: str | None) -> str:
    """What the I/O judge's ``actual`` (a repr, perhaps cut with …) says was printed."""
    if not actual:
        return ""
    cut = actual.endswith("…")
    body = actual[:-1] if cut else actual
    try:
        value = ast.literal_eval(body)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        # A cut repr is no longer a literal: close its quote to read it.
        try:
            value = ast.literal_eval(body + body[:1]) if body[:1] in ("'", '"') else body
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            value = body
    text = value if isinstance(value, str) else body
    return _text(text) + ("…" if cut and not text.endswith("…") else "")


def _io_note(outcome: TestOutcome, typed: bool) -> str:
    error = outcome.error or ""
    if outcome.status in ("error", "timeout"):
        return _text(error, ERROR_CHARS)
    notes = []
    if error.startswith(PRINTED_NOTHING):
        notes.append("it printed nothing")
    if error.endswith(NEVER_READ):
        notes.append("it never read its input")
    if not notes and not typed and outcome.status == "fail":
        notes.append("wrong output")
    return "; ".join(notes)


async def try_samples(sandbox: SandboxProtocol, problem: Problem, program: str) -> TryReport:
    """``program`` on ``problem``'s visible tests. Raises :class:`TryError`
    when there is no program or no visible test."""
    if not program.strip():
        raise TryError("no program to run yet: wait for the run to write one")
    if not problem.tests:
        raise TryError("this problem has no visible tests: type an input and run the program on it")
    if problem.is_io:
        box = Sandbox(io_config(sandbox.config, problem.time_limit, problem.memory_mb))
        report = await judge_io(box, program, problem.tests)
        rows = []
        for n, (test, outcome) in enumerate(zip(problem.tests, report.results, strict=True), 1):
            verdict: Verdict = outcome.status
            rows.append(
                TryRow(
                    f"sample {n}",
                    _text(test.input),
                    _text(test.output),
                    _printed(outcome.actual),
                    verdict,
                    _io_note(outcome, typed=False),
                )
            )
        return TryReport("io", "samples", rows, _text(report.load_error, ERROR_CHARS), report.isolation)
    report = await sandbox.run_tests(
        program, problem.test_sources, entry_point=problem.entry_point, setup=sandbox_setup(problem)
    )
    rows = [_assert_row(outcome) for outcome in report.results]
    return TryReport("function", "samples", rows, _text(report.load_error, ERROR_CHARS), report.isolation)


def _assert_row(outcome: TestOutcome) -> TryRow:
    label = _text(outcome.test, ERROR_CHARS)
    note = "" if outcome.status == "pass" else _text(outcome.error, ERROR_CHARS)
    return TryRow(label, label, None, _text(outcome.actual), outcome.status, note)


def call_of(problem: Problem, text: str) -> str:
    """The call a person typed for a function problem: ``add(2, 3)`` as it is,
    ``2, 3`` as ``add(2, 3)``. Raises :class:`TryError` when it is not one."""
    typed = text.strip()
    if not typed:
        raise TryError(f"type a call to try, e.g. {problem.entry_point}(...), or just its arguments")
    entry = problem.entry_point
    try:
        node = parse(typed, mode="eval").body
    except SyntaxError:
        node = None
    calls_entry = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == entry
    call = typed if calls_entry else f"{entry}({typed})"
    try:
        parse(call, mode="eval")
    except SyntaxError as exc:
        raise TryError(
            f"not a Python call ({one_line(exc.msg or 'invalid syntax', 60)}): type e.g. {entry}(2, 3) or just 2, 3"
        ) from None
    return call


async def try_input(sandbox: SandboxProtocol, problem: Problem, program: str, text: str) -> TryReport:
    """``program`` on ``text``: a stdin/stdout problem's program reads it as its
    stdin; a function problem's is called as ``text`` says (:func:`call_of`)."""
    if not program.strip():
        raise TryError("no program to run yet: wait for the run to write one")
    if problem.is_io:
        box = Sandbox(io_config(sandbox.config, problem.time_limit, problem.memory_mb))
        # Nothing to compare with: every output "fails", which keeps what it printed
        # and whether it read its input.
        report = await judge_io(box, program, [(text, "")], compare=_nothing_expected)
        outcome = report.results[0]
        verdict: Verdict = outcome.status if outcome.status in ("error", "timeout") else "ran"
        row = TryRow("your input", _text(text), None, _printed(outcome.actual), verdict, _io_note(outcome, typed=True))
        return TryReport("io", "input", [row], _text(report.load_error, ERROR_CHARS), report.isolation)
    call = call_of(problem, text)
    # An assert that never holds: the sandbox reports the value the call returned.
    probe = f"assert ({call}) is None and False"
    report = await sandbox.run_tests(program, [probe], entry_point=problem.entry_point, setup=sandbox_setup(problem))
    return TryReport(
        "function", "input", [_call_row(call, report)], _text(report.load_error, ERROR_CHARS), report.isolation
    )


def _call_row(call: str, report: SandboxReport) -> TryRow:
    outcome = report.results[0]
    if outcome.status == "fail" and outcome.actual is not None:
        return TryRow("your call", _text(call), None, _text(outcome.actual), "ran")
    status: Verdict = "timeout" if outcome.status == "timeout" else "error"
    return TryRow("your call", _text(call), None, "", status, _text(outcome.error or "no result", ERROR_CHARS))


def _nothing_expected(_output: str, _expected: str) -> bool:
    return False
