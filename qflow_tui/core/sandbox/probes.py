"""Attacks that check what an isolation level claims: each claim of
``Sandbox.protects()`` is tried for real, with a program run in the sandbox
at that level, and held or not by what happened (used by ``qflow doctor`` and
the tests). Harmless by construction: signals are signal 0, the files read are
made for the probe, the sockets are the probe's own listeners, the orphan is a
``sleep`` that is killed afterwards."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import select
import signal
import socket
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

from . import zygote
from .sandbox import Sandbox


@dataclass(frozen=True)
class ProbeResult:
    threat: str
    """The claim's name, as in ``Sandbox.protects()``."""
    claimed: bool
    held: bool
    """Whether the attack was stopped."""
    detail: str


def _with_token(token: str) -> list[int]:
    """Live processes whose command line carries ``token``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                if token.encode() not in fh.read():
                    continue
            with open(f"/proc/{entry}/stat", "rb") as fh:
                if fh.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X"):
                    continue
            found.append(int(entry))
        except OSError:
            continue
    return found


def _survivors(token: str, grace: float = 2.0) -> list[int]:
    """Processes carrying ``token`` still alive ``grace`` seconds after the run
    (a kill is delivered asynchronously: each is waited for on a pidfd, not
    polled); then killed, so the probe leaves nothing behind."""
    fds: dict[int, int] = {}
    for pid in _with_token(token):
        try:
            fds[os.pidfd_open(pid)] = pid
        except OSError:
            continue
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    ended: set[int] = set()
    deadline = time.monotonic() + grace
    while len(ended) < len(fds) and time.monotonic() < deadline:
        for fd, _ev in poller.poll(max(0.0, deadline - time.monotonic()) * 1000):
            ended.add(fd)
            poller.unregister(fd)
    alive = []
    for fd, pid in fds.items():
        if fd not in ended:
            alive.append(pid)
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(fd, signal.SIGKILL)
        os.close(fd)
    return alive


def _value(sb: Sandbox, program: str) -> tuple[str, str]:
    """Run ``f(0)`` of ``program``; (repr of its value or '', error or '')."""
    report = sb.run_tests_sync(program, ["assert f(0) == 'unreachable'"], entry_point="f")
    r = report.results[0]
    return (r.actual or ""), (r.error or report.load_error or "")


#: A program that fills files of 16 MB (RLIMIT_FSIZE's size in the probe) up
#: to a total, kept open, and returns how many MB it held: kind ``memfd``
#: (memory files), ``path`` (files named prefix-<n>) or ``unlinked`` (files
#: in the work dir, unlinked once written). Unlinked files are bounded by the
#: watchdog, which looks every 0.1 s, so the program holds them half a second
#: before it answers, as a program that means to keep the space does: written
#: and returned within one look, they were never held (and the probe's verdict
#: depended on the machine's speed).
_FILL = """
import os, time
def f(x):
    kind, total, prefix = %r, %d, %r
    fds, held = [], 0
    try:
        for i in range(total // 16):
            if kind == 'memfd':
                fd = os.memfd_create('probe')
            else:
                fd = os.open('%%s-%%d' %% (prefix, i), os.O_CREAT | os.O_WRONLY, 0o600)
            fds.append(fd)
            for _ in range(2):
                os.write(fd, b'x' * (8 << 20))
                held += 8
            if kind == 'unlinked':
                os.unlink('%%s-%%d' %% (prefix, i))
    except OSError:
        pass
    if kind == 'unlinked':
        time.sleep(0.5)
    return held
"""


def _held_mb(sb: Sandbox, program: str) -> int:
    """How many MB the program held (0 when it was stopped before returning)."""
    actual, _error = _value(sb, program)
    return int(actual) if actual.isdigit() else 0


#: How a probe records what it found: the threat, whether it held, in words.
_Add: TypeAlias = Callable[[str, bool, str], None]


def probe_all(sb: Sandbox, on_result: Callable[[ProbeResult], None] | None = None) -> list[ProbeResult]:
    """Try every attack against ``sb``'s level, on the children its
    programs get: under bwrap, forks of the zygote once it has started (see
    ``zygote``), so it is waited for first. ``on_result`` is given each
    result as soon as its probe ends (``qflow doctor`` prints it then)."""
    if sb.details.bwrap is not None:
        zygote.wait_ready(sb.details.launch(0, preload=sb.config.preload))
    claims = sb.protects()
    out: list[ProbeResult] = []
    app = os.getpid()

    def add(threat: str, held: bool, detail: str) -> None:
        out.append(ProbeResult(threat, claims.get(threat, False), held, detail))
        if on_result is not None:
            on_result(out[-1])

    _probe_memory(sb, add)
    _probe_fork_bomb(sb, add)
    _probe_uncounted_memory_and_disk(sb, add)
    _probe_network(sb, add)
    _probe_signals(sb, add, app)
    _probe_app_proc(sb, add, app)
    _probe_your_files(sb, add)
    _probe_command_line(sb, add, app)
    _probe_unix_sockets(sb, add)
    _probe_secrets(sb, add)
    _probe_orphans(sb, add, claims)
    return out


def _probe_memory(sb: Sandbox, add: _Add) -> None:
    # Runaway memory: a 4 GB allocation must fail inside the limit.
    actual, error = _value(sb, "def f(x):\n    return len(bytearray(4 << 30))\n")
    add("runaway time, memory, output, file size", "MemoryError" in error, error.splitlines()[0] if error else actual)


def _probe_fork_bomb(sb: Sandbox, add: _Add) -> None:
    # Fork bomb: how many children could it make?
    actual, error = _value(
        sb,
        "import os, time\n"
        "def f(x):\n"
        "    n = 0\n"
        "    for _ in range(200):\n"
        "        try:\n"
        "            if os.fork() == 0:\n"
        "                time.sleep(2)\n"
        "                os._exit(0)\n"
        "            n += 1\n"
        "        except OSError:\n"
        "            break\n"
        "    return n\n",
    )
    made = int(actual) if actual.isdigit() else 0
    add("process count (fork bomb)", made < 200, f"{made} of 200 forks succeeded" if actual else error[:120])


def _probe_uncounted_memory_and_disk(sb: Sandbox, add: _Add) -> None:
    # Memory RLIMIT_AS does not count, and disk the work dir's usage does not
    # show, tried with small caps (so the probe writes little): memory files,
    # files on /dev/shm, files in /tmp, files unlinked and kept open.
    small = Sandbox(dataclasses.replace(sb.config, memory_mb=128, max_disk_mb=32, max_file_mb=16), refuse_weak=False)
    token = f"qflow-probe-{uuid.uuid4().hex}"
    want = 320  # MB: beyond 128 MB of memory plus three 32 MB mounts and the slack
    try:
        mem = [
            _held_mb(small, _FILL % ("memfd", want, "")),
            _held_mb(small, _FILL % ("path", want, f"/dev/shm/{token}")),
        ]
        disk = [
            _held_mb(small, _FILL % ("path", 96, f"/tmp/{token}")),
            _held_mb(small, _FILL % ("unlinked", 96, "blob")),
        ]
    finally:
        for d in ("/dev/shm", "/tmp"):
            for name in os.listdir(d) if os.path.isdir(d) else []:
                if name.startswith(token):
                    with contextlib.suppress(OSError):
                        os.unlink(os.path.join(d, name))
    add(
        "memory outside RLIMIT_AS (memfd, /dev/shm)",
        all(m < want for m in mem),
        f"held {mem[0]} MB in memory files, {mem[1]} MB in /dev/shm of {want} MB tried",
    )
    add(
        "disk beyond the cap (unlinked files, /tmp)",
        all(d < 96 for d in disk),
        f"held {disk[0]} MB in /tmp, {disk[1]} MB unlinked of 96 MB tried (cap 32 MB)",
    )


def _probe_network(sb: Sandbox, add: _Add) -> None:
    # Network: connect to a listener this process opens. The kernel finishes a
    # connection's handshake before anyone accepts it, so once the program has
    # returned, a connection it made waits in the queue: no thread, no timeout.
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        srv.setblocking(False)
        port = srv.getsockname()[1]
        actual, error = _value(
            sb,
            "import socket\n"
            "def f(x):\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=1).close()\n"
            "    return 'connected'\n",
        )
        try:
            conn, _ = srv.accept()
            conn.close()
            connected = True
        except OSError:
            connected = False
    add(
        "network",
        not connected,
        "connected to 127.0.0.1" if connected else (error.splitlines()[0] if error else actual),
    )


def _probe_signals(sb: Sandbox, add: _Add, app: int) -> None:
    # Signals to the app: signal 0 checks permission and harms nothing.
    actual, _error = _value(
        sb,
        "import os, ctypes, struct\n"
        "def f(x):\n"
        "    done = []\n"
        "    try:\n"
        f"        os.kill({app}, 0)\n"
        "        done.append('kill')\n"
        "    except OSError:\n"
        "        pass\n"
        "    libc = ctypes.CDLL(None, use_errno=True)\n"
        "    info = ctypes.create_string_buffer(struct.pack('iii', 0, 0, -1) + bytes(116))\n"  # SI_QUEUE
        "    nr = {'x86_64': 129, 'aarch64': 138}.get(os.uname().machine)\n"  # rt_sigqueueinfo
        f"    if nr and libc.syscall(nr, {app}, 0, info) == 0:\n"
        "        done.append('rt_sigqueueinfo')\n"
        "    return ','.join(done)\n",
    )
    add(
        "signals to the app / other processes",
        actual in ("''", ""),
        f"sent: {actual}" if actual not in ("''", "") else "refused",
    )


def _probe_app_proc(sb: Sandbox, add: _Add, app: int) -> None:
    # The app's /proc: its environment.
    actual, _error = _value(
        sb,
        f"def f(x):\n    return len(open('/proc/{app}/environ', 'rb').read())\n",
    )
    add("the app's /proc (environ, memory)", not actual.isdigit(), "read it" if actual.isdigit() else "refused")


def _probe_your_files(sb: Sandbox, add: _Add) -> None:
    # Your files: a private file made for the probe.
    with tempfile.TemporaryDirectory(prefix="qflow-probe-") as d:
        os.chmod(d, 0o700)
        path = os.path.join(d, "private.txt")
        with open(path, "w") as fh:
            fh.write("qflow-probe-secret")
        os.chmod(path, 0o600)
        actual, _error = _value(sb, f"def f(x):\n    return open({path!r}).read()\n")
    add("reading/deleting your files", "qflow-probe-secret" not in actual, "read it" if actual else "refused")


def _probe_command_line(sb: Sandbox, add: _Add, app: int) -> None:
    # The app's command line (it names the --tests file) and a file every
    # user may read, in a directory every user may enter.
    with tempfile.TemporaryDirectory(prefix="qflow-probe-") as d:
        os.chmod(d, 0o755)
        path = os.path.join(d, "tests.py")
        with open(path, "w") as fh:
            fh.write("qflow-probe-hidden-test")
        os.chmod(path, 0o644)
        actual, _error = _value(
            sb,
            "def f(x):\n"
            "    got = []\n"
            f"    for name in ('/proc/{app}/cmdline', {path!r}):\n"
            "        try:\n"
            "            with open(name, 'rb') as fh:\n"
            "                got.append(name.rsplit('/', 1)[1] + ': ' + repr(fh.read(200)))\n"
            "        except OSError:\n"
            "            pass\n"
            "    return '; '.join(got)\n",
        )
    got_through = "cmdline:" in actual or "qflow-probe-hidden-test" in actual
    add(
        "the app's command line and world-readable files",
        not got_through,
        ("read " + ", ".join(w for w in ("cmdline", "tests.py") if w + ":" in actual)) if got_through else "refused",
    )


def _probe_unix_sockets(sb: Sandbox, add: _Add) -> None:
    # Unix sockets: one at a path any user may write, one abstract.
    with tempfile.TemporaryDirectory(prefix="qflow-probe-") as d, contextlib.ExitStack() as stack:
        os.chmod(d, 0o755)
        path = os.path.join(d, "service.sock")
        name = f"qflow-probe-{uuid.uuid4().hex}"
        listeners = []
        for address in (path, "\0" + name):
            srv = stack.enter_context(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
            srv.bind(address)
            srv.listen(4)
            srv.setblocking(False)
            listeners.append(srv)
        os.chmod(path, 0o777)
        _actual, _error = _value(
            sb,
            "import socket\n"
            "def f(x):\n"
            "    got = []\n"
            f"    for label, address in (('path', {path!r}), ('abstract', {chr(0) + name!r})):\n"
            "        try:\n"
            "            with socket.socket(socket.AF_UNIX) as s:\n"
            "                s.settimeout(2)\n"
            "                s.connect(address)\n"
            "                got.append(label)\n"
            "        except OSError:\n"
            "            pass\n"
            "    return ','.join(got)\n",
        )
        reached = []
        for label, srv in zip(("path", "abstract"), listeners, strict=True):
            try:
                conn, _ = srv.accept()
                conn.close()
                reached.append(label)
            except OSError:
                pass
    add(
        "unix sockets of host services",
        not reached,
        f"connected: {', '.join(reached)}" if reached else "refused",
    )


def _probe_secrets(sb: Sandbox, add: _Add) -> None:
    # Secrets in the app's environment.
    marker = f"qflow-probe-{uuid.uuid4().hex}"
    os.environ["QFLOW_PROBE_SECRET"] = marker
    try:
        actual, _error = _value(sb, "import os\ndef f(x):\n    return repr(dict(os.environ))\n")
    finally:
        del os.environ["QFLOW_PROBE_SECRET"]
    add("secrets in the app's environment", marker not in actual, "seen" if marker in actual else "not seen")


def _probe_orphans(sb: Sandbox, add: _Add, claims: dict[str, bool]) -> None:
    # Orphans: a sleeper that tries to leave the process group. The parent
    # returns once the sleeper has exec'd: the pipe's write end closes on exec
    # (Python's pipes are close-on-exec), which needs no look at /proc.
    token = f"{uuid.uuid4().int % 10**9}.{os.getpid()}"
    _value(
        sb,
        "import os\n"
        "def f(x):\n"
        "    r, w = os.pipe()\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        try:\n"
        "            os.close(r)\n"
        "            try:\n"
        "                os.setsid()\n"
        "            except OSError:\n"
        "                pass\n"
        f"            os.execv('/bin/sleep', ['sleep', '60', '{token}'])\n"
        "        finally:\n"
        "            os._exit(1)\n"
        "    os.close(w)\n"
        "    os.read(r, 1)\n"
        "    return 'forked'\n",
    )
    # A level that does not claim this leaves its orphans: no need to give a kill time to land.
    survivors = _survivors(token, grace=2.0 if claims.get("orphan processes") else 0.2)
    add("orphan processes", not survivors, f"{len(survivors)} outlived the run" if survivors else "none left")
