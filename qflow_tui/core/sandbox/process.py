"""Starting one sandboxed child and watching it: the command line for the
isolation in use, the private result pipe, capped output, per-phase and per-run
deadlines, and a kill that reaches every process the child started."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HARNESS_SOURCE = (Path(__file__).with_name("harness.py")).read_text(encoding="utf-8")

#: Where the work directory appears inside bwrap.
SANDBOX_DIR = "/sandbox"
#: Extra seconds the parent gives a phase beyond the child's own soft alarm.
GRACE = 0.3
#: Seconds an interpreter (plus bwrap) may take to start and say hello.
BOOT_TIMEOUT = 15.0


class SandboxUnavailable(RuntimeError):
    """The sandbox itself cannot run (broken installation), not the code under test."""


@dataclass(frozen=True)
class Launch:
    """How to start a child: what the isolation layer decided."""

    interpreter: str
    bwrap: str | None = None
    bind_ro: tuple[str, ...] = ()
    """Extra directories to make visible read-only inside bwrap (the interpreter's prefix)."""
    uid: int | None = None
    """Run as this uid/gid (root only)."""
    seccomp_path: tuple[str, ...] | None = None
    """sys.path entries for the seccomp binding; None: no seccomp filter."""
    sweep_uid: bool = False
    """After the run, kill every process of ``uid`` (no pid namespace to do it)."""


@dataclass
class ChildRun:
    """What one child did, as seen by the parent (nothing here is trusted but
    the parent's own observations: timings, ends, sizes)."""

    hello: dict | None = None
    leaves: list | None = None
    load_error: str | None = None
    loaded: bool = False
    results: dict[int, dict] = field(default_factory=dict)
    durations: dict[int, float] = field(default_factory=dict)
    current: int | None = None
    """Test (or judge item) index that was running when the child ended early."""
    phase: str = "boot"
    end: str = ""
    """``done``, ``died``, ``timeout``, ``deadline``, ``output``, ``protocol``, ``cancelled``."""
    detail: str = ""
    exit_status: int | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    stdout_total: int = 0
    stderr_total: int = 0


def _env(workdir_inside: str) -> dict[str, str]:
    # Built from nothing: no variable of the app's environment reaches the child.
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": workdir_inside,
        "TMPDIR": "/tmp" if workdir_inside == SANDBOX_DIR else workdir_inside,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONHASHSEED": "0",
    }


def build_argv(launch: Launch, chan_fd: int, workdir: str) -> tuple[list[str], str]:
    """The command line and the work directory as the child sees it."""
    py = [launch.interpreter, "-I", "-S", "-B", "-c", HARNESS_SOURCE, str(chan_fd)]
    if launch.bwrap is None:
        return py, workdir
    argv = [
        launch.bwrap,
        "--unshare-all",  # net, pid, ipc, uts, cgroup (and user where needed)
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--ro-bind",
        "/usr",
        "/usr",
    ]
    for path in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc/ld.so.cache", "/etc/localtime"):
        argv += ["--ro-bind-try", path, path]
    for path in launch.bind_ro:
        argv += ["--ro-bind", path, path]
    argv += [
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(64 << 20),
        "--tmpfs",
        "/tmp",
        "--bind",
        workdir,
        SANDBOX_DIR,
        "--chdir",
        SANDBOX_DIR,
    ]
    if os.geteuid() != 0 or launch.uid is not None:
        argv += ["--unshare-user", "--disable-userns"]
    return argv + py, SANDBOX_DIR


class _Sequence:
    """The order of messages a well-behaved child sends. Anything else is a
    protocol violation (a program writing on the channel) and ends the child:
    otherwise forged "start" lines could keep resetting the per-test clock."""

    def __init__(self, mode: str, tests: list[int], skip_leaves: bool):
        self.mode = mode
        self.tests = tests
        self.skip_leaves = skip_leaves
        self.pos = 0  # index into tests of the next test to start
        self.state = "boot"

    def expect(self, msg: dict) -> str | None:
        """Advance; returns an error message when ``msg`` is out of order."""
        k = msg.get("k")
        s = self.state
        if s == "boot":
            if k != "hello":
                return "expected hello"
            self.state = "done_expected" if self.mode == "probe" else "hello"
            return None
        if s == "done_expected":
            return None if k == "done" else "expected done"
        if s == "hello":
            if k == "phase" and msg.get("p") == "setup":
                self.state = "setup"
                return None
            return "expected setup"
        if s == "setup":
            if self.mode == "judge":
                if k == "phase" and msg.get("p") == "judge":
                    self.state = "between"
                    return None
                return "expected judge phase"
            if k == "leaves" and not self.skip_leaves:
                self.state = "leaves"
                return None
            if k == "phase" and msg.get("p") == "load" and self.skip_leaves:
                self.state = "load"
                return None
            return "expected leaves"
        if s == "leaves":
            if k == "phase" and msg.get("p") == "load":
                self.state = "load"
                return None
            return "expected load"
        if s == "load":
            if k == "loaded":
                self.state = "between"
                return None
            if k == "load_error":
                self.state = "finished"
                return None
            return "expected loaded"
        if s == "between":
            if self.pos < len(self.tests):
                if k == "start" and msg.get("i") == self.tests[self.pos]:
                    self.state = "test"
                    return None
                return f"expected start of test {self.tests[self.pos]}"
            if k == "done":
                self.state = "finished"
                return None
            return "expected done"
        if s == "test":
            if k == "res" and msg.get("i") == self.tests[self.pos]:
                self.pos += 1
                self.state = "between"
                return None
            return f"expected result of test {self.tests[self.pos]}"
        return "message after the end"


