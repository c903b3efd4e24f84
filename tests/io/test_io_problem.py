"""The I/O problem model: tests as input/output pairs, their rendering, the
paste and file formats, and sessions' round trip (old records still load)."""

from __future__ import annotations

import json

import pytest

from qflow_tui.core.problem import (
    Problem,
    ProblemError,
    io_source,
    make_io_problem,
    make_problem,
    parse_io_tests,
    problem_from_file_data,
)


def test_io_source_is_one_readable_line() -> None:
    assert io_source("1 2\n", "3\n") == "input '1 2\\n' -> output '3\\n'"
    long = io_source("x" * 500, "\x1b[2J\n")
    assert "\n" not in long and "\x1b" not in long and long.count("…") == 1


def test_round_trip_both_kinds_and_old_records() -> None:
    io = make_io_problem("Add two numbers.", [("1 2\n", "3\n"), ("5 5\n", "10\n")], time_limit=2, memory_mb=256)
    back = Problem.from_dict(json.loads(json.dumps(io.to_dict())))
    assert back.kind == "io" and back.entry_point == ""
    assert [(t.input, t.output) for t in back.tests] == [("1 2\n", "3\n"), ("5 5\n", "10\n")]
    assert back.time_limit == 2.0 and back.memory_mb == 256
    assert back.tests[0].source == "input '1 2\\n' -> output '3\\n'"
    fn = make_problem("Add.", "assert add(1, 2) == 3")
    old = fn.to_dict()
    assert "kind" not in old  # an older session's record has no kind: it still loads as a function problem
    again = Problem.from_dict(old)
    assert again.kind == "function" and again.entry_point == "add" and not again.tests[0].is_io


def test_paste_format() -> None:
    text = "Sample Input 1\n3\n1 2 3\nSample Output 1\n6\n\ninput:\n0\n\noutput:\n0\n"
    assert parse_io_tests(text) == [("3\n1 2 3\n", "6\n"), ("0\n", "0\n")]
    with pytest.raises(ProblemError, match="line 1: text before the first Input"):
        parse_io_tests("hello\nInput\n1\nOutput\n1\n")
    with pytest.raises(ProblemError, match="no Output block"):
        parse_io_tests("Input\n1\n")
    with pytest.raises(ProblemError, match="line 3: an Output line was expected"):
        parse_io_tests("Input\n1\nInput\n2\n")


def test_problem_file_data() -> None:
    p = problem_from_file_data(
        {"statement": "Echo.", "tests": [{"input": "a\n", "output": "a\n"}], "time_limit": 1.5, "title": "echo"}
    )
    assert p.kind == "io" and p.time_limit == 1.5 and p.title == "echo"
    f = problem_from_file_data({"statement": "Add.", "tests": ["assert add(1, 2) == 3"]})
    assert f.kind == "function" and f.entry_point == "add"
    for bad, msg in [
        ([], "JSON object"),
        ({"tests": []}, "'statement'"),
        ({"statement": "x", "tests": [{"input": 1, "output": "2"}]}, "test 1"),
        ({"statement": "x", "tests": [{"input": "1", "output": "2"}], "time_limit": -1}, "time_limit"),
        ({"statement": "x", "tests": [{"input": "1", "output": "2"}], "memory_mb": "lots"}, "memory_mb"),
        ({"statement": "x", "tests": [], "kind": "io"}, "no tests"),
    ]:
        with pytest.raises(ProblemError, match=msg):
            problem_from_file_data(bad)
