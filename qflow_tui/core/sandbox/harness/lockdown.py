# -- part header: for ruff and mypy; the launcher leaves it out --
"""The child's Landlock ruleset and seccomp filter.

A part of the child script (see ``harness/__init__.py``)."""

from .prelude import (
    errno,
    os,
    sys,
)
from .channel import (
    _LANDLOCK_ADD_RULE,
    _LANDLOCK_CREATE_RULESET,
    _LANDLOCK_RESTRICT_SELF,
)
# -- end of part header --

_LL_FILE_RIGHTS = 1 | 2 | 4 | (1 << 14) | (1 << 15)
_LL_READ = 1 | 4 | 8  # execute, read_file, read_dir


def _install_landlock(spec):
    """Confine the filesystem with Landlock: read (and execute) only beneath
    ``spec["ro"]`` (the system directories and the interpreter), read and write
    the work directory (the current directory) and the devices in
    ``spec["dev"]``; nothing else, so no file of the user's and no other
    process's /proc entry (the app's command line names its tests file) can be
    opened, whatever its permissions. Where the kernel has them, also no TCP
    bind/connect (ABI 4) and no abstract Unix socket or signal outside this
    sandbox (ABI 6). Sets no_new_privs (setuid programs stay unprivileged).
    Returns the ABI version; raises OSError when Landlock is unavailable."""
    import ctypes
    import stat
    import struct

    libc = ctypes.CDLL(None, use_errno=True)
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    abi = syscall(_LANDLOCK_CREATE_RULESET, None, 0, 1)  # LANDLOCK_CREATE_RULESET_VERSION
    if abi < 1:
        code = ctypes.get_errno()
        raise OSError(code, "Landlock unavailable: " + os.strerror(code))
    handled = (1 << 13) - 1
    for version, right in ((2, 1 << 13), (3, 1 << 14), (5, 1 << 15)):
        if abi >= version:
            handled |= right
    net = 3 if abi >= 4 else 0  # bind_tcp, connect_tcp: handled, no rule allows them
    scoped = 3 if abi >= 6 else 0  # abstract unix sockets, signals
    attr = struct.pack("QQQ", handled, net, scoped)
    ruleset = syscall(_LANDLOCK_CREATE_RULESET, ctypes.create_string_buffer(attr, len(attr)), len(attr), 0)
    if ruleset < 0:
        code = ctypes.get_errno()
        raise OSError(code, "landlock_create_ruleset: " + os.strerror(code))

    def allow(path, rights):
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return  # absent on this system (/lib32, ...): nothing to allow
        try:
            if not stat.S_ISDIR(os.fstat(fd).st_mode):
                rights &= _LL_FILE_RIGHTS
            rule = struct.pack("=Qi", rights & handled, fd)  # struct landlock_path_beneath_attr (packed)
            if syscall(_LANDLOCK_ADD_RULE, ruleset, 1, ctypes.create_string_buffer(rule, len(rule)), 0) < 0:
                code = ctypes.get_errno()
                raise OSError(code, "landlock_add_rule %s: %s" % (path, os.strerror(code)))
        finally:
            os.close(fd)

    try:
        for path in spec.get("ro", ()):
            allow(path, _LL_READ)
        for path in spec.get("dev", ()):
            allow(path, _LL_FILE_RIGHTS & ~1)
        allow(".", handled)
        if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            code = ctypes.get_errno()
            raise OSError(code, "no_new_privs: " + os.strerror(code))
        if syscall(_LANDLOCK_RESTRICT_SELF, ruleset, 0) < 0:
            code = ctypes.get_errno()
            raise OSError(code, "landlock_restrict_self: " + os.strerror(code))
    finally:
        os.close(ruleset)
    return abi


_CLONE_NS_FLAGS = (
    0x00020000  # CLONE_NEWNS
    | 0x02000000  # CLONE_NEWCGROUP
    | 0x04000000  # CLONE_NEWUTS
    | 0x08000000  # CLONE_NEWIPC
    | 0x10000000  # CLONE_NEWUSER
    | 0x20000000  # CLONE_NEWPID
    | 0x40000000  # CLONE_NEWNET
    | 0x00000080  # CLONE_NEWTIME
)

