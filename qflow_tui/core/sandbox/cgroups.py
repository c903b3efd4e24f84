"""A memory and pids cgroup for each sandbox child, where the machine offers
one: the bound that counts memory of every kind a run holds (shared memory,
memfd files, tmpfs pages, its forks), which RLIMIT_AS per process does not;
and the count of the CPU time of everything the run ran, ended tasks included
(v2's ``cpu.stat``, v1's ``cpuacct`` hierarchy where it is mounted), which the
program's clock takes as its floor (see ``clock``).

Made under this app process's own cgroup (v2 where its controllers are
delegated there, else v1's ``memory`` and ``pids`` hierarchies; both need
root), one per running child. The child enters it itself, first thing,
through a ``cgroup.procs`` descriptor the app opened (so its forks, orphans
included, stay in it), and closes that descriptor before any untrusted code
runs. When the child is closed every process in the cgroup is killed; the
empty cgroup is then kept for the next child (making and removing one costs
several ms of CPU on some kernels) and removed when the app exits, or at the
next start if the app was killed.
"""

from __future__ import annotations

import atexit
import itertools
import os
import select
import signal
import threading
import time
from dataclasses import dataclass

#: Prefix of every cgroup the sandbox makes: ``qflow-sb-<app pid>-<n>``.
PREFIX = "qflow-sb-"
#: A cgroup that counts more dead, unreaped processes than this is removed
#: rather than kept for the next child.
MAX_UNREAPED = 16


@dataclass(frozen=True)
class CgroupSupport:
    """Where this app process can make cgroups for its children."""

    version: int
    """2, 1, or 0 when there is no usable memory cgroup."""
    memory_dir: str | None = None
    pids_dir: str | None = None
    """v1 only: the pids hierarchy's directory (v2 has one directory for both)."""
    cpu_dir: str | None = None
    """v1 only: the cpuacct hierarchy's directory, whose cgroups count the CPU
    time of every task that was ever in them (v2's ``cpu.stat`` does in each
    cgroup's own directory)."""
    note: str = ""
    """What was found, one line (for ``qflow doctor``)."""


def _mounts() -> list[tuple[str, str, str, str]]:
    """(mount point, root, fstype, super options) of every cgroup mount."""
    found: list[tuple[str, str, str, str]] = []
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                left, _, right = line.partition(" - ")
                fields, rest = left.split(), right.split()
                if len(fields) >= 5 and len(rest) >= 3 and rest[0] in ("cgroup", "cgroup2"):
                    found.append((fields[4].replace("\\040", " "), fields[3], rest[0], rest[2]))
    except OSError:
        pass
    return found


