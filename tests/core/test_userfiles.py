"""Reading a user's file: every failure is one line that says what to do."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from qflow_tui.core.userfiles import (
    MAX_USER_FILE,
    UserFileError,
    load_problem_file,
    read_user_file,
    split_problem_file,
)


def test_reads_utf8_text(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text("héllo\n", encoding="utf-8")
    assert read_user_file(f, "problem") == "héllo\n"


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda d: d / "missing.txt", "no such file"),
        (lambda d: d, "is a folder"),
        (lambda d: (d / "bin").write_bytes(b"\xff\xfe\x00bad") and d / "bin", "not UTF-8 text"),
    ],
)
def test_one_line_reasons(tmp_path, make, says):
    with pytest.raises(UserFileError) as info:
        read_user_file(make(tmp_path), "tests")
    message = str(info.value)
    assert says in message and message.startswith("tests file ") and "\n" not in message


def test_a_fifo_is_refused_instead_of_hanging(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(UserFileError, match="not a regular file"):
        read_user_file(fifo, "problem")


def test_a_huge_file_is_refused_before_reading(tmp_path):
    big = tmp_path / "big.txt"
    with big.open("wb") as fh:
        fh.truncate(MAX_USER_FILE + 1)  # sparse: costs no disk
    with pytest.raises(UserFileError, match="larger than"):
        read_user_file(big, "tests")


def test_split_problem_file_starts_tests_at_the_first_assert():
    statement, tests = split_problem_file("Write f.\nIt adds one.\n\nassert f(1) == 2\nassert f(2) == 3\n")
    assert statement == "Write f.\nIt adds one."
    assert tests == "assert f(1) == 2\nassert f(2) == 3\n"


def test_json_problem_files(tmp_path):
    good = tmp_path / "p.json"
    good.write_text('{"statement": "Add one.", "tests": ["assert f(1) == 2"], "entry_point": "f"}')
    assert load_problem_file(good).tests == "assert f(1) == 2"
    assert load_problem_file(good).entry_point == "f"
    bad = tmp_path / "bad.json"
    for text in ('{"statement": "x"}', "[1, 2]", '{"statement": 3, "tests": ""}'):
        bad.write_text(text)
        with pytest.raises(UserFileError, match='needs "statement" and "tests"'):
            load_problem_file(bad)
    # A file that is not JSON at all says so, and where, not that it lacks keys.
    for text, where in (("not json", "line 1, column 1"), ('{"statement": "x",\n "tests": [', "line 2")):
        bad.write_text(text)
        with pytest.raises(UserFileError, match=f"not valid JSON \\({where}"):
            load_problem_file(bad)
    bad.write_text("[" * 100_000)
    with pytest.raises(UserFileError, match="not valid JSON"):
        load_problem_file(bad)


def test_solve_names_the_file_in_one_line(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "qflow_tui.cli", "solve", "--problem", str(tmp_path), "--tests", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode != 0
    assert "is a folder" in out.stderr and "Traceback" not in out.stderr
