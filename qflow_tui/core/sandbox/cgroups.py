"""A memory and pids cgroup for each sandbox child, where the machine offers
one: the bound that counts memory of every kind a run holds (shared memory,
memfd files, tmpfs pages, its forks), which RLIMIT_AS per process does not.

Made under this app process's own cgroup (v2 where its controllers are
delegated there, else v1's ``memory`` and ``pids`` hierarchies; both need
root), one per child, and removed when the child is closed, after every
process in it is killed. The child enters it itself, first thing, through a
``cgroup.procs`` descriptor the app opened (so its forks, orphans included,
stay in it), and closes that descriptor before any untrusted code runs.
"""

from __future__ import annotations

import itertools
import os
import select
import signal
import threading
import time
from dataclasses import dataclass

#: Prefix of every cgroup the sandbox makes: ``qflow-sb-<app pid>-<n>``.
PREFIX = "qflow-sb-"


@dataclass(frozen=True)
class CgroupSupport:
    """Where this app process can make cgroups for its children."""

    version: int
    """2, 1, or 0 when there is no usable memory cgroup."""
    memory_dir: str | None = None
    pids_dir: str | None = None
    """v1 only: the pids hierarchy's directory (v2 has one directory for both)."""
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
        for controller in ("memory", "pids"):
            if controller in opts.split(",") and controller in own:
                dirs[controller] = _dir_for(mount, root, own[controller])
    if "memory" in dirs and _usable(dirs["memory"]):
        pids = dirs.get("pids") if "pids" in dirs and _usable(dirs["pids"]) else None
        for d in (dirs["memory"], pids):
            if d:
                _sweep_stale(d)
        where = dirs["memory"] + (f" and {pids}" if pids else " (no pids controller)")
        return CgroupSupport(1, memory_dir=dirs["memory"], pids_dir=pids, note=f"cgroup v1 under {where}")
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
#: Cgroups that could not be removed yet (a process in them was still dying).
_leftover: list[str] = []


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


class RunCgroup:
    """One child's cgroup: ``memory_bytes`` for all its processes together
    (RAM and swap), at most ``pids`` processes. ``make`` returns None where
    the machine offers none; nothing here raises."""

    def __init__(self, dirs: list[str], memory_dir: str, version: int, memory_bytes: int) -> None:
        self.dirs = dirs
        self.memory_dir = memory_dir
        self.version = version
        self.memory_bytes = memory_bytes
        self._fds: list[int] = []

    @classmethod
    def make(cls, memory_bytes: int, pids: int) -> RunCgroup | None:
        sup = support()
        if sup.version == 0 or sup.memory_dir is None:
            return None
        with _lock:
            _retry_leftovers()
        name = f"{PREFIX}{os.getpid()}-{next(_counter)}"
        made: list[str] = []
        parents = [sup.memory_dir] + ([sup.pids_dir] if sup.pids_dir else [])
        for parent in parents:
            path = os.path.join(parent, name)
            try:
                os.mkdir(path)
            except OSError:
                for d in made:
                    _rmdir(d)
                return None
            made.append(path)
        cg = cls(made, made[0], sup.version, memory_bytes)
        mem = str(memory_bytes)
        if sup.version == 2:
            ok = _write(f"{made[0]}/memory.max", mem) and _write(f"{made[0]}/pids.max", str(pids))
            _write(f"{made[0]}/memory.swap.max", "0")  # absent without swap accounting
        else:
            ok = _write(f"{made[0]}/memory.limit_in_bytes", mem)
            if os.path.exists(f"{made[0]}/memory.memsw.limit_in_bytes"):
                ok = ok and _write(f"{made[0]}/memory.memsw.limit_in_bytes", mem)
            if len(made) > 1:
                ok = ok and _write(f"{made[1]}/pids.max", str(pids))
        if not ok:
            cg.destroy()
            return None
        return cg

    def entry_fds(self) -> list[int]:
        """Descriptors of each ``cgroup.procs``, for the child to write ``0``
        into (joining it); the app closes its copies with ``close_fds``."""
        if not self._fds:
            for d in self.dirs:
                try:
                    self._fds.append(os.open(f"{d}/cgroup.procs", os.O_WRONLY | os.O_CLOEXEC))
                except OSError:
                    self.close_fds()
                    return []
        return list(self._fds)

    def close_fds(self) -> None:
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
            try:
                with open(f"{d}/cgroup.procs", encoding="ascii") as fh:
                    found |= {int(x) for x in fh.read().split() if x.isdigit()}
            except OSError:
                pass
        return found

    def out_of_memory(self) -> bool:
        """Did the kernel refuse or reclaim memory at the limit (an OOM kill)?"""
        # v2 counts kills in memory.events; v1 in memory.oom_control (newer
        # kernels) and the times the limit was hit in memory.failcnt.
        files = ["memory.events"] if self.version == 2 else ["memory.oom_control", "memory.failcnt"]
        for name in files:
            try:
                with open(f"{self.memory_dir}/{name}", encoding="ascii") as fh:
                    text = fh.read()
            except OSError:
                continue
            if name == "memory.failcnt":
                if text.strip() not in ("", "0"):
                    return True
                continue
            for line in text.splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and value.strip() not in ("", "0"):
                    return True
        return False

    def destroy(self, limit: float = 2.0) -> None:
        """Kill every process in it and remove it (kept for a later retry if a
        process is still dying). Never raises."""
        self.close_fds()
        until = time.monotonic() + limit
        while True:
            pids = self.procs()
            if not pids or time.monotonic() >= until:
                break
            fds = []
            for pid in pids:
                try:
                    fds.append(os.pidfd_open(pid))
                except OSError:
                    continue
            for fd in fds:
                try:
                    signal.pidfd_send_signal(fd, signal.SIGKILL)  # the very process listed, even if its pid is reused
                except OSError:
                    pass
            _wait_all(fds, until)
        for d in self.dirs:
            if not _rmdir(d):
                with _lock:
                    _leftover.append(d)


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


def _rmdir(path: str) -> bool:
    for _ in range(100):
        try:
            os.rmdir(path)
            return True
        except FileNotFoundError:
            return True
        except OSError:
            time.sleep(0.001)  # a dead process leaves its cgroup a moment after it ends
    return False


def _retry_leftovers() -> None:
    left = [d for d in _leftover if not _rmdir_once(d)]
    _leftover[:] = left


def _rmdir_once(path: str) -> bool:
    try:
        os.rmdir(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True
