"""What a debugger is told of a failing I/O test (agents/test_executor.py):
the input, the expected output and what the program printed, whole (the
problem's own tests found by their labels, which are cut at 60 characters;
designed ones read back from their whole labels), and never a control
sequence a terminal would act on."""

from __future__ import annotations

from qflow_tui.core.agents.test_executor import execution_feedback
from qflow_tui.core.problem import io_source, make_io_problem
from qflow_tui.core.sandbox.report import SandboxReport, TestOutcome

LONG = " ".join(str(i) for i in range(40)) + "\n"  # longer than a label shows
PROBLEM = make_io_problem("Sum the numbers.", [(LONG, "780\n")])


def _report(*outcomes: TestOutcome) -> SandboxReport:
    return SandboxReport(results=list(outcomes))


def test_the_problems_own_test_is_shown_whole() -> None:
    (test,) = PROBLEM.tests
    assert LONG not in test.source  # the label alone would cut it
    fb = execution_feedback(_report(TestOutcome(test.source, "fail", actual="'779\\n'", error="wrong output")), PROBLEM)
    assert f"Input:\n{LONG.rstrip()}\nExpected output:\n780\nThe program printed:\n779\n" in fb
    assert fb.endswith("(0 of 1 tests pass)")


def test_designed_tests_timeouts_errors_and_silence() -> None:
    designed = io_source("5\n", "25\n", whole=True)
    fb = execution_feedback(
        _report(
            TestOutcome(designed, "fail", actual="''", error="the program printed nothing"),
            TestOutcome(io_source("6\n", "36\n", whole=True), "timeout"),
            TestOutcome(io_source("7\n", "49\n", whole=True), "error", error="ZeroDivisionError: division by zero"),
        ),
        PROBLEM,
    )
    assert "Input:\n5\nExpected output:\n25\nThe program printed (the program printed nothing):\n(nothing)" in fb
    assert "Input:\n6\nExpected output:\n36\nThe program did not finish in time." in fb
    assert "The program failed: ZeroDivisionError: division by zero" in fb


def test_control_characters_are_named_not_sent() -> None:
    printed = "\x1b[2J\x1b]0;owned\x07780\n"
    fb = execution_feedback(
        _report(TestOutcome(PROBLEM.tests[0].source, "fail", actual=repr(printed), error="wrong output")), PROBLEM
    )
    assert "\x1b" not in fb and "\x07" not in fb
    assert "\\x1b[2J" in fb and "control characters" in fb


def test_a_printed_output_cut_short_says_so() -> None:
    shown = repr("9" * 3000)[:2000] + "…"  # what the judge keeps of a long output
    fb = execution_feedback(_report(TestOutcome(PROBLEM.tests[0].source, "fail", actual=shown)), PROBLEM)
    assert "The program printed:\n" + "9" * 1000 + "\n[... cut]" in fb
