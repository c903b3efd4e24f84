"""The zygote makes each fork's seccomp filter once, ahead of need: a fork
loads the made BPF (its program is pid 2 of its own pid namespace) instead of
building the same filter again. The made filter must be the one libseccomp
builds for that pid, and hold as the built one does."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = "/usr/bin/python3"

CHILD = textwrap.dedent(
    """
    import errno, os, socket, sys
    sys.path.append("/usr/lib/python3/dist-packages")
    from qflow_tui.core.sandbox.harness import lockdown as L
    import seccomp  # noqa: F401

    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            me = os.getpid()
            L._make_seccomp(me)
            libc, prog_code, _prog = L._SECCOMP_MADE[me]
            fd = os.memfd_create("fresh")
            with os.fdopen(os.dup(fd), "wb") as out:
                L._seccomp_filter(me).export_bpf(out)
            fresh = os.pread(fd, os.fstat(fd).st_size, 0)
            if fresh != prog_code.raw[: len(fresh)] or len(prog_code.raw) != len(fresh):
                os._exit(10)  # not the filter libseccomp builds
            L._install_seccomp({})
            if L._SECCOMP_MADE:
                os._exit(11)  # the made filter was not the one loaded
            status = open("/proc/self/status").read()
            if "Seccomp:\\t2" not in status:
                os._exit(12)  # no filter in force
            for denied in (lambda: os.kill(os.getppid(), 0), lambda: socket.socket().close()):
                try:
                    denied()
                    os._exit(13)  # the filter let it through
                except PermissionError:
                    pass
            os.kill(os.getpid(), 0)  # its own pid stays allowed
            a, b = socket.socketpair()
            a.close(), b.close()
        except BaseException as exc:
            sys.stderr.write(repr(exc))
            code = 20
        os._exit(code)
    _pid, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))
    """
)


def _has_seccomp() -> bool:
    try:
        done = subprocess.run(
            [SYSTEM_PYTHON, "-c", "import sys; sys.path.append('/usr/lib/python3/dist-packages'); import seccomp"],
            capture_output=True,
            timeout=30,
        )
    except OSError:
        return False
    return done.returncode == 0


def test_a_filter_made_ahead_is_libseccomps_and_holds():
    if not _has_seccomp():
        pytest.skip("no python3-seccomp for the system interpreter here")
    done = subprocess.run(
        [SYSTEM_PYTHON, "-c", CHILD],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-500:])