def _own_paths() -> dict[str, str]:
    """This process's cgroup per v1 controller, and ``""`` -> its v2 cgroup."""
    paths: dict[str, str] = {}
    try:
        with open("/proc/self/cgroup", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                _hid, _, rest = line.rstrip("\n").partition(":")
                controllers, _, path = rest.partition(":")
                for c in controllers.split(",") if controllers else [""]:
                    paths[c] = path
    except OSError:
        pass
    return paths


def _dir_for(mount: str, root: str, path: str) -> str:
    rel = os.path.relpath(path, root) if path.startswith(root) else path.lstrip("/")
    return os.path.normpath(os.path.join(mount, "" if rel == "." else rel))


def _usable(directory: str) -> bool:
    """Can this process make (and remove) a child cgroup in ``directory``?"""
    probe = os.path.join(directory, f"{PREFIX}{os.getpid()}-probe")
    try:
        os.mkdir(probe)
    except FileExistsError:
        pass
    except OSError:
        return False
    try:
        os.rmdir(probe)
    except OSError:
        return False
    return True


def _detect() -> CgroupSupport:
    if os.geteuid() != 0:
        return CgroupSupport(0, note="not root: no cgroup of its own for the sandbox")
    mounts = _mounts()
    own = _own_paths()
    for mount, root, fstype, _opts in mounts:
        if fstype != "cgroup2" or "" not in own:
            continue
        directory = _dir_for(mount, root, own[""])
        try:
            with open(os.path.join(directory, "cgroup.subtree_control"), encoding="utf-8") as fh:
                enabled = fh.read().split()
        except OSError:
            continue
        if "memory" in enabled and "pids" in enabled and _usable(directory):
            _sweep_stale(directory)
            return CgroupSupport(2, memory_dir=directory, note=f"cgroup v2 under {directory}")
    dirs: dict[str, str] = {}
    for mount, root, fstype, opts in mounts:
        if fstype != "cgroup":
            continue
        for controller in ("memory", "pids", "cpuacct"):
            if controller in opts.split(",") and controller in own:
                dirs[controller] = _dir_for(mount, root, own[controller])
    if "memory" in dirs and _usable(dirs["memory"]):
        pids = dirs.get("pids") if "pids" in dirs and _usable(dirs["pids"]) else None
        cpu = dirs.get("cpuacct") if "cpuacct" in dirs and _usable(dirs["cpuacct"]) else None
        if cpu is not None and cpu in (dirs["memory"], pids):
            cpu = None  # one hierarchy with both: its directory is already made
        for d in (dirs["memory"], pids, cpu):
            if d:
                _sweep_stale(d)
        where = dirs["memory"] + (f" and {pids}" if pids else " (no pids controller)")
        where += f" and {cpu}" if cpu else (" (no cpuacct controller)" if "cpuacct" not in dirs else "")
        return CgroupSupport(1, memory_dir=dirs["memory"], pids_dir=pids, cpu_dir=cpu, note=f"cgroup v1 under {where}")
    return CgroupSupport(0, note="no memory cgroup this process may create children in")


def _sweep_stale(directory: str) -> None:
    """Remove what an app process that ended left behind (only empty ones:
    rmdir refuses a cgroup that still has processes)."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if not name.startswith(PREFIX):
            continue
        pid = name[len(PREFIX) :].partition("-")[0]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            try:
                os.rmdir(os.path.join(directory, name))
            except OSError:
                pass


_support: CgroupSupport | None = None
_lock = threading.Lock()
_counter = itertools.count(1)
_pool: dict[tuple[int, int], list[RunCgroup]] = {}
"""Cgroups with no process in them, ready for the next child, by their
(memory, pids) limits: a cgroup keeps the page cache its children read
charged to it, so lowering its limit could fail; one is made per limit."""
_made: list[RunCgroup] = []
"""Every cgroup this process made and has not removed."""


def support() -> CgroupSupport:
    """Detected once per process."""
    global _support
    with _lock:
        if _support is None:
            _support = _detect()
        return _support


def _write(path: str, value: str) -> bool:
    try:
        with open(path, "w", encoding="ascii") as fh:
            fh.write(value)
        return True
    except OSError:
        return False


def _read(path: str) -> str:
    try:
        with open(path, encoding="ascii") as fh:
            return fh.read()
    except OSError:
        return ""


class RunCgroup:
    """One child's cgroup: ``memory_bytes`` for all its processes together
    (RAM and swap), at most ``pids`` processes. ``acquire`` returns None where
    the machine offers none; nothing here raises."""

    def __init__(self, dirs: list[str], version: int, pids_dir: str | None = None, cpu_dir: str | None = None) -> None:
        self.dirs = dirs
        self.memory_dir = dirs[0]
        self.version = version
        self.pids_dir = pids_dir if version == 1 else dirs[0]
        """Where ``pids.max`` is (None: v1 without the pids controller)."""
        self.cpu_dir = cpu_dir if version == 1 else dirs[0]
        """Where its CPU time is counted (None: v1 without cpuacct)."""
        self._cpu_fd = -1
        self.memory_bytes = 0
        self.pids = 0
        self._fds: list[int] = []
        self._ooms = 0
        self.key = (0, 0)
        """The (memory, pids) limits it was asked for: its place in the pool."""

    @classmethod
    def acquire(cls, memory_bytes: int, pids: int) -> RunCgroup | None:
        """An empty cgroup (from the pool, or made) with these limits, or None."""
        sup = support()
        if sup.version == 0 or sup.memory_dir is None:
            return None
        with _lock:
            idle = _pool.get((memory_bytes, pids))
            cg = idle.pop() if idle else None
        if cg is None:
            cg = cls._make(sup)
            if cg is None:
                return None
        # Processes of earlier children that died unreaped (orphans, where
        # nothing reaps them: a container's init) still count against
        # pids.max; the child gets its own allowance on top of them.
        dead = cg._pids_current()
        if not cg._limit(memory_bytes, pids + dead) or not cg.entry_fds():
            cg._remove()
            return None
        cg.key = (memory_bytes, pids)
        cg._ooms = cg._oom_kills()
        return cg

    @classmethod
    def _make(cls, sup: CgroupSupport) -> RunCgroup | None:
        assert sup.memory_dir is not None
        name = f"{PREFIX}{os.getpid()}-{next(_counter)}"
        made: list[str] = []
        parents = [sup.memory_dir] + [d for d in (sup.pids_dir, sup.cpu_dir) if d]
        for parent in parents:
            path = os.path.join(parent, name)
            try:
                os.mkdir(path)
            except OSError:
                for d in made:
                    _rmdir(d)
                return None
            made.append(path)
        pids_dir = os.path.join(sup.pids_dir, name) if sup.pids_dir else None
        cpu_dir = os.path.join(sup.cpu_dir, name) if sup.cpu_dir else None
        cg = cls(made, sup.version, pids_dir, cpu_dir)
        with _lock:
            _made.append(cg)
        return cg

    def _limit(self, memory_bytes: int, pids: int) -> bool:
        """Set the limits (only those that changed since the last child)."""
        ok = True
        d = self.memory_dir
        if memory_bytes != self.memory_bytes:
            mem = str(memory_bytes)
            if self.version == 2:
                ok = _write(f"{d}/memory.max", mem)
                _write(f"{d}/memory.swap.max", "0")  # absent without swap accounting
            else:
                # memsw (RAM + swap) may never be below the RAM limit: raise it
                # first, lower it last (a new cgroup's limits are unlimited).
                has_memsw = os.path.exists(f"{d}/memory.memsw.limit_in_bytes")
                order = ["memory.limit_in_bytes"] + (["memory.memsw.limit_in_bytes"] if has_memsw else [])
                if self.memory_bytes and memory_bytes > self.memory_bytes:
                    order.reverse()
                ok = all(_write(f"{d}/{name}", mem) for name in order)
            self.memory_bytes = memory_bytes if ok else 0
        if ok and pids != self.pids:
            pids_dir = self._pids_dir()
            ok = pids_dir is None or _write(f"{pids_dir}/pids.max", str(pids))
            self.pids = pids if ok else 0
        return ok

    def entry_fds(self) -> list[int]:
        """Descriptors of each ``cgroup.procs`` (close-on-exec, kept open for
        the cgroup's life), for the child to write ``0`` into, joining it."""
        if not self._fds:
            for d in self.dirs:
                try:
                    self._fds.append(os.open(f"{d}/cgroup.procs", os.O_WRONLY | os.O_CLOEXEC))
                except OSError:
                    self._close_fds()
                    return []
        return list(self._fds)

    def _close_fds(self) -> None:
        for fd in self._fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self._fds = []

    def procs(self) -> set[int]:
        """Every process in the cgroup now (forks and orphans included)."""
        found: set[int] = set()
        for d in self.dirs:
            found |= {int(x) for x in _read(f"{d}/cgroup.procs").split() if x.isdigit()}
        return found

    def tasks(self) -> int:
        """How many threads of any process are in it now."""
        found = self.thread_ids()
        return len(found) if found is not None else 0

    def thread_ids(self) -> list[int] | None:
        """The ids of the threads of every process in it now (see ``clock``)."""
        # Opened afresh each time: v1 keeps the list an open file read first
        # (up to a second), so reading it again from the start shows no new task.
        name = "cgroup.threads" if self.version == 2 else "tasks"
        fd = _open_read(f"{self.memory_dir}/{name}")
        try:
            text = pread_all(fd)
        finally:
            if fd >= 0:
                os.close(fd)
        if text is None:
            return None
        try:
            return [int(x) for x in text.split()]
        except ValueError:
            return None

    def cpu_seconds(self) -> float | None:
        """CPU seconds of every task that was ever in it (ended ones
        included), so far; None where it is not counted (see ``clock``)."""
        if self.cpu_dir is None:
            return None
        if self._cpu_fd < 0:
            name = "cpu.stat" if self.version == 2 else "cpuacct.usage"
            self._cpu_fd = _open_read(f"{self.cpu_dir}/{name}")
        text = pread_all(self._cpu_fd)
        if not text:
            return None
        try:
            if self.version == 1:
                return int(text) / 1e9
            for line in text.splitlines():
                key, _, value = line.partition(b" ")
                if key == b"usage_usec":
                    return int(value) / 1e6
        except ValueError:
            return None
        return None

    def _oom_kills(self) -> int:
        # v2 counts kills in memory.events, v1 in memory.oom_control (kernels
        # since 4.13); older v1 only counts the times the limit was hit.
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        text = _read(f"{self.memory_dir}/{name}")
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
        failcnt = _read(f"{self.memory_dir}/memory.failcnt").strip()
        return int(failcnt) if failcnt.isdigit() else 0

    def out_of_memory(self) -> bool:
        """Did the kernel kill a process of this child at the memory limit?"""
        return self._oom_kills() > self._ooms

    def release(self, limit: float = 2.0) -> None:
        """Kill every process in it, waiting until they have ended (at most
        ``limit`` seconds); then it goes back to the pool, or is removed if
        one would not die. Never raises."""
        if self._kill_all(limit) and self._pids_current() <= MAX_UNREAPED:
            with _lock:
                _pool.setdefault(self.key, []).append(self)
        else:
            self._remove()

    def _pids_dir(self) -> str | None:
        return self.pids_dir

    @property
    def holds_pids(self) -> bool:
        """Whether it bounds its processes (v1 without the pids controller does not)."""
        return self._pids_dir() is not None and self.pids > 0

    def _pids_current(self) -> int:
        pids_dir = self._pids_dir()
        if pids_dir is None:
            return 0
        text = _read(f"{pids_dir}/pids.current").strip()
        return int(text) if text.isdigit() else 1

    def _kill_all(self, limit: float) -> bool:
        """Kill every process in it; True once none is left (within ``limit`` s)."""
        until = time.monotonic() + limit
        while True:
            pids = self.procs()
            if not pids:
                return True
            if time.monotonic() >= until:
                return False
            fds = []
            for pid in pids:
                try:
                    fds.append(os.pidfd_open(pid))
                except OSError:
                    continue
            for fd in fds:
                try:
                    signal.pidfd_send_signal(fd, signal.SIGKILL)
                except OSError:
                    pass
            _wait_all(fds, until)

    def _remove(self) -> None:
        self._close_fds()
        if self._cpu_fd >= 0:
            try:
                os.close(self._cpu_fd)
            except OSError:
                pass
        self._cpu_fd = -1
        for d in self.dirs:
            _rmdir(d)
        with _lock:
            if self in _made:
                _made.remove(self)
            for idle in _pool.values():
                if self in idle:
                    idle.remove(self)


def _open_read(path: str) -> int:
    try:
        return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return -1


def pread_all(fd: int) -> bytes | None:
    """A kernel file's whole text (a cgroup's, or ``/proc``'s), read again
    from its start: the kernel writes it afresh for a read at 0."""
    if fd < 0:
        return None
    chunks = []
    offset = 0
    try:
        while True:
            chunk = os.pread(fd, 1 << 16, offset)
            if not chunk:
                break
            chunks.append(chunk)
            offset += len(chunk)
    except OSError:
        return None
    return b"".join(chunks)


def _wait_all(fds: list[int], until: float) -> None:
    """Wait (on pidfds, not by polling) until each process has ended or
    ``until`` has passed; close the fds."""
    try:
        poller = select.poll()
        for fd in fds:
            poller.register(fd, select.POLLIN)
        pending = len(fds)
        while pending and time.monotonic() < until:
            for fd, _ev in poller.poll(max(0.0, until - time.monotonic()) * 1000):
                poller.unregister(fd)
                pending -= 1
    finally:
        for fd in fds:
            os.close(fd)


def _rmdir(path: str, tries: int = 100) -> bool:
    for _ in range(tries):
        try:
            os.rmdir(path)
            return True
        except FileNotFoundError:
            return True
        except OSError:
            time.sleep(0.001)  # a dead process leaves its cgroup a moment after it ends
    return False


def shutdown() -> None:
    """Remove every cgroup this process made (at exit; a process still in one
    is killed first). Never raises."""
    with _lock:
        made = list(_made)
    for cg in made:
        cg._kill_all(1.0)
        cg._remove()


atexit.register(shutdown)
