"""The stdin/stdout judge (core/iojudge.py, sandbox/stdio.py): honest
programs of every reading and writing style pass at every isolation level;
wrong, crashing, silent and hostile ones get the right non-pass verdict."""

from __future__ import annotations

import pytest
from sbhelpers import LEVELS, ROOT, make

from qflow_tui.core.iojudge import APPS_PRELUDE, judge_calls_sync, judge_io_sync
from qflow_tui.core.problem import make_io_problem

ADD = [("1 2\n", "3\n"), ("10 -4\n", "6\n"), ("0 0", "0")]

HONEST = {
    "input": "a, b = map(int, input().split())\nprint(a + b)\n",
    "stdin.read": "import sys\nprint(sum(map(int, sys.stdin.read().split())))\n",
    "readline": "import sys\nline = sys.stdin.readline()\nsys.stdout.write(str(sum(map(int, line.split()))) + '\\n')\n",
    "open0": "print(sum(map(int, open(0).read().split())))\n",
    "buffer": "import sys\nsys.stdout.buffer.write(b'%d\\n' % sum(map(int, sys.stdin.buffer.read().split())))\n",
    "os.write": "import os, sys\nos.write(1, b'%d\\n' % sum(map(int, sys.stdin.read().split())))\n",
    "main guard + exit": (
        "import sys\ndef main():\n    print(sum(map(int, input().split())))\n    sys.exit(0)\n"
        "if __name__ == '__main__':\n    main()\n"
    ),
    "thread": (
        "import sys, threading\nsys.setrecursionlimit(10000)\nthreading.stack_size(1 << 26)\n"
        "def main():\n    print(sum(map(int, input().split())))\n"
        "threading.Thread(target=main).start()\n"
    ),
}


@pytest.mark.parametrize("level", LEVELS)
def test_honest_programs_pass_at_every_level(level: str) -> None:
    sb = make(level, timeout=3.0)
    for style, program in HONEST.items():
        report = judge_io_sync(sb, program, ADD)
        assert report.passed == 3, (style, report.to_dict())


def test_verdicts_say_why(sb) -> None:
    wrong = judge_io_sync(sb, "print(int(input().split()[0]) * 2)\n", ADD[:2])
    assert [o.status for o in wrong.results] == ["fail", "fail"]
    assert wrong.results[0].actual == "'2\\n'" and wrong.results[0].error == "wrong output"
    silent = judge_io_sync(sb, "def add(a, b):\n    return a + b\n", ADD[:1])
    assert silent.results[0].status == "fail"
    assert "printed nothing" in silent.results[0].error and "never read its input" in silent.results[0].error
    past = judge_io_sync(sb, "a = input()\nb = input()\nprint(a, b)\n", ADD[:1])
    assert past.results[0].status == "error" and "read past the end of its input" in past.results[0].error
    status = judge_io_sync(sb, "import sys\nprint(3)\nsys.exit(2)\n", ADD[:1])
    assert status.results[0].status == "error" and "exited with status 2" in status.results[0].error
    syntax = judge_io_sync(sb, "print(\n", ADD[:2])
    assert [o.status for o in syntax.results] == ["error", "error"] and "SyntaxError" in (syntax.load_error or "")
    slow = judge_io_sync(sb, "while True:\n    pass\n", ADD[:1])
    assert slow.results[0].status == "timeout"


def test_each_test_runs_fresh(sb) -> None:
    # Nothing carries over from one test to the next, not even module state.
    prog = "import math\nmath.seen = getattr(math, 'seen', 0) + 1\nprint(math.seen + 0 * int(input() or 0))\n"
    report = judge_io_sync(sb, prog, [("1\n", "1\n"), ("2\n", "1\n"), ("3\n", "1\n")])
    assert report.passed == 3, report.to_dict()


def test_problem_time_limit(sb) -> None:
    from qflow_tui.core.iojudge import judge_problem_sync

    p = make_io_problem("Sleep.", [("", "done\n")], time_limit=0.3)
    report = judge_problem_sync(sb, "import time\ntime.sleep(2)\nprint('done')\n", p)
    assert report.results[0].status == "timeout"
    assert judge_problem_sync(sb, "print('done')\n", p).passed == 1


def test_apps_call_based(sb) -> None:
    prog = "class Solution:\n    def twoSum(self, nums, target):\n        return (0, 1)\n"
    r = judge_calls_sync(sb, prog, "twoSum", [([[2, 7, 11], 9], [[0, 1]]), ([[1, 2], 5], [[1, 0]])])
    assert [o.status for o in r.results] == ["pass", "fail"]
    plain = judge_calls_sync(
        sb, "def sq(x):\n    return sqrt(x)\n", "sq", [([4], [2.0]), ([9], 3.0)], prelude=APPS_PRELUDE
    )
    assert plain.passed == 2, plain.to_dict()


# Hostile programs: none may pass a test it does not solve. At the strong
# levels only (never rlimits as root: it could signal every process).
STRONG = [lv for lv in LEVELS if lv != "rlimits" or not ROOT][:2]

