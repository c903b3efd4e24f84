"""screenshots/generate.py answers --help and --list without drawing anything."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "screenshots" / "generate.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)


def test_help_names_the_pictures():
    done = run("--help")
    assert done.returncode == 0, done.stderr
    assert "usage: screenshots/generate.py" in done.stdout
    assert "accepted" in done.stdout and "light-theme-wide" in done.stdout


def test_list_prints_one_name_a_line_and_a_bad_filter_says_so():
    done = run("--list")
    assert done.returncode == 0, done.stderr
    names = done.stdout.split()
    assert "compose" in names and "reverted" in names
    assert all((SCRIPT.parent / f"{n}.svg").exists() for n in names)
    missing = run("no-such-picture")
    assert missing.returncode == 1
    assert "no screenshot matches no-such-picture" in missing.stderr
