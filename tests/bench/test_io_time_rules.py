"""The time rules of stdin/stdout benches (issue 51): CodeContests's tester
charges a test's CPU time (RLIMIT_CPU at the limit's whole seconds, at least
1) with the wall clock only as a guard at 30 times the limit, so its tests
are charged so; APPS's harness times each test on the wall clock (4 s), so
its tests are charged the program's own time (the wall clock on an idle
machine)."""

from __future__ import annotations

import asyncio
import os

import pytest

from qflow_tui.core.bench.evaluate import CPU_CHARGED, Evaluator, cpu_time_limit
from qflow_tui.core.bench.sources import apps_problem, codecontests_problem

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/schedstat"), reason="no schedstat here")

SLEEPS = "import time\na, b = map(int, input().split())\ntime.sleep(2.2)\nprint(a + b)\n"
BURNS = (
    "import time\na, b = map(int, input().split())\n"
    "end = time.thread_time() + 1.5\nwhile time.thread_time() < end:\n    pass\nprint(a + b)\n"
)
BURNS_IN_A_CHILD = (
    "import os, time\na, b = map(int, input().split())\n"
    "if os.fork() == 0:\n"
    "    end = time.thread_time() + 1.5\n    while time.thread_time() < end:\n        pass\n    os._exit(0)\n"
    "os.wait()\nprint(a + b)\n"
)


def _cc(seconds: int, nanos: int):
    rec = {
        "name": "sum",
        "description": "Print a + b.",
        "public_tests": {"input": ["1 2\n"], "output": ["3\n"]},
        "private_tests": {"input": [], "output": []},
        "generated_tests": {"input": [], "output": []},
        "time_limit": {"seconds": seconds, "nanos": nanos},
        "memory_limit_bytes": 256 << 20,
    }
    return codecontests_problem(rec, 0)


def _judge(bp, program: str):
    return asyncio.run(Evaluator().evaluate(bp, program))


def test_codecontests_limits_whole_seconds_of_cpu_time():
    assert "codecontests" in CPU_CHARGED
    assert [cpu_time_limit(x) for x in (0.5, 1.0, 1.5, 2.0, 2.9)] == [1.0, 1.0, 1.0, 2.0, 2.0]


def test_a_codecontests_test_is_charged_cpu_time_not_sleep():
    # 2.2 s asleep on a 1.5 s problem: its tester (RLIMIT_CPU 1 s, the wall
    # guard 30 s) passes it, and so do we; 1.5 s of CPU time is over its 1 s.
    bp = _cc(1, 500_000_000)
    slept = _judge(bp, SLEEPS)
    assert slept.status == "pass", slept
    assert slept.duration < 0.5, slept  # its CPU time
    for program in (BURNS, BURNS_IN_A_CHILD):
        burned = _judge(bp, program)
        assert burned.status == "timeout", burned


def test_an_apps_test_is_charged_its_own_time_sleep_included():
    # APPS's harness: a wall-clock alarm per test (4 s): 2.2 s asleep counts.
    rec = {
        "problem_id": 1,
        "question": "Print a + b.",
        "input_output": '{"inputs": ["1 2\\n"], "outputs": ["3\\n"]}',
        "difficulty": "introductory",
    }
    bp = apps_problem(rec, 0)
    verdict = _judge(bp, SLEEPS)
    assert verdict.status == "pass", verdict
    assert 2.0 <= verdict.duration < 4.0, verdict
