"""A program's own time, measured from the trusted side (``sandbox.clock``):
what it counts, what it never believes, and the wall clock as a safety cap."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time

import pytest
from sbhelpers import make

from qflow_tui.core.sandbox import watchdog
from qflow_tui.core.sandbox.clock import CPU_WALL_FACTOR, ProgramClock, Sample, own_time, thread_times, wall_cap


def sample(at: float, wait: float = 0.0, cpu: float = 0.0, tasks: int = 1):
    return Sample(at, wait, cpu, tasks)


def test_own_time_is_the_wall_time_less_the_waits_that_were_not_the_programs():
    start, end = sample(0.0, wait=1.0, cpu=0.1), sample(3.0, wait=2.5, cpu=0.4)
    # 3 s on the app's clock, 1.5 s of them waiting for a CPU, 0.2 s the relay's.
    assert own_time(start, end, 3.0, 0.2) == pytest.approx(1.3)
    # Never less than the CPU time of everything it ran (a relay that overlapped its work).
    assert own_time(start, end, 3.0, 2.9) == pytest.approx(0.3)
    # Its tasks' waits summed, but never below the work they did, wherever it
    # ran: a thread that yields while another works hides nothing.
    forged = sample(3.0, wait=3.9, cpu=2.4, tasks=1)
    assert own_time(start, forged, 3.0, 0.0) == pytest.approx(2.3)
    # Work on two CPUs at once: its CPU time, more than its wall time.
    assert own_time(sample(0.0), sample(1.0, cpu=2.0, tasks=3), 1.0, 0.0) == pytest.approx(2.0)
    # No figures from the kernel: the app's clock.
    assert own_time(None, end, 3.0, 0.2) == 3.0
    # Charged by CPU time (CodeContests): the CPU time alone, waits and sleeps aside.
    assert own_time(start, end, 3.0, 0.2, "cpu") == pytest.approx(0.3)


def test_the_wall_clock_cap():
    assert wall_cap(3.0) == 60.0
    assert wall_cap(0.05) == 2.05
    assert wall_cap(2.0, CPU_WALL_FACTOR) == 60.0  # CodeContests's guard


def test_the_kernel_counts_every_task_and_the_work_of_those_that_ended():
    # Without a cgroup the clock reads the process tree: a thread's waits are
    # summed while it lives, and the CPU time of a child that ended (reaped
    # by its parent) stays counted.
    code = (
        "import os, sys, threading, time\n"
        "threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
        "print('ready', flush=True)\n"
        "sys.stdin.readline()\n"
        "if os.fork() == 0:\n"
        "    end = time.process_time() + 0.3\n"
        "    while time.process_time() < end:\n"
        "        pass\n"
        "    os._exit(0)\n"
        "os.wait()\n"
        "print('done', flush=True)\n"
        "sys.stdin.read()\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdin is not None
        assert proc.stdout.readline() == b"ready\n"
        clock = ProgramClock(proc.pid)
        before = clock.sample()
        assert before is not None and before.tasks == 2, before
        proc.stdin.write(b"go\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == b"done\n"
        after = clock.sample()
        assert after is not None and after.cpu - before.cpu >= 0.28, (before, after)
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
    # the wall-clock cap (20 times its limit, at least 2 s more) ends it,
    # saying why.
    monkeypatch.setattr(watchdog, "own_time", lambda *args: 0.0)
    sb = make("auto", timeout=0.1)
    program = (
        "import signal\n"
        "for sig in (signal.SIGALRM, signal.SIGPROF):\n"
        "    signal.signal(sig, signal.SIG_IGN)  # its own alarms, which would stop it first\n"
        "def f():\n    while True:\n        pass\n"
    )
    report = sb.run_tests_sync(program, ["assert f() == 1"])
    (result,) = report.results
    assert result.status == "timeout" and "too busy to judge it" in (result.error or ""), result
    assert wall_cap(0.1) <= report.duration < wall_cap(0.1) + 15


@pytest.mark.skipif(not os.path.exists("/proc/thread-self/schedstat"), reason="no per-thread schedstat here")
def test_a_looping_program_is_stopped_at_its_own_limit():
    sb = make("auto", timeout=0.5)
    report = sb.run_tests_sync("def f():\n    while True:\n        pass\n", ["assert f() == 1"])
    (result,) = report.results
    assert result.status == "timeout" and "too busy" not in (result.error or ""), result


#: Run in a process of its own, pinned to one CPU at the lowest priority (its
#: sandbox's children inherit both): the app's relay thread, which wakes every
#: ``LOOK_EVERY`` to look at the clock, then waits a long time for the CPU,
#: and the program, a long sleeper when it wakes, gets it first.
_STARVED = r"""
import os, sys
os.sched_setaffinity(0, {int(sys.argv[1])})
os.nice(19)
from qflow_tui.core.sandbox import Sandbox, SandboxConfig
sb = Sandbox(SandboxConfig(timeout=5.0, isolation="auto"))
program = "import time\ndef f(x):\n    time.sleep(x)\n    return x\n"
sb.run_tests_sync(program, ["assert f(0) == 0"])  # booted before the CPU is taken
print("ready", flush=True)
sys.stdin.readline()
for _ in range(int(sys.argv[2])):
    report = sb.run_tests_sync(program, ["assert f(0.3) == 0.3", "assert f(0.2) == 0.2"])
    print(" ".join(f"{r.status}:{r.duration:.3f}" for r in report.results), flush=True)
