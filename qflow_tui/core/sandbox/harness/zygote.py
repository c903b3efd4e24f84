# -- part header: for ruff and mypy; the launcher leaves it out --
"""The zygote: a warm child that forks the program children (see
``sandbox.zygote``), and the script's last line.

A part of the child script (see ``harness/__init__.py``)."""

from .prelude import (
    _dumps_json,
    _json_loads,
    _os_exit,
    _os_read,
    _os_write,
    gc,
    os,
    signal,
    sys,
)
from .channel import (
    _die_with_parent,
    _run,
    _short_error,
)
from .lockdown import (
    _make_seccomp,
)
from .main import (
    main,
)
# -- end of part header --

# ------------------------------------------------------------------ zygote
# A zygote (see ``zygote.py`` in the app) is one harness loaded inside bwrap
# that forks a child per program. It runs no untrusted code and receives none:
# only a request to fork with the fork's descriptors. Each fork remakes, in a
# user namespace of its own, what bwrap gave a fresh child: mount, pid, network,
# IPC and UTS namespaces, private sized tmpfs mounts on /tmp, /dev/shm and the
# work dir, a /proc of its own pid namespace with the kernel's knobs read-only;
# then the program's process (pid 2 there) drops every capability and goes on
# as a fresh child does (``main``): the cgroup, the layers, the limits, the job.

_ZY_NS = (
    0x10000000  # CLONE_NEWUSER
    | 0x00020000  # CLONE_NEWNS
    | 0x20000000  # CLONE_NEWPID
    | 0x40000000  # CLONE_NEWNET
    | 0x08000000  # CLONE_NEWIPC
    | 0x04000000  # CLONE_NEWUTS
)
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18
#: Where a fork mounts a fresh, sized tmpfs (the work dir last: it is the cwd).
_ZY_TMPFS = ("/tmp", "/dev/shm", "/sandbox")
#: What of /proc stays read-only, as bwrap keeps it.
_ZY_PROC_RO = ("sys", "sysrq-trigger", "irq", "bus")
#: A fork's descriptors, in the order the app sends them: requests, stdout,
#: stderr, result channel, status socket (the fork's pid 1 only), cgroup files.
_ZY_FDS = 5


class _ZyLibc:
    """The few system calls a fork needs, bound before any fork."""

    def __init__(self):
        import ctypes

        self.ctypes = ctypes
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.mount.argtypes = (
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.c_ulong,
            ctypes.c_char_p,
        )

    def check(self, result, what):
        if result != 0:
            code = self.ctypes.get_errno()
            raise OSError(code, "%s: %s" % (what, os.strerror(code)))

    def unshare(self, flags):
        self.check(self.libc.unshare(flags), "unshare")

    def mount(self, source, target, fstype, flags, data=None):
        self.check(
            self.libc.mount(
                source and str.encode(source),
                str.encode(target),
                fstype and str.encode(fstype),
                flags,
                data and str.encode(data),
            ),
            "mount " + target,
        )

    def prctl(self, option, arg):
        return self.libc.prctl(option, arg, 0, 0, 0)

    def drop_capabilities(self):
        """No capability left, none to regain: the bounding set emptied,
        the ambient set cleared, then every set zeroed; no new privileges."""
        cap = 0
        while self.prctl(24, cap) == 0:  # PR_CAPBSET_DROP until EINVAL
            cap += 1
        self.libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL
        ct = self.ctypes
        header = (ct.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
        data = (ct.c_uint32 * 6)()
        self.check(self.libc.capset(header, data), "capset")
        self.check(self.prctl(38, 1), "no_new_privs")  # PR_SET_NO_NEW_PRIVS


def _zy_enter(sys_, disk):
    """In a fork of the zygote: a user namespace of its own (this uid and gid
    mapped to themselves) and the namespaces bwrap gives a child, with fresh
    tmpfs mounts of ``disk`` bytes each."""
    uid, gid = os.getuid(), os.getgid()
    sys_.unshare(_ZY_NS)
    for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)), ("gid_map", "%d %d 1" % (gid, gid))):
        fd = os.open("/proc/self/" + name, os.O_WRONLY)
        try:
            _os_write(fd, str.encode(text))
        finally:
            os.close(fd)
    sys_.mount(None, "/", None, _MS_REC | _MS_PRIVATE)
    for path in _ZY_TMPFS:
        sys_.mount("tmpfs", path, "tmpfs", _MS_NOSUID | _MS_NODEV, "size=%d,mode=0755" % disk)
    os.chdir(_ZY_TMPFS[-1])


def _zy_proc(sys_):
    """In the fork's pid 1: a /proc that shows its own pid namespace only,
    and no user namespace to be made below this one (bwrap's
    ``--disable-userns``)."""
    sys_.mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
    fd = os.open("/proc/sys/user/max_user_namespaces", os.O_WRONLY)
    try:
        _os_write(fd, b"0")
    finally:
        os.close(fd)
    for name in _ZY_PROC_RO:
        path = "/proc/" + name
        if os.path.exists(path):
            sys_.mount(path, path, None, _MS_BIND | _MS_REC)
            sys_.mount(None, path, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)