#: System calls the filter refuses outright (EPERM): other processes, the
#: kernel, namespaces, the network, the host's identity and clock.
SECCOMP_DENY = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "process_madvise",
    "kcmp",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "setsid",
    "setpgid",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "iopl",
    "ioperm",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "pidfd_send_signal",
    "pidfd_getfd",
    "tkill",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "setpriority",
    "ioprio_set",
    "sethostname",
    "setdomainname",
    "acct",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "syslog",
    "quotactl",
    "open_by_handle_at",
    "name_to_handle_at",
    "fanotify_init",
    "vhangup",
    "migrate_pages",
    "move_pages",
    "socket",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    "mknod",
    "mknodat",
    # Memory files are shared memory, which RLIMIT_AS does not count; the
    # harness's own sealed memory file is made by the app, not here.
    "memfd_create",
    "memfd_secret",
)

#: Signals only to this process itself (its own pid as the target).
SECCOMP_OWN_PID = ("kill", "tgkill")
#: Resource limits and scheduling only of this process (pid 0 as the target).
SECCOMP_PID_ZERO = ("prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam")


#: Filters made ahead of need, as the kernel takes them (BPF), by the pid they
#: name: the zygote makes the one for pid 2 once (each of its forks runs the
#: program as pid 2 of a pid namespace of its own), so a fork loads it instead
#: of building the same filter again (see ``_zygote_main``).
_SECCOMP_MADE = {}  # type: dict[int, tuple[object, object, object]]


def _seccomp_filter(me):
    """The deny-list filter for the process whose pid is ``me`` (not loaded)."""
    import seccomp  # Debian python3-seccomp

    f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    deny = seccomp.ERRNO(errno.EPERM)
    for name in SECCOMP_DENY:
        try:
            f.add_rule(deny, name)
        except (RuntimeError, ValueError, OSError):
            pass  # syscall unknown on this architecture
    for name in SECCOMP_OWN_PID:
        f.add_rule(deny, name, seccomp.Arg(0, seccomp.NE, me))
    for name in SECCOMP_PID_ZERO:
        f.add_rule(deny, name, seccomp.Arg(0, seccomp.NE, 0))
    bit = 1
    while bit <= _CLONE_NS_FLAGS:
        if _CLONE_NS_FLAGS & bit:
            f.add_rule(deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, bit, bit))
        bit <<= 1
    try:
        f.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    except (RuntimeError, ValueError, OSError):
        pass
    return f


def _make_seccomp(me):
    """Make the filter for pid ``me`` ahead of need (``_SECCOMP_MADE``): its
    BPF as libseccomp would load it, ready for the kernel. Nothing is kept
    when that fails (the process then builds its filter when it installs it)."""
    import ctypes

    fd = os.memfd_create("qflow-seccomp")
    try:
        with os.fdopen(os.dup(fd), "wb") as out:
            _seccomp_filter(me).export_bpf(out)
        bpf = os.pread(fd, os.fstat(fd).st_size, 0)
    finally:
        os.close(fd)
    if not bpf or len(bpf) % 8:
        return

    class _Prog(ctypes.Structure):  # struct sock_fprog
        _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))

    code = ctypes.create_string_buffer(bpf, len(bpf))
    _SECCOMP_MADE[me] = (ctypes.CDLL(None, use_errno=True), code, _Prog(len(bpf) // 8, ctypes.addressof(code)))


def _load_made(made):
    """Install a made filter as libseccomp's ``load`` does: no new
    privileges, then the filter (no flags)."""
    libc, _code, prog = made
    import ctypes

    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        err = ctypes.get_errno()
        raise OSError(err, "no_new_privs: " + os.strerror(err))
    if libc.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        err = ctypes.get_errno()
        raise OSError(err, "seccomp: " + os.strerror(err))


def _install_seccomp(spec):
    """A deny-list filter (see SECCOMP_DENY, SECCOMP_OWN_PID and
    SECCOMP_PID_ZERO); clone with
    namespace flags is refused, clone3 reports ENOSYS so the C library falls
    back to clone, whose flags the filter can see. socketpair stays allowed
    (a connected pair reaches nothing outside). The filter made ahead of need
    for this pid, if any, else one built now."""
    for p in spec.get("path", []):
        if p not in sys.path:
            sys.path.append(p)
    me = os.getpid()
    made = _SECCOMP_MADE.pop(me, None)
    if made is not None:
        _load_made(made)
        return
    _seccomp_filter(me).load()


#: Standard-library dict subclasses that Python compares equal to a dict
#: (``Counter({1: 2}) == {1: 2}``), and ``deque``. Exactly these classes
#: (captured before the program loads; subclasses of them do not count) cross
#: as :class:`Boxed`: their contents, and their type's name.
