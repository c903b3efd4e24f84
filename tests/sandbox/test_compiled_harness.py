"""The harness is compiled once per child interpreter and handed to each child
in a sealed memory file: a child no longer compiles 1,100 lines at every start
(about a third of a small program's run). The program under test never sees
that file, and a child whose interpreter could not compile it still runs."""

from __future__ import annotations

import os

import pytest
from sbhelpers import LEVELS, make

from qflow_tui.core.sandbox import detect_isolation, spawn, zygote
from qflow_tui.core.sandbox.launch import build_argv, compiled_harness, harness_source
from qflow_tui.core.sandbox.pool import warm_pool

#: A program that lists what its open fds point at.
FDS = (
    "import os\n"
    "def f(x):\n"
    "    seen = []\n"
    "    for fd in os.listdir('/proc/self/fd'):\n"
    "        try:\n"
    "            seen.append(os.readlink('/proc/self/fd/' + fd))\n"
    "        except OSError:\n"
    "            pass\n"
    "    return seen\n"
)


def test_one_sealed_compiled_harness_per_interpreter():
    interpreter = detect_isolation("auto").interpreter
    made = compiled_harness(interpreter)
    assert made is not None
    fd, size = made
    assert compiled_harness(interpreter) == made  # made once
    assert os.fstat(fd).st_size == size > 10_000
    with pytest.raises(PermissionError):
        os.pwrite(fd, b"x", 0)  # sealed: no child, and no thread of the app, can change it


def test_the_command_line_carries_the_boot_not_the_source():
    launch = detect_isolation("rlimits").launch(0)
    harness = compiled_harness(launch.interpreter)
    assert harness is not None
    argv, _ = build_argv(launch, 5, -1, "/tmp", harness)
    assert harness_source() not in argv and sum(map(len, argv)) < 1000
    assert argv[-4:-1] == [str(harness[0]), "5", "-1"]  # the boot's fd, then the harness's own arguments


def test_the_program_never_sees_the_compiled_harness(sb):
    r = sb.run_tests_sync(FDS, ["assert f(1) == []"])
    outcome = r.results[0]
    assert outcome.status == "fail" and outcome.actual, outcome
    assert "pipe:" in outcome.actual or "/dev/null" in outcome.actual, outcome.actual  # the listing works
    assert "qflow-harness" not in outcome.actual, outcome.actual


def test_a_child_without_a_compiled_harness_compiles_the_source(monkeypatch):
    asked: list[str] = []

    def none_compiled(interpreter: str) -> None:
        asked.append(interpreter)

    monkeypatch.setattr(spawn, "compiled_harness", none_compiled)
    # Fresh children only: a zygote's fork or a warm child would not start here.
    monkeypatch.setattr(zygote, "_enabled", False)
    warm_pool().clear()
    r = make("auto").run_tests_sync("def f(x):\n    return x + 1\n", ["assert f(1) == 2", "assert f(2) == 2"])
    assert [t.status for t in r.results] == ["pass", "fail"]
    assert asked, "the child was not started through spawn.start_fresh"


@pytest.mark.parametrize("level", LEVELS)
def test_the_child_starts_without_modules_it_does_not_need(level):
    # json, re, ast, traceback and base64 cost a child's start about 12 ms of
    # CPU time (a third of it), and every program pays for its own child.
    program = (
        "import sys\n"
        "def f():\n"
        "    return sorted(m for m in ('json', 're', 'ast', 'traceback', 'base64') if m in sys.modules)\n"
    )
    # The harness's own imports: a zygote's forks find `re` loaded by default
    # (loaded once in the zygote, costing a fork nothing: FORKS_FIND_LOADED),
    # so this kind of child preloads nothing, fork or fresh.
    r = make(level, preload=()).run_tests_sync(program, ["assert f() == []"])
    assert r.results[0].status == "pass", r.to_dict()
