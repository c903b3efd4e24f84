"""When the machine refuses a command something it needs (open files, disk
space), the command says so in one line with what to do, never a traceback."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from qflow_tui import cli
from qflow_tui.commands import sessions as sessions_command


@pytest.mark.parametrize(
    ("code", "hint"),
    [
        (errno.EMFILE, "raise the limit of open files (ulimit -n)"),
        (errno.ENOSPC, "free some disk space"),
        (errno.EACCES, "check the path's permissions"),
    ],
)
def test_a_refusal_is_one_line_with_what_to_do(monkeypatch, capsys, tmp_path: Path, code: int, hint: str):
    def refused(args: object) -> int:
        raise OSError(code, "refused here", str(tmp_path / "results.jsonl"))

    monkeypatch.setattr(sessions_command, "run", refused)
    assert cli.main(["sessions", "--dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("qflow sessions: refused here (")
    assert str(tmp_path / "results.jsonl") in err and hint in err


def test_a_bench_says_it_carries_on_and_a_path_cannot_drive_the_terminal():
    err = OSError(errno.EMFILE, "Too many open files", "/tmp/b\x1b[2J/results.jsonl")
    line = cli.refused(err, resumes=True)
    assert "\x1b" not in line and "\n" not in line
    assert line.endswith("run the command again: it carries on where it stopped")
    assert "carries on" not in cli.refused(err)
    assert cli.refused(OSError(errno.EIO, "Input/output error")) == "Input/output error"