def _kill_uid(uid: int) -> None:
    """Kill every live process owned by ``uid`` (root only): reaches processes
    that left the process group. Loops because a fork can race the scan;
    zombies are skipped (they hold nothing and only their parent can reap them)."""
    for _ in range(50):
        found = False
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/status", "rb") as fh:
                    status = fh.read()
            except OSError:
                continue
            state = uid_line = b""
            for line in status.split(b"\n"):
                if line.startswith(b"State:"):
                    state = line.split()[1] if len(line.split()) > 1 else b""
                elif line.startswith(b"Uid:"):
                    uid_line = line
                    break
            if not uid_line or int(uid_line.split()[1]) != uid or state in (b"Z", b"X"):
                continue
            found = True
            try:
                os.kill(int(entry), signal.SIGKILL)
            except OSError:
                pass
        if not found:
            return
        time.sleep(0.005)


def run_child(
    launch: Launch,
    job: dict[str, Any],
    *,
    phase_limit: dict[str, float],
    deadline: float,
    max_output: int,
    max_line: int,
    cancel: threading.Event | None = None,
) -> ChildRun:
    """Run one child to its end. ``phase_limit`` gives seconds for ``setup``,
    ``load`` and each ``test``; ``deadline`` is a ``time.monotonic()`` bound for
    the whole child. Never raises for anything the child does."""
    run = ChildRun()
    workdir = tempfile.mkdtemp(prefix="qflow-sb-")
    r_fd, w_fd = os.pipe()
    proc: subprocess.Popen | None = None
    try:
        if launch.uid is not None:
            os.chown(workdir, launch.uid, launch.uid)
        argv, inside = build_argv(launch, w_fd, workdir)
        kwargs: dict[str, Any] = {}
        if launch.uid is not None:
            kwargs.update(user=launch.uid, group=launch.uid, extra_groups=[])
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(w_fd,),
                cwd=workdir,
                env=_env(inside),
                start_new_session=True,
                close_fds=True,
                **kwargs,
            )
        except OSError as exc:
            raise SandboxUnavailable(f"cannot start the sandbox child ({argv[0]}): {exc}") from exc
        os.close(w_fd)
        w_fd = -1
        try:
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(job).encode("utf-8"))
            proc.stdin.close()
        except OSError:
            pass  # the child died at once; the loop below sees it
        _watch(proc, r_fd, run, job, phase_limit, deadline, max_output, max_line, cancel)
    finally:
        if w_fd >= 0:
            os.close(w_fd)
        os.close(r_fd)
        if proc is not None:
            _reap(proc, launch, run)
        shutil.rmtree(workdir, ignore_errors=True)
    return run


def _reap(proc: subprocess.Popen, launch: Launch, run: ChildRun) -> None:
    # Kill the group while its leader is unreaped (so the pgid cannot have been
    # reused), then the leader; bwrap's --die-with-parent and pid namespace take
    # down everything inside; the uid sweep covers processes that escaped the group.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        proc.kill()
    except OSError:
        pass
    status = proc.wait()
    if run.exit_status is None:
        run.exit_status = status
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    if launch.sweep_uid and launch.uid is not None:
        _kill_uid(launch.uid)


