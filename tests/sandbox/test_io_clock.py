"""The I/O judge's clock (issue 51): a test is charged its own time, never
its neighbours' (the judge runs several at once); a program whose main thread
waits on a worker (``threading.Thread(target=main)``) is charged the worker's
work; and a dataset whose tester charges CPU time (CodeContests) is charged
so, with its wall-clock guard."""

from __future__ import annotations

import os

import pytest

from qflow_tui.core.iojudge import judge_io_sync
from qflow_tui.core.sandbox import Sandbox, SandboxConfig

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/schedstat"), reason="no schedstat here")

#: The common shape of a competitive-programming answer in Python: the work in
#: a thread with a large stack. It prints its answer, then (for the test, never
#: read by the judge) the CPU time its worker used.
THREADED = r"""
import sys, threading, time
def main():
    n = int(sys.stdin.readline())
    total = 0
    for i in range(n):
        total += i % 7
    print(total)
    print(time.thread_time())
threading.stack_size(1 << 26)
sys.setrecursionlimit(1 << 20)
threading.Thread(target=main).start()
"""


def _first_token(printed: str, want: str) -> bool:
    return printed.split()[:1] == want.split()


def _tests(n: int, count: int) -> list[tuple[str, str]]:
    return [(f"{n + k}\n", f"{sum(i % 7 for i in range(n + k))}\n") for k in range(count)]


def _worker_cpu(actual: str | None) -> float:
    import ast

    return float(ast.literal_eval(actual or "''").split()[1])


def test_a_threaded_program_is_charged_its_workers_time_not_its_neighbours():
    # Four at once on a 2-core machine: each worker waits for a CPU about half
    # its wall time at rest (far more on a busy machine). Charged its wall
    # time, each was charged twice its work or more; charged its own, its
    # work and the few moments its waits could not be read.
    sb = Sandbox(SandboxConfig(timeout=2.0))
    report = judge_io_sync(sb, THREADED, _tests(12_000_000, 4), _first_token, parallel=4)
    assert [r.status for r in report.results] == ["pass"] * 4, report.to_dict()
    for r in report.results:
        cpu = _worker_cpu(r.actual)
        assert cpu - 0.02 <= r.duration <= cpu + 0.3, (cpu, r)


def test_a_threaded_program_passes_at_a_one_second_limit_with_four_tests_at_once():
    sb = Sandbox(SandboxConfig(timeout=1.0))
    report = judge_io_sync(sb, THREADED, _tests(4_000_000, 8), _first_token, parallel=4)
    assert [r.status for r in report.results] == ["pass"] * 8, report.to_dict()
