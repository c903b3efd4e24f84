"""Memory and disk the limits must count: memory files, shared memory, files
unlinked and kept open, open descriptors; the cgroup that bounds a run's
memory of every kind, and that it is always removed. Caps are lowered in the
config so the attacks stay small."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sbhelpers import ROOT, live_harness_processes, make

from qflow_tui.core.sandbox import cgroups, pool

#: Files of 8 MB each, kept open; ``kind``: memfd, unlinked (in the work dir),
#: or a path prefix (files left in place).
FILL = """
import os, time
def f(kind, n):
    fds = []
    try:
        for i in range(n):
            if kind == 'memfd':
                fd = os.memfd_create('x')
            else:
                name = ('blob' if kind == 'unlinked' else kind) + '-%d' % i
                fd = os.open(name, os.O_CREAT | os.O_WRONLY, 0o600)
            fds.append(fd)
            os.write(fd, b'x' * (8 << 20))
            if kind == 'unlinked':
                os.unlink(name)
    except OSError as exc:
        return 'refused: errno %d' % exc.errno
    time.sleep(0.3)  # keeps them longer than one look of the watchdog
    return 'held'
"""

SECCOMP = {"auto", "seccomp+landlock+uid", "seccomp+uid"}


def test_every_child_gets_an_open_file_limit(sb):
    small = make(sb.config.isolation, max_open_files=32)
    prog = (
        "import os, resource\n"
        "def f():\n"
        "    fds = []\n"
        "    try:\n"
        "        for _ in range(1000):\n"
        "            fds.append(os.open('/dev/null', os.O_RDONLY))\n"
        "    except OSError:\n"
        "        pass\n"
        "    return [resource.getrlimit(resource.RLIMIT_NOFILE)[0], len(fds) < 32]\n"
    )
    r = small.run_tests_sync(prog, ["assert f() == [32, True]"], entry_point="f")
    assert r.results[0].status == "pass", r.to_dict()


def test_memory_files_are_refused_or_counted(sb):
    # 200 MB of memory files against a 32 MB disk cap and a 128 MB memory cap:
    # refused by seccomp, killed by the cgroup, or ended by the disk cap.
    small = make(sb.config.isolation, memory_mb=128, max_disk_mb=32, timeout=3.0)
    r = small.run_tests_sync(FILL, ["assert f('memfd', 25) == 'held'"], entry_point="f")
    o = r.results[0]
    assert o.status != "pass", r.to_dict()
    if sb.config.isolation in SECCOMP:
        assert o.actual == "'refused: errno 1'", r.to_dict()  # EPERM from the filter
    assert not live_harness_processes()


@pytest.mark.skipif(not ROOT or cgroups.support().version == 0, reason="needs a memory cgroup (root)")
@pytest.mark.parametrize("level", ["uid", "rlimits"])
def test_the_cgroup_bounds_memory_rlimit_as_does_not_count(level):
    # No seccomp, and a disk cap large enough not to act first: only the
    # cgroup stands between the program and 320 MB of memory files.
    sb = make(level, memory_mb=128, max_disk_mb=4096, timeout=3.0)
    r = sb.run_tests_sync(FILL, ["assert f('memfd', 40) == 'held'"], entry_point="f")
    o = r.results[0]
    assert o.status == "error" and "memory limit" in (o.error or ""), r.to_dict()
    unbound = make(level, memory_mb=128, max_disk_mb=4096, timeout=3.0, cgroup=False)
    r = unbound.run_tests_sync(FILL, ["assert f('memfd', 40) == 'held'"], entry_point="f")
    assert r.results[0].status == "pass", "without the cgroup nothing counts memory files: the test shows nothing"


def test_files_unlinked_and_kept_open_count_against_the_disk_cap(sb):
    for cgroup in (True, False):
        small = make(sb.config.isolation, max_disk_mb=32, timeout=3.0, cgroup=cgroup)
        r = small.run_tests_sync(FILL, ["assert f('unlinked', 12) == 'held'"], entry_point="f")
        o = r.results[0]
        assert o.status != "pass", r.to_dict()
        if "bwrap" not in small.details.layers:
            assert o.status == "error" and "disk limit" in (o.error or ""), r.to_dict()
        else:
            assert o.actual == "'refused: errno 28'", r.to_dict()  # ENOSPC: the sized tmpfs


def test_a_child_runs_in_its_own_cgroup_which_is_always_emptied(sb):
    sup = cgroups.support()
    if not ROOT or sup.version == 0:
        pytest.skip("needs a memory cgroup (root)")
    mine = f"{cgroups.PREFIX}{os.getpid()}-"
    dirs = [d for d in (sup.memory_dir, sup.pids_dir) if d]
    # Children started when asked for, so no idle warm child holds a cgroup
    # (tests/sandbox/test_warm.py covers the cgroup of a warm child).
    pool.set_enabled(False)
    try:
        _cgroups_emptied(sb, sup, mine, dirs)
    finally:
        pool.set_enabled(True)


def _cgroups_emptied(sb, sup, mine, dirs):

    def ours() -> list[str]:
        return [os.path.join(d, n) for d in dirs for n in os.listdir(d) if n.startswith(mine)]

    prog = "def f():\n    return open('/proc/self/cgroup').read()\n"
    r = sb.run_tests_sync(prog, ["assert f() == ''"], entry_point="f")
    assert cgroups.PREFIX in (r.results[0].actual or ""), r.to_dict()
    assert ours()  # kept for the next child, empty
    assert all(Path(p, "cgroup.procs").read_text().split() == [] for p in ours())
    # a fork left running, a loop killed for time: nothing stays in any
    sb.run_tests_sync(
        "import os, time\ndef f():\n    if os.fork() == 0:\n        time.sleep(60)\n    while True:\n        pass\n",
        ["assert f() == 1"],
        entry_point="f",
    )
    assert all(Path(p, "cgroup.procs").read_text().split() == [] for p in ours())
    assert not live_harness_processes()
    cgroups.shutdown()  # what the app does at exit
    assert ours() == []


def test_doctor_bounds_say_what_is_in_force(sb):
    bounds = sb.bounds()
    assert set(bounds) == {"cgroup", "RLIMIT_AS", "RLIMIT_NOFILE", "RLIMIT_FSIZE", "memfd_create", "disk"}
    assert bounds["cgroup"].startswith("yes" if sb.uses_cgroup else "no")
    assert ("refused" in bounds["memfd_create"]) == ("seccomp" in sb.details.layers)
    assert str(sb.config.max_open_files) in bounds["RLIMIT_NOFILE"]
