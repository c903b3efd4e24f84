"""A program's own time, measured from the trusted side (``sandbox.clock``):
what it counts, what it never believes, and the wall clock as a safety cap."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from sbhelpers import make

from qflow_tui.core.sandbox import watchdog
from qflow_tui.core.sandbox.clock import ProgramClock, Sample, own_time, thread_times, wall_cap


def sample(at: float, wait: float = 0.0, cpu: float = 0.0, single: bool = True, reaped: float = 0.0, run: float = 0.0):
    return Sample(at, wait, cpu, single, reaped, run)


def test_own_time_is_the_wall_time_less_the_waits_that_were_not_the_programs():
    start, end = sample(0.0, wait=1.0, run=0.1), sample(3.0, wait=2.5, run=0.4)
    # 3 s on the app's clock, 1.5 s of them waiting for a CPU, 0.2 s the relay's.
    assert own_time(start, end, 3.0, 0.2) == pytest.approx(1.3)
    # Never less than its thread's CPU time (a relay that overlapped its work).
    assert own_time(start, end, 3.0, 2.9) == pytest.approx(0.3)
    # Not one task (a thread, a child it waited for): its wall time, as the
    # references charge it, and at least its CPU time in clock ticks.
    many = sample(3.0, wait=2.5, cpu=0.9, single=False)
    assert own_time(start, many, 3.0, 0.2) == pytest.approx(3.0)
    assert own_time(sample(0.0), sample(3.0, cpu=5.0, single=False), 3.0, 0.0) == pytest.approx(5.0)
    reaped = sample(3.0, wait=2.5, cpu=0.9, reaped=0.5)
    assert own_time(start, reaped, 3.0, 0.2) == pytest.approx(3.0)
    # No figures from the kernel: the app's clock.
    assert own_time(None, end, 3.0, 0.2) == 3.0


def test_the_wall_clock_cap():
    assert wall_cap(3.0) == 12.0
    assert wall_cap(0.25) == 2.25


def test_the_kernel_sees_one_task_or_more():
    # A process that is one thread, then one that started a second: the
    # delays a busy machine made are subtracted only for the first.
    code = (
        "import sys, threading, time\n"
        "if sys.argv[1] == 'thread':\n"
        "    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
        "print('ready', flush=True)\n"
        "sys.stdin.read()\n"
    )
    for kind, single in (("one", True), ("thread", False)):
        proc = subprocess.Popen([sys.executable, "-c", code, kind], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
            clock = ProgramClock(proc.pid)
            taken = clock.sample()
            assert taken is not None and taken.single is single, (kind, taken)
            clock.close()
        finally:
            proc.kill()
            proc.wait()
    mine = thread_times()
    assert mine is not None and mine.cpu > 0


def test_each_answer_carries_the_programs_own_time_never_its_word():
    sb = make("auto", timeout=5.0)
    program = "import time\ndef f(x):\n    time.sleep(x)\n    return x\n"
    report = sb.run_tests_sync(program, ["assert f(0.3) == 0.3", "assert f(0) == 0"])
    assert [r.status for r in report.results] == ["pass", "pass"], report.to_dict()
    slept, quick = (r.duration for r in report.results)
    # Sleeping is the program's own time (less the moment a busy machine kept
    # it waiting for a CPU once it woke).
    assert 0.2 <= slept < 2.0 and quick < 0.2, (slept, quick)


def test_a_call_the_machine_is_too_busy_to_judge_is_stopped_by_the_wall_clock(monkeypatch):
    # As if the program never got a CPU: its own time stays at nothing, and
    # the wall-clock cap (four times its limit, at least 2 s more) ends it,
    # saying why.
    monkeypatch.setattr(watchdog, "own_time", lambda *args: 0.0)
    sb = make("auto", timeout=0.5)
    program = (
        "import signal\n"
        "for sig in (signal.SIGALRM, signal.SIGPROF):\n"
        "    signal.signal(sig, signal.SIG_IGN)  # its own alarms, which would stop it first\n"
        "def f():\n    while True:\n        pass\n"
    )
    report = sb.run_tests_sync(program, ["assert f() == 1"])
    (result,) = report.results
    assert result.status == "timeout" and "too busy to judge it" in (result.error or ""), result
    assert wall_cap(0.5) <= report.duration < wall_cap(0.5) + 15


@pytest.mark.skipif(not os.path.exists("/proc/thread-self/schedstat"), reason="no per-thread schedstat here")
def test_a_looping_program_is_stopped_at_its_own_limit():
    sb = make("auto", timeout=0.5)
    report = sb.run_tests_sync("def f():\n    while True:\n        pass\n", ["assert f() == 1"])
    (result,) = report.results
    assert result.status == "timeout" and "too busy" not in (result.error or ""), result