"""


#: How long the starved app is given for its rounds (those that came are judged).
ROUNDS_WITHIN = 60.0


def _lines_until(stream, count: int, seconds: float) -> list[list[str]]:
    """Up to ``count`` lines of ``stream``, split, as they come within ``seconds``."""
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(stream.readline()) for _ in range(count)], daemon=True).start()
    got: list[list[str]] = []
    end = time.monotonic() + seconds
    while len(got) < count:
        try:
            got.append(lines.get(timeout=max(0.0, end - time.monotonic())).split())
        except queue.Empty:
            break
    return got


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity here")
def test_a_relay_kept_from_the_cpu_never_takes_the_programs_time():
    # The relay's wake-up for a look, then its wait for the CPU while the
    # program slept and answered, was counted as the transport's: a 0.3 s
    # sleep was charged 0.02-0.18 s, a 0.2 s one 0.02-0.15 s (in every run
    # here; once in a CI run on a busy machine).
    cpu = min(os.sched_getaffinity(0))
    hog = f"import os, sys\nos.sched_setaffinity(0, {{{cpu}}})\nsys.stdin.readline()\nwhile True:\n    pass\n"
    app = subprocess.Popen(
        [sys.executable, "-c", _STARVED, str(cpu), "5"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    hogs = [subprocess.Popen([sys.executable, "-c", hog], stdin=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        assert app.stdout is not None and app.stdin is not None
        ready = _lines_until(app.stdout, 1, ROUNDS_WITHIN)
        if ready:
            assert ready == [["ready"]], ready
        for h in hogs:
            assert h.stdin is not None
            h.stdin.write("go\n")
            h.stdin.flush()
        app.stdin.write("go\n")
        app.stdin.flush()
        rounds = _lines_until(app.stdout, 5, ROUNDS_WITHIN) if ready else []
    finally:
        for p in (*hogs, app):
            p.kill()
            p.wait()
    if not rounds:
        # At nice 19 beside its own hogs, a machine busy with other work
        # leaves the app next to no CPU: what came is judged, nothing is waited for.
        pytest.skip(f"no round in {ROUNDS_WITHIN:.0f}s: the machine is too busy for the starved app")
    for line in rounds:
        assert len(line) == 2, rounds
        (slept_status, slept), (second_status, second) = (part.split(":") for part in line)
        # Each call is charged its own sleep at least (a busy relay may add
        # to it, never take from it), and the wall-clock cap never ended it.
        # Answers the relay reads in one cycle share it (``Child._stamp``):
        # when it slept through both, the first is charged both sleeps and
        # the second nothing (a CI run on a busy machine: 0.517 and 0.000).
        assert slept_status == second_status == "pass", rounds
        first, then = float(slept), float(second)
        assert 0.29 <= first < 2.0 and then < 2.0, rounds
        assert then >= 0.19 or first >= 0.49, rounds


def _relay_after(looks, unsure, now):
    """What ``Child._settle`` takes off as the transport's, and where the next call starts."""
    child = watchdog.Child.__new__(watchdog.Child)
    child._looks, child._relay, child._came = looks, 0.0, 0.0
    child._settle(now, *unsure)
    return round(child._relay, 3), round(child._came, 3)


def test_a_wait_its_own_timer_began_is_the_programs_unless_it_was_at_work():
    # The relay's timer woke it at 1.00 and it got the CPU at 1.30 with the answer there.
    unsure = (1.00, 1.30)
    # At work all through the last look (running or waiting for a CPU: 0.02 s
    # of 0.02 s), and 0.05 s of work since: it answered at 0.98 + 0.05 = 1.03.
    worked = [(0.96, 5.00), (0.98, 5.02)]
    assert _relay_after(worked, unsure, sample(1.30, wait=5.00, cpu=0.07)) == (0.27, 1.03)
    # Paused (asleep half of the last look): it may have answered at 1.30.
    paused = [(0.96, 5.00), (0.98, 5.01)]
    assert _relay_after(paused, unsure, sample(1.30, wait=5.00, cpu=0.06)) == (0.0, 0.0)
    # Work since that ends past the wake-up's moment is taken as it is, never
    # later than the relay got the CPU.
    assert _relay_after(worked, unsure, sample(1.30, wait=5.20, cpu=0.15)) == (0.0, 1.3)
    # Never before the timer woke it.
    assert _relay_after(worked, unsure, sample(1.30, wait=5.00, cpu=0.02)) == (0.3, 1.0)