def _zy_place(fds):
    """Put the fork's descriptors at 0, 1, ... and close every other one."""
    import fcntl

    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 256) for fd in fds]
    for i, fd in enumerate(high):
        os.dup2(fd, i)
    keep = len(fds)
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd >= keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _zy_fork(sys_, request, fds):
    """The fork of the zygote (never returns): namespaces, then pid 1 of the
    new pid namespace, which starts the program's process and reports how it
    ended on the status socket."""
    # What the zygote made is the fork's to read, not to collect: frozen, the
    # fork's collections never walk it (walking writes each object's header,
    # and each page written is a page copied from the zygote).
    gc.freeze()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    sys_.prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL: dies with the zygote
    _zy_place(fds)
    _zy_enter(sys_, int(request["disk"]))
    first = os.fork()
    if first:
        for fd in range(len(fds)):
            os.close(fd)
        while True:
            try:
                os.waitpid(first, 0)
                break
            except ChildProcessError:
                break
            except InterruptedError:
                continue
        _os_exit(0)
    sys_.prctl(1, 9)
    _zy_proc(sys_)
    import socket

    status = socket.socket(fileno=4)
    status.send(b"h")  # the app reads this process's pid from the credentials
    if status.recv(16) != b"g":
        _os_exit(0)
    program = os.fork()
    if program == 0:
        status.detach()
        os.close(4)
        sys_.prctl(1, 9)
        sys_.drop_capabilities()
        sys.argv[1:] = ["3", "-1", request.get("tag", "")]
        _run(main)
        _os_exit(0)
    for fd in range(len(fds)):
        if fd != 4:
            os.close(fd)
    while True:
        try:
            pid, wstatus = os.waitpid(-1, 0)
        except ChildProcessError:
            _os_exit(0)
        except InterruptedError:
            continue
        if pid == program:
            try:
                status.send(b"s%d" % wstatus)
            except OSError:
                pass
            _os_exit(0)


def _zy_reap(signum, frame):
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _zy_recv(ctl):
    """The next request and its descriptors; None when the app closed it."""
    import array
    import socket

    fds = array.array("i")
    msg, anc, _flags, _addr = ctl.recvmsg(1 << 16, socket.CMSG_SPACE(32 * fds.itemsize))
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - (len(data) % fds.itemsize)])
    if not msg:
        for fd in fds:
            os.close(fd)
        return None
    return _json_loads(bytes.decode(msg, "ascii")), list(fds)


def _zy_probe(sys_):
    """Whether a fork can make its namespaces here: one fork that makes them
    and mounts its /proc; None when it can, else why not."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            sys_.prctl(1, 9)
            _zy_enter(sys_, 1 << 20)
            inner = os.fork()
            if inner == 0:
                try:
                    _zy_proc(sys_)
                    sys_.drop_capabilities()
                    _os_exit(0 if os.getpid() == 1 and os.listdir("/proc/1") else 4)
                except BaseException as exc:
                    _os_write(write, str.encode(_short_error(exc, 0)[:300], "utf-8", "replace"))
                    _os_exit(5)
            _pid, status = os.waitpid(inner, 0)
            _os_exit(os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else 6)
        except BaseException as exc:
            _os_write(write, str.encode(_short_error(exc, 0)[:300], "utf-8", "replace"))
            _os_exit(5)
    os.close(write)
    why = b""
    while True:
        part = _os_read(read, 4096)
        if not part:
            break
        why += part
    os.close(read)
    _pid, status = os.waitpid(pid, 0)
    if status == 0:
        return None
    return bytes.decode(why, "utf-8", "replace") or "the probe fork exited with status %d" % status


def _zygote_main():
    _die_with_parent()
    import socket

    ctl = socket.socket(fileno=int(sys.argv[2]))
    boot = _zy_recv(ctl)
    if boot is None:
        _os_exit(0)
    spec, _none = boot
    for p in spec.get("seccomp_path") or []:
        if p not in sys.path:
            sys.path.append(p)
    if spec.get("seccomp_path"):
        try:
            import seccomp  # noqa: F401  (loaded once here: each fork installs its filter)

            _make_seccomp(2)  # each fork's program is pid 2 of its own pid namespace
        except BaseException:
            pass
    import fcntl  # noqa: F401  (each fork places its descriptors)
    import resource  # noqa: F401  (each fork sets its limits)

    # Modules every fork finds loaded (the config's ``preload``: trusted
    # packages, imported before any program exists); one that fails is left out.
    for p in spec.get("packages") or []:
        if type(p) is str and p not in sys.path:
            sys.path.append(p)
    for name in spec.get("preload") or []:
        try:
            __import__(str(name))
        except BaseException:
            pass

    sys_ = _ZyLibc()
    try:
        why = _zy_probe(sys_)
    except BaseException as exc:
        why = _short_error(exc, 0)
    ctl.send(str.encode(_dumps_json({"k": "zygote", "ok": why is None, "why": why or ""}), "ascii"))
    if why is not None:
        _os_exit(0)
    signal.signal(signal.SIGCHLD, _zy_reap)
    while True:
        got = _zy_recv(ctl)
        if got is None:
            _os_exit(0)
        request, fds = got
        if len(fds) < _ZY_FDS:
            for fd in fds:
                os.close(fd)
            continue
        try:
            pid = os.fork()
        except OSError:
            pid = -1
        if pid == 0:
            try:
                ctl.detach()
                _zy_fork(sys_, request, fds)
            except BaseException as exc:
                try:
                    _os_write(2, str.encode("qflow sandbox: the zygote's fork failed: %s\n" % _short_error(exc, 0)))
                finally:
                    _os_exit(3)
        for fd in fds:
            os.close(fd)


if __name__ == "__main__":
    _run(_zygote_main if sys.argv[1:2] == ["zygote"] else main)
