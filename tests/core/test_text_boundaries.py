"""Text crossing into the core and out to the terminal is valid text: what a
sandboxed program says (a lone surrogate in its exception) reaches the app
marked with U+FFFD, and ``qflow check`` prints it; what the CLI and the app
show goes through safe_text, which makes it valid."""

from __future__ import annotations

import json

from qflow_tui.core.safe_text import clean, markup_safe, one_line, valid, valid_text
from qflow_tui.core.sandbox import Sandbox, SandboxConfig
from tests.helpers import qflow

PROGRAM = 'def add(a, b):\n    raise ValueError("bad \\ud800 char")\n'
LOAD_FAILS = 'raise SystemError("at import \\udfff")\n'


def test_valid_text_joins_pairs_and_marks_lone_halves():
    assert valid_text("plain") == "plain"
    same = "é and 😀"
    assert valid_text(same) is same
    assert valid_text("a\ud800b\ud83d\ude00c\udc00") == "a\ufffdb\U0001f600c\ufffd"
    assert valid({"k\udfff": ["\ud800", ("x", 1)]}) == {"k\ufffd": ["\ufffd", ("x", 1)]}


def test_what_the_terminal_is_given_is_valid_text():
    for show in (clean, one_line, markup_safe):
        assert show("bad \ud800 char").encode("utf-8") == "bad \ufffd char".encode()


def test_a_sandboxed_programs_lone_surrogate_reaches_the_app_marked():
    box = Sandbox(SandboxConfig(timeout=3.0, isolation="rlimits"))
    report = box.run_tests_sync(PROGRAM, ["assert add(1, 2) == 3"])
    (result,) = report.results
    assert result.status == "error" and "bad \ufffd char" in (result.error or "")
    loaded = box.run_tests_sync(LOAD_FAILS, ["assert add(1, 2) == 3"])
    assert loaded.load_error is not None and "\ufffd" in loaded.load_error
    json.dumps(loaded.to_dict(), ensure_ascii=False).encode("utf-8")  # what a session writes


def test_qflow_check_prints_a_lone_surrogate_as_a_mark(tmp_path):
    code = tmp_path / "code.py"
    code.write_text(PROGRAM)
    tests = tmp_path / "tests.py"
    tests.write_text("assert add(1, 2) == 3\n")
    table = qflow("check", "--code", str(code), "--tests", str(tests), env={"COLUMNS": "120"})
    assert table.returncode == 0, table.stderr
    assert "Traceback" not in table.stderr
    assert "ValueError: bad \ufffd char" in table.stdout
    as_json = qflow("check", "--code", str(code), "--tests", str(tests), "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["results"][0]["error"].startswith("ValueError: bad \ufffd char")
