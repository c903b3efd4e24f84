"""Warm children (``pool``): each program still runs in a process that no
earlier program touched, with its own limits, and the pool refills, stays
within its bound and leaves nothing behind when the app ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest
from sbhelpers import LEVELS, ROOT, live_harness_processes, make, processes_with

from qflow_tui.core.sandbox import pool
from qflow_tui.core.sandbox.launch import owner_tag
from qflow_tui.core.sandbox.pool import warm_pool


@pytest.fixture(autouse=True)
def _only_this_tests_kinds():
    # Warm children of earlier tests (other levels, other limits) would count.
    warm_pool().clear()
    yield
    warm_pool().clear()


def wait_warm(n: int = 1, limit: float = 20.0) -> None:
    """Until at least ``n`` warm children are idle (they boot in the background)."""
    end = time.monotonic() + limit
    while warm_pool().idle_count() < n and time.monotonic() < end:
        time.sleep(0.02)
    assert warm_pool().idle_count() >= n, "the pool did not refill"


LEAVE = textwrap.dedent(
    """
    import os, sys, tempfile
    def f(name):
        for d in (os.getcwd(), tempfile.gettempdir(), '/dev/shm'):
            try:
                with open(os.path.join(d, name), 'w') as fh:
                    fh.write('a')
            except OSError:
                pass
        os.environ['LEFT_BY_A'] = '1'
        sys.modules['left_by_a'] = sys
        global KEEP
        KEEP = bytearray(b'left-by-a-in-memory' * 1000)
        return os.getpid()
    """
)

LOOK = textwrap.dedent(
    """
    import os, sys, tempfile
    def f(name):
        seen = []
        for d in (os.getcwd(), tempfile.gettempdir(), '/dev/shm'):
            if os.path.exists(os.path.join(d, name)):
                seen.append('file in ' + d)
        if 'LEFT_BY_A' in os.environ:
            seen.append('env')
        if 'left_by_a' in sys.modules or 'KEEP' in globals():
            seen.append('memory')
        me = os.getpid()
        try:
            pids = os.listdir('/proc')
        except OSError:  # Landlock: only /proc/self
            pids = []
        for p in pids:
            if not p.isdigit() or int(p) == me:
                continue
            try:
                with open('/proc/%s/cmdline' % p, 'rb') as fh:
                    if b'left-by-a' in fh.read():
                        seen.append('process %s' % p)
                with open('/proc/%s/environ' % p, 'rb') as fh:
                    if b'LEFT_BY_A' in fh.read():
                        seen.append('environ of %s' % p)
            except OSError:
                pass
        return seen
    """
)


@pytest.mark.parametrize("level", LEVELS)
def test_a_program_sees_nothing_of_an_earlier_one(level):
    sb = make(level, timeout=5.0)
    sb.run_tests_sync("def f():\n    return 0\n", ["assert f() == 0"])  # the pool learns the kind
    wait_warm()
    before = warm_pool().taken
    # A name of this test's own: /dev/shm is the host's at the levels without
    # bwrap, and the same test at another level in another worker writes there.
    name = f"left-by-a-{uuid.uuid4().hex}"
    a = sb.run_tests_sync(LEAVE, [f"assert f({name!r}) == 0"])
    assert a.results[0].status == "fail", a.to_dict()
    wait_warm()
    try:
        b = sb.run_tests_sync(LOOK, [f"assert f({name!r}) == []"])
    finally:
        Path("/dev/shm", name).unlink(missing_ok=True)
    if not sb.protects()["disk beyond the cap (unlinked files, /tmp)"]:
        # Without bwrap or Landlock /dev/shm is the host's, warm or not (the
        # README's table says so): any program of any uid may read it.
        assert b.results[0].actual in ("[]", "['file in /dev/shm']"), b.to_dict()
    else:
        assert b.results[0].status == "pass", (b.results[0].actual, b.results[0].error)
    assert warm_pool().taken >= before + 2  # both ran in warm children
    assert not live_harness_processes()


LIMITS = textwrap.dedent(
    """
    import os, resource
    def f():
        names = ('as', 'cpu', 'nproc', 'fsize', 'nofile', 'core')
        res = (resource.RLIMIT_AS, resource.RLIMIT_CPU, resource.RLIMIT_NPROC,
               resource.RLIMIT_FSIZE, resource.RLIMIT_NOFILE, resource.RLIMIT_CORE)
        out = {n: list(resource.getrlimit(r)) for n, r in zip(names, res)}
        out['uid'] = os.getuid()
        with open('/proc/self/cgroup') as fh:
            out['cgroup'] = fh.read()
        try:
            import socket
            socket.socket()
            out['socket'] = 'opened'
        except OSError as exc:
            out['socket'] = type(exc).__name__
        return out
    """
)


@pytest.mark.parametrize("level", LEVELS)
def test_each_program_gets_its_own_limits_in_a_warm_child(level):
    sb = make(level, timeout=2.0)
    sb.run_tests_sync(LIMITS, ["assert f() == 0"])
    for n in (1, 7):  # the CPU limit depends on the number of tests
        wait_warm()
        before = warm_pool().taken
        r = sb.run_tests_sync(LIMITS, ["assert f() == 0"] * n)
        assert warm_pool().taken == before + 1
        got = eval(r.results[0].actual)
        want = sb._limits(n)
        for name in ("as", "cpu", "fsize", "nofile", "core"):
            assert got[name] == [want[name], want[name]], (name, got)
        if sb.details.launch(0).sweep_uid:
            # Raised by the zombies earlier runs left on its uid (see Child._job_part).
            assert got["nproc"][0] == got["nproc"][1] >= want["nproc"], got
        else:
            assert got["nproc"] == [want["nproc"], want["nproc"]], got
        if ROOT and "uid" in sb.details.layers:
            assert got["uid"] >= sb.details.uid_for(0)
        if sb.uses_cgroup:
            assert "qflow-" in got["cgroup"], got
        if sb.details.network_blocked:
            assert got["socket"] != "opened", got


def test_a_job_with_other_limits_does_not_take_a_warm_child():
    sb = make("auto")
    sb.run_tests_sync("def f():\n    return 0\n", ["assert f() == 0"])
    wait_warm()
    before = warm_pool().taken
    other = make("auto", memory_mb=700)  # another cgroup size: another kind
    r = other.run_tests_sync("def f():\n    return 0\n", ["assert f() == 0"])
    assert r.results[0].status == "pass"
    assert warm_pool().taken == before


def test_the_pool_refills_and_stays_within_its_bound():
    sb = make("auto")
    for _ in range(3):
        r = sb.run_tests_sync("def f():\n    return 0\n", ["assert f() == 0"])
        assert r.results[0].status == "pass"
        wait_warm(pool.target(sb.details))
    # The oracle's process is warmed too.
    r = sb.run_tests_sync("def f():\n    return 0\n", ["assert f() == sorted([0])[0]"])
    assert r.results[0].status == "pass", r.to_dict()
    time.sleep(0.5)
    assert warm_pool().idle_count() <= sb.details.slots
    # Runs that need every slot discard idle children instead of waiting on them.
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(sb.details.slots) as ex:
        runs = [
            ex.submit(sb.run_tests_sync, "def f():\n    return 0\n", ["assert f() == sorted([0])[0]"])
            for _ in range(sb.details.slots)
        ]
        assert all(f.result(timeout=60).results[0].status == "pass" for f in runs)


APP = textwrap.dedent(
    """
    import sys, time
    from qflow_tui.core.sandbox import Sandbox, SandboxConfig
    from qflow_tui.core.sandbox.pool import warm_pool
    sb = Sandbox(SandboxConfig(isolation=sys.argv[1]))
    sb.run_tests_sync("def f():\\n    return 0\\n", ["assert f() == sorted([0])[0]"])
    end = time.monotonic() + 20
    while warm_pool().idle_count() < 2 and time.monotonic() < end:
        time.sleep(0.02)
    print(warm_pool().idle_count(), flush=True)
    if sys.argv[2] == "wait":
        time.sleep(60)
    sys.stdin.readline()  # the test has seen the warm children: exit
    """
)


@pytest.mark.parametrize("how", ["exit", "kill"])
@pytest.mark.parametrize("level", ["auto", "uid", "rlimits"])
def test_the_app_ending_leaves_no_warm_child(level, how):
    app = subprocess.Popen(
        [sys.executable, "-c", APP, level, "wait" if how == "kill" else "exit"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=str(Path(__file__).resolve().parents[2]),
    )
    try:
        assert int(app.stdout.readline() or 0) >= 2
        tag = owner_tag(app.pid)
        assert processes_with(tag)  # the warm children, idle
        if how == "kill":
            app.send_signal(signal.SIGKILL)
        else:
            app.stdin.write(b"\n")
            app.stdin.flush()
        app.wait(timeout=30)
        end = time.monotonic() + 10
        while processes_with(tag) and time.monotonic() < end:
            time.sleep(0.05)
        assert processes_with(tag) == []
    finally:
        if app.poll() is None:
            os.kill(app.pid, signal.SIGKILL)
            app.wait()
