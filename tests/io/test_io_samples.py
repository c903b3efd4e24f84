"""The paste format's helpers the compose form uses: samples split off a
pasted statement, pairs written back in the paste format, the rule for
telling Input/Output blocks from asserts."""

from __future__ import annotations

import pytest

from qflow_tui.core.problem import (
    ProblemError,
    io_tests_text,
    looks_like_io_tests,
    parse_io_tests,
    split_samples,
)


def test_pairs_written_in_the_paste_format_read_back():
    pairs = [("1 2\n", "3\n"), ("3\n1 2 3\n", "6\n"), ("x\n", "hello world\n")]
    text = io_tests_text(pairs)
    assert text.startswith("Input 1\n1 2\nOutput 1\n3\n\nInput 2\n")
    assert parse_io_tests(text) == pairs


def test_a_judges_page_splits_into_statement_and_samples():
    page = (
        "A. Sum\ntime limit per test: 1 second\n\nPrint the sum.\n\nExamples\n"
        "Input\n1 2\nOutput\n3\ninput\n5 5\noutput\n10\n\nNote\nIn the first test 1 + 2 = 3.\n"
    )
    found = split_samples(page)
    assert found is not None
    statement, samples = found
    assert statement == "A. Sum\ntime limit per test: 1 second\n\nPrint the sum.\n\nNote\nIn the first test 1 + 2 = 3."
    assert parse_io_tests(samples) == [("1 2\n", "3\n"), ("5 5\n", "10\n")]


def test_a_statement_without_an_input_header_has_no_samples():
    assert split_samples("Print the sum of the input.\nOutput\n3\n") is None
    assert split_samples("") is None


def test_broken_samples_are_left_to_the_parser_to_name():
    found = split_samples("Sum.\nInput\n1 2\n")
    assert found is not None
    with pytest.raises(ProblemError, match="no Output block"):
        parse_io_tests(found[1])


@pytest.mark.parametrize(
    ("text", "io"),
    [
        ("Input\n1\nOutput\n1\n", True),
        ("\n\nSample Input 1\n1\n", True),
        ("assert f(1) == 1\n", False),
        ("# Input\nassert f(1) == 1\n", False),
        ("", False),
    ],
)
def test_io_blocks_are_told_from_asserts_by_their_first_line(text, io):
    assert looks_like_io_tests(text) is io
