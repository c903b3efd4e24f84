"""A program run by hand (issue 57, as a judge's page offers): on the samples
or on typed input, in the real sandbox at its default level, each output beside
the expected one, bounded and terminal-safe."""

from __future__ import annotations

import pytest

from qflow_tui.core.problem import make_io_problem, make_problem
from qflow_tui.core.sandbox import Sandbox, SandboxConfig
from qflow_tui.core.try_program import SHOWN_CHARS, TryError, call_of, problem_of, try_input, try_samples

SUM = make_io_problem("Print the sum of two integers.", [("1 2\n", "3\n"), ("10 -4\n", "6\n")])
ADD = make_problem("Add two numbers.", "assert add(2, 3) == 5\nassert add(1, 1) == 3")
READS = "a, b = map(int, input().split())\nprint(a + b)\n"
NEVER_READS = "def add(a, b):\n    return a + b\n"


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    return Sandbox(SandboxConfig(timeout=5.0))  # the default level, as a user runs it


async def test_a_stdin_program_on_the_samples_shows_got_beside_expected(sandbox: Sandbox) -> None:
    report = await try_samples(sandbox, SUM, "a, b = map(int, input().split())\nprint(a + b if a < 5 else 0)\n")
    assert report.summary() == "1/2 samples pass: wrong output"
    first, second = report.rows
    assert (first.given, first.expected, first.got, first.verdict) == ("1 2\n", "3\n", "3\n", "pass")
    assert (second.expected, second.got, second.verdict, second.note) == ("6\n", "0\n", "fail", "wrong output")


async def test_a_program_that_never_reads_its_input_says_so(sandbox: Sandbox) -> None:
    report = await try_samples(sandbox, SUM, NEVER_READS)
    assert report.summary() == "0/2 samples pass: it printed nothing; it never read its input"
    assert all(r.note == "it printed nothing; it never read its input" for r in report.rows)


async def test_a_stdin_program_on_typed_input_shows_what_it_printed(sandbox: Sandbox) -> None:
    report = await try_input(sandbox, SUM, READS, "40 2\n")
    (row,) = report.rows
    assert (row.given, row.expected, row.got, row.verdict, row.note) == ("40 2\n", None, "42\n", "ran", "")
    assert report.summary() == "ran on your input"


async def test_a_program_that_does_not_parse_says_why(sandbox: Sandbox) -> None:
    report = await try_samples(sandbox, SUM, "print(1\n")
    assert report.load_error.startswith("SyntaxError")
    assert report.summary().startswith("0/2 samples pass: it does not load (SyntaxError")


async def test_output_is_bounded_and_terminal_safe(sandbox: Sandbox) -> None:
    report = await try_input(sandbox, SUM, "print('\\x1b[31mred[/] ' * 5000)", "1 2\n")
    (row,) = report.rows
    assert "\x1b" not in row.got and row.got.startswith("red[/] red")
    assert len(row.got) <= SHOWN_CHARS + 1 and row.got.endswith("…")
    assert row.note == "it never read its input"


async def test_a_function_program_on_the_visible_asserts(sandbox: Sandbox) -> None:
    report = await try_samples(sandbox, ADD, NEVER_READS)
    assert report.summary() == "1/2 visible asserts pass"
    assert [(r.label, r.got, r.verdict) for r in report.rows] == [
        ("assert add(2, 3) == 5", "5", "pass"),
        ("assert add(1, 1) == 3", "2", "fail"),
    ]


@pytest.mark.parametrize(
    ("typed", "call", "got"),
    [
        ("add(2, 40)", "add(2, 40)", "42"),
        ("'a', 'b'", "add('a', 'b')", "'ab'"),
        ("[1], [2]", "add([1], [2])", "[1, 2]"),
    ],
)
async def test_a_function_program_on_a_typed_call(sandbox: Sandbox, typed: str, call: str, got: str) -> None:
    report = await try_input(sandbox, ADD, NEVER_READS, typed)
    (row,) = report.rows
    assert (row.given, row.got, row.verdict) == (call, got, "ran")


async def test_a_call_that_raises_shows_the_error(sandbox: Sandbox) -> None:
    report = await try_input(sandbox, ADD, NEVER_READS, "1, 'x'")
    (row,) = report.rows
    assert row.verdict == "error" and row.note.startswith("TypeError")


def test_what_cannot_be_tried_is_one_clear_line() -> None:
    with pytest.raises(TryError, match=r"^not a Python call .*type e.g. add\(2, 3\)"):
        call_of(ADD, "add(1,")
    with pytest.raises(TryError, match="type a call"):
        call_of(ADD, "   ")
    with pytest.raises(TryError, match="has not said its problem"):
        problem_of({})
    assert problem_of(SUM.to_dict()).tests == SUM.tests


async def test_no_program_or_no_samples_is_one_clear_line(sandbox: Sandbox) -> None:
    with pytest.raises(TryError, match="no program to run yet"):
        await try_samples(sandbox, SUM, "  ")
    bare = make_io_problem("Echo.", [], allow_no_tests=True)
    with pytest.raises(TryError, match="no visible tests: type an input"):
        await try_samples(sandbox, bare, READS)