HOSTILE = {
    # It cannot see the expected output: none is sent to its process.
    "reads the parent's files": "import os\nprint(os.listdir('.'), open('/proc/self/cmdline').read())\n",
    # A forged reply on the result channel is ignored or malformed.
    "forges a reply": (
        "import os\nfor fd in range(3, 20):\n"
        '    try:\n        os.write(fd, b\'{"k": "res", "i": 1, "v": [["3\\\\n", true]]}\\n\')\n'
        "    except OSError:\n        pass\nprint('nope')\n"
    ),
    # It replaces the runner's helpers: only its own output changes.
    "patches the runner": (
        "import sys\nm = sys.modules['solution']\nm.__qf_stdio__ = lambda data: ['3\\n', True]\nprint('nope')\n"
    ),
    "closes stdout": "import sys, os\nos.close(1)\nsys.stdout.close()\n",
    "prints forever": "while True:\n    print('3' * 100000)\n",
    "kills its process": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n",
}


@pytest.mark.parametrize("level", STRONG)
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_programs_never_pass(level: str, name: str) -> None:
    sb = make(level, timeout=1.0)
    report = judge_io_sync(sb, HOSTILE[name], [("1 2\n", "3\n"), ("1 2\n", "3\n")])
    assert report.passed == 0, (name, report.to_dict())


@pytest.mark.parametrize("level", STRONG)
def test_call_based_hostile_values_never_pass(level: str) -> None:
    sb = make(level, timeout=1.0)
    always_equal = "class X:\n    def __eq__(self, other):\n        return True\n\ndef double(x):\n    return X()\n"
    r = judge_calls_sync(sb, always_equal, "double", [([1], [2])])
    assert r.passed == 0 and r.results[0].status in ("fail", "error"), r.to_dict()
    # A value that only looks like the answer (a str subclass) is judged by what it is.
    looks = "class S(str):\n    def __eq__(self, other):\n        return True\n\ndef double(x):\n    return S('no')\n"
    r = judge_calls_sync(sb, looks, "double", [([1], [2])])
    assert r.passed == 0, r.to_dict()


# A program whose verdict depends on its input: a pass, a wrong output, an
# error, a timeout, a read past the input, a silent run.
MIXED = (
    "import sys\n"
    "w = sys.stdin.readline().split()\n"
    "if w[0] == 'loop':\n    while True:\n        pass\n"
    "if w[0] == 'raise':\n    raise ValueError('bad ' + w[1])\n"
    "if w[0] == 'more':\n    input()\n"
    "if w[0] == 'quiet':\n    sys.exit(0)\n"
    "print(int(w[1]) * 2)\n"
)
MIXED_TESTS = [
    (f"{kind} {n}\n", f"{2 * n + (1 if kind == 'wrong' else 0)}\n")
    for n, kind in enumerate(
        ["ok", "wrong", "raise", "ok", "loop", "more", "quiet", "ok", "wrong", "ok", "raise", "ok"]
    )
]


def test_parallel_tests_give_the_verdicts_of_one_at_a_time_in_order(sb) -> None:
    from qflow_tui.core.iojudge import io_parallel

    assert io_parallel(sb) >= 2
    serial = judge_io_sync(sb, MIXED, MIXED_TESTS, parallel=1)
    par = judge_io_sync(sb, MIXED, MIXED_TESTS)
    got = [(r.test, r.status, r.actual, r.error) for r in par.results]
    assert got == [(r.test, r.status, r.actual, r.error) for r in serial.results]
    assert [r.status for r in par.results] == [
        "pass", "fail", "error", "pass", "timeout", "error", "fail", "pass", "fail", "pass", "error", "pass"
    ]  # fmt: skip
    assert "bad 2" in (par.results[2].error or "") and "read past the end" in (par.results[5].error or "")
    # A program that does not load: every test says so, and the report carries the first test's error.
    broken = judge_io_sync(sb, "print(\n", MIXED_TESTS[:6])
    assert [r.status for r in broken.results] == ["error"] * 6 and "SyntaxError" in (broken.load_error or "")


def test_the_tests_of_a_problem_do_run_at_once(sb, monkeypatch) -> None:
    # Two tests meet at a barrier inside the sandbox call: one after another,
    # the first would wait there alone until the barrier gives up.
    import threading

    from qflow_tui.core.sandbox import Sandbox

    barrier = threading.Barrier(2, timeout=120)
    real = Sandbox.call_values_sync

    def meeting(self, *args, **kwargs):
        barrier.wait()
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Sandbox, "call_values_sync", meeting)
    report = judge_io_sync(sb, HONEST["input"], ADD[:2], parallel=2)
    assert report.passed == 2, report.to_dict()


def test_a_test_queued_for_a_slot_is_not_timed_out_unrun(monkeypatch) -> None:
    # A busy sandbox: every run waits for its slot past the whole run's
    # deadline (1 s here). The deadline counts from when the run has its
    # children, so the program still runs, and passes.
    import time

    from qflow_tui.core.sandbox import pool
    from qflow_tui.core.sandbox.isolation import SlotPool

    sb = make("auto", timeout=3.0, run_timeout=1.0)

    def queued(real):
        def wait_then(self, *args, **kwargs):
            end = time.monotonic() + 1.5  # the queue ahead of it: longer than the run's deadline
            while time.monotonic() < end:
                time.sleep(0.05)
            return real(self, *args, **kwargs)

        return wait_then

    monkeypatch.setattr(type(pool.warm_pool()), "take", queued(type(pool.warm_pool()).take))
    monkeypatch.setattr(SlotPool, "acquire", queued(SlotPool.acquire))
    report = judge_io_sync(sb, HONEST["input"], ADD[:2], parallel=2)
    assert [r.status for r in report.results] == ["pass", "pass"], report.to_dict()
