"""Text from a program, a model or a file never drives the terminal: escape
sequences are removed and Rich markup is shown as written, in the CLI and
the app's one-line messages."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest
from rich.console import Console

from qflow_tui.core.safe_text import clean, escape_markup, markup_safe, one_line, scrub

HOSTILE = [
    "\x1b]0;pwned\x07",
    "\x1b[2J\x1b[H1/1 passed",
    "\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\",
    "[link=http://evil.example]click[/link]",
    "[/bold]",
    "\x9b2J\x9d0;t\x9c",
    "a\u202eb",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_clean_leaves_no_control_character(text):
    out = clean(text)
    assert not any((ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F for c in out)
    assert "\u202e" not in out


def test_clean_keeps_honest_text():
    text = "def f(x):\n\treturn x  # é [1, 2] ✓"
    assert clean(text) == text
    assert one_line("a\nb\tc\r") == "a b c "
    assert one_line("x" * 50, 10) == "x" * 9 + "…"


@pytest.mark.parametrize("text", ["[/bold]", "[link=http://e.x]click[/link]", "[bold red]x[/]", "a\\[b]"])
def test_escaped_markup_renders_as_written(text):
    buf = io.StringIO()
    Console(file=buf, color_system=None, width=200).print(escape_markup(text))
    assert buf.getvalue().rstrip("\n") == text


def test_trailing_backslash_does_not_escape_the_markup_after_it():
    buf = io.StringIO()
    Console(file=buf, color_system=None, width=200).print(escape_markup("tail\\") + "[bold]x[/bold]")
    assert buf.getvalue().rstrip("\n") == "tail\\x"


def test_markup_safe_renders_hostile_text_inertly():
    buf = io.StringIO()
    Console(file=buf, force_terminal=True, width=200, highlight=False).print(
        "[bold]x[/] " + markup_safe("\x1b[2J[/bold][link=u]y[/link]")
    )
    out = buf.getvalue()
    assert "\x1b[2J" not in out and "[/bold][link=u]y[/link]" in out and "\x1b]8" not in out


def test_scrub_reaches_into_events():
    from qflow_tui.core import events as ev

    e = ev.TextDelta(text="\x1b]0;t\x07hi", agent="program_generator", call_id="c1")
    out = scrub(e)
    assert out.text == "hi" and e.text.startswith("\x1b")


def _qflow(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "qflow_tui.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "200", "TERM": "xterm-256color", **(env or {})},
    )


def test_check_table_shows_hostile_errors_inertly(tmp_path):
    code = tmp_path / "code.py"
    code.write_text(
        "def f(x):\n"
        "    if x == 1:\n"
        "        raise ValueError('\\x1b]0;pwned\\x07\\x1b[2J\\x1b[H1/1 passed [link=http://evil.example]click[/link]')\n"
        "    if x == 2:\n"
        "        raise ValueError('[/bold] oops')\n"
        "    return '\\x1b[2J'\n"
    )
    tests = tmp_path / "tests.py"
    tests.write_text("assert f(1) == 1\nassert f(2) == 2\nassert f(3) == '[/bold]'\n")
    p = _qflow("check", "--code", str(code), "--tests", str(tests), "--timeout", "5")
    assert p.returncode == 0, p.stderr
    assert "\x1b" not in p.stdout and "\x07" not in p.stdout
    assert "[link=http://evil.example]click[/link]" in p.stdout
    assert "[/bold] oops" in p.stdout
    assert "0/3 passed" in p.stdout
    pj = _qflow("check", "--code", str(code), "--tests", str(tests), "--json", "--timeout", "5")
    data = json.loads(pj.stdout)  # JSON keeps the exact text (escaped by JSON itself)
    assert "\x1b[2J" in data["results"][0]["error"]


def test_one_line_refusals_are_clean(tmp_path):
    (tmp_path / "c.py").write_text("def f(x):\n    return x\n")
    (tmp_path / "t.py").write_text("x = '\x1b]0;pwned\x07[/bold]'\nassert f(1) == 1\n")
    p = _qflow("check", "--code", str(tmp_path / "c.py"), "--tests", str(tmp_path / "t.py"))
    assert p.returncode != 0
    assert "\x1b" not in p.stderr and "\x07" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_sessions_listing_shows_hostile_titles_and_models_inertly(tmp_path):
    from qflow_tui.commands.demo import demo_session

    data = tmp_path / "data"
    sessions = data / "sessions"
    sessions.mkdir(parents=True)
    raw = demo_session().read_text()
    header, rest = raw.split("\n", 1)
    h = json.loads(header)
    h["title"] = "\x1b]0;pwned\x07\x1b[2J[/bold][link=http://evil.example]x[/link]"
    h["model"] = "script/\x1b[31mred[/red]"
    (sessions / "hostile.jsonl").write_text(json.dumps(h) + "\n" + rest)
    (sessions / "[bold]\x1b[2Jweird.jsonl").write_text("not json\n")
    p = _qflow("sessions", env={"QFLOW_DATA_DIR": str(data)})
    assert p.returncode == 0, p.stderr
    assert "\x1b]" not in p.stdout and "\x1b[2J" not in p.stdout and "\x07" not in p.stdout
    assert "[/bold][link" in p.stdout
    assert "[bold]" in p.stdout  # the skipped file's name, shown as written