def _watch(proc, r_fd, run, job, phase_limit, deadline, max_output, max_line, cancel) -> None:
    mode = job["mode"]
    order = [t["i"] for t in job.get("tests", job.get("items", []))]
    seq = _Sequence(mode, order, bool(job.get("skip_leaves")))
    fds = {r_fd: "chan", proc.stdout.fileno(): "out", proc.stderr.fileno(): "err"}
    for fd in fds:
        os.set_blocking(fd, False)
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    open_fds = set(fds)
    buf = bytearray()
    phase_start = time.monotonic()
    limit = BOOT_TIMEOUT
    n_leaves = len(job.get("leaves", []))

    def set_phase(name: str, seconds: float) -> None:
        nonlocal phase_start, limit
        run.phase = name
        phase_start = time.monotonic()
        limit = seconds

    def finish(end: str, detail: str = "") -> None:
        if not run.end:
            run.end, run.detail = end, detail

    def read_or_close(fd: int) -> bytes | None:
        """What the child wrote on ``fd``; ``b""`` once it closed it (then the fd
        is no longer watched); None when there is nothing yet."""
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            return None
        except OSError:
            data = b""
        if not data:
            poller.unregister(fd)
            open_fds.discard(fd)
        return data

    def keep(kind: str, data: bytes) -> None:
        if kind == "out":
            if len(run.stdout) < max_output:
                run.stdout += data[: max_output - len(run.stdout)]
            run.stdout_total += len(data)
        else:
            if len(run.stderr) < max_output:
                run.stderr += data[: max_output - len(run.stderr)]
            run.stderr_total += len(data)

    def handle(msg: dict) -> None:
        problem = seq.expect(msg)
        if problem is not None:
            finish("protocol", f"unexpected message {str(msg.get('k'))[:20]!r}: {problem}")
            return
        k = msg["k"]
        if k == "hello":
            run.hello = msg
            set_phase("hello", phase_limit["setup"])
        elif k == "phase":
            p = msg.get("p")
            if p == "setup":
                set_phase("setup", phase_limit["setup"] * (1 + n_leaves))
            elif p == "load":
                set_phase("load", phase_limit["load"])
            else:
                set_phase("between", phase_limit["setup"])
        elif k == "leaves":
            run.leaves = msg.get("v")
        elif k == "loaded":
            run.loaded = True
            set_phase("between", phase_limit["setup"])
        elif k == "load_error":
            run.load_error = str(msg.get("e"))[:5000]
            finish("done")
        elif k == "start":
            run.current = msg["i"]
            set_phase("test", phase_limit["test"])
        elif k == "res":
            run.results[msg["i"]] = msg
            run.durations[msg["i"]] = time.monotonic() - phase_start
            run.current = None
            set_phase("between", phase_limit["setup"])
        elif k == "done":
            run.current = None
            finish("done")

    chan_closed = False
    while not run.end:
        now = time.monotonic()
        if cancel is not None and cancel.is_set():
            finish("cancelled", "the run was cancelled")
            break
        if now > deadline:
            finish("deadline", "the run's time limit ran out")
            break
        if now - phase_start > limit:
            finish("timeout", f"no progress within {limit:.3g}s in phase {run.phase}")
            break
        if chan_closed:
            break
        wait = min(deadline, phase_start + limit) - now
        if cancel is not None:
            wait = min(wait, 0.05)
        for fd, _ev in poller.poll(max(0.0, wait) * 1000 + 1):
            data = read_or_close(fd)
            if data is None:
                continue
            if not data:
                chan_closed = chan_closed or fd == r_fd
                continue
            kind = fds[fd]
            if kind != "chan":
                keep(kind, data)
                total = run.stdout_total if kind == "out" else run.stderr_total
                if total > max_output:
                    finish("output", f"output limit: the program wrote more than {max_output // 1024} KB to std{kind}")
                continue
            buf += data
            while not run.end:
                nl = buf.find(b"\n")
                if nl < 0:
                    if len(buf) > max_line:
                        finish("protocol", "oversized result line")
                    break
                line = bytes(buf[:nl])
                del buf[: nl + 1]
                try:
                    msg = json.loads(line)
                except ValueError:
                    msg = None
                if type(msg) is not dict:
                    finish("protocol", "malformed result line")
                    break
                handle(msg)
            if run.end:
                break

    if run.end == "done":
        # Let the child flush what it printed and exit; keep draining meanwhile.
        until = time.monotonic() + 0.5
        while open_fds - {r_fd} and time.monotonic() < until:
            for fd, _ev in poller.poll(max(0.0, until - time.monotonic()) * 1000 + 1):
                data = read_or_close(fd)
                if data and fd != r_fd:  # the channel said "done": anything more on it is ignored
                    keep(fds[fd], data)
        return
    if not run.end:
        # The result channel closed without "done": the child died (exit,
        # signal, crash) or the program closed the channel itself.
        try:
            status = proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            status = None
        run.exit_status = status
        finish("died", _describe_exit(status))


def _describe_exit(status: int | None) -> str:
    if status is None:
        return "the process closed its result channel and did not exit"
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = str(-status)
        hint = {
            "SIGXCPU": " (CPU time limit)",
            "SIGKILL": " (killed; memory or a limit)",
            "SIGSEGV": " (crash, e.g. stack overflow)",
            "SIGXFSZ": " (file size limit)",
        }.get(name, "")
        return f"the process was killed by {name}{hint}"
    return f"the process exited with status {status}"
