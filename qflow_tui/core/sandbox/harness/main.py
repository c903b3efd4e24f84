# -- part header: for ruff and mypy; the launcher leaves it out --
"""The child's entry: the boot, the job, the limits, then its mode.

A part of the child script (see ``harness/__init__.py``)."""

from .prelude import (
    _os_exit,
    _os_write,
    builtins,
    os,
    signal,
    sys,
)
from .codec import (
    _REBUILD,
)
from .channel import (
    _BY_CPU,
    _Channel,
    _LazyNames,
    _Requests,
    _WALL_FACTOR,
    _alarm_handler,
    _die_with_parent,
    _flush_and_exit,
    _set_limits,
    _short_error,
    _start_guardian,
)
from .lockdown import (
    _install_landlock,
    _install_seccomp,
)
from .modes import (
    _oracle_mode,
    _program_mode,
)
# -- end of part header --


def main():
    _die_with_parent()
    chan = _Channel(int(sys.argv[1]))
    life_fd = int(sys.argv[2])
    # Requests come on what was stdin; the program gets /dev/null there.
    req_fd = os.dup(0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    requests = _Requests(req_fd)
    # Two lines come from the parent: the boot (the layers, the same for every
    # program a child of this kind runs) and the job (the limits, the program).
    # Everything before the job is read is done ahead of need in a warm child
    # (see ``pool``); nothing untrusted has run before the job's limits are set.
    job = requests.next()
    if type(job) is not dict or job.get("k") != "boot":
        _os_exit(3)
    # Join the run's cgroup first, so every process of the run (the guardian
    # and any fork) is counted; the descriptors close before untrusted code.
    cg_status = None
    if job.get("cgroup_fds") is not None:
        cg_status = "ok"
        for fd in job["cgroup_fds"]:
            try:
                _os_write(int(fd), b"0")
            except BaseException as exc:
                cg_status = "failed: " + _short_error(exc, 0)
            try:
                os.close(int(fd))
            except OSError:
                pass
    guardian = None
    if life_fd >= 0:
        guardian = _start_guardian(life_fd, bool(job.get("guard_uid")))
        os.close(life_fd)
    signal.signal(signal.SIGALRM, _alarm_handler)
    if hasattr(signal, "SIGPROF"):
        signal.signal(signal.SIGPROF, _alarm_handler)
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # oversize writes fail with EFBIG
    ll = job.get("landlock")
    ll_status = None
    if ll is not None:
        try:
            ll_status = "abi %d" % _install_landlock(ll)
        except BaseException as exc:  # reported; the parent decides whether it is fatal
            ll_status = "failed: " + _short_error(exc, 0)
    sec = job.get("seccomp")
    sec_status = None
    if sec is not None:
        try:
            _install_seccomp(sec)
            sec_status = "ok"
        except BaseException as exc:  # reported; the parent decides whether it is fatal
            sec_status = "failed: " + _short_error(exc, 0)
    if job["mode"] != "probe":
        # A layer the level claims that did not load: run no untrusted code.
        for layer, status in (("landlock", ll_status), ("seccomp", sec_status), ("cgroup", cg_status)):
            if status is not None and status.startswith("failed"):
                sys.stderr.write("qflow sandbox: the %s layer did not load: %s\n" % (layer, status))
                sys.stderr.flush()
                _os_exit(3)
    work = requests.next()
    if type(work) is not dict:
        _os_exit(0)  # the parent let this warm child go unused
    job.update(work)
    if type(job.get("wall_factor")) in (int, float) and 1 <= job["wall_factor"] <= 100:
        _WALL_FACTOR[0] = float(job["wall_factor"])
    _set_limits(job.get("limits", {}))
    chan.send(
        {
            "k": "hello",
            "pid": os.getpid(),
            "uid": os.getuid(),
            "seccomp": sec_status,
            "landlock": ll_status,
            "cgroup": cg_status,
            "python": sys.version.split()[0],
            # What the app needs to read the kernel's accounting of this
            # process (its own time), said before any untrusted code runs.
            "mode": job["mode"],
            "guardian": guardian,
        }
    )
    # The packages a judged program may import (numpy: see isolation), read-only.
    for p in job.get("packages") or ():
        if type(p) is str and p not in sys.path:
            sys.path.append(p)
    mode = job["mode"]
    # A numpy value received (a call's argument, a call's answer in the
    # oracle) is rebuilt here as numpy's own, from validated data.
    _REBUILD[0] = True
    timeout = float(job.get("timeout", 3.0))
    max_value = int(job.get("max_value", 1 << 20))
    module = type(sys)("solution")
    sys.modules["solution"] = module
    g = module.__dict__
    g["__builtins__"] = builtins
    names = _LazyNames()
    if mode == "program":
        _BY_CPU[0] = True
        _program_mode(chan, requests, job, g, names, timeout, max_value)
    elif mode == "oracle":
        # Its limits too are on its CPU time (a busy machine does not stop
        # the dataset's own code), the wall clock their safety cap.
        _BY_CPU[0] = True
        _oracle_mode(chan, requests, job, g, names, timeout, max_value)
    else:
        chan.send({"k": "done"})
    _flush_and_exit()
