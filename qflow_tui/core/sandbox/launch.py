"""Starting a sandbox child: the command line for the isolation in use, its
environment and work directory, and the clean-up afterwards (a tree of any
depth and any modes, every process of a dropped uid)."""

from __future__ import annotations

import fcntl
import functools
import os
import select
import shutil
import stat
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import TypedDict

from . import harness


@functools.cache
def harness_source() -> str:
    """The child script: the harness's parts joined (see ``harness``), read
    once per app process. A missing part is a broken install, said in one
    line (:class:`SandboxUnavailable`)."""
    try:
        return harness.joined_source()
    except harness.MissingPart as exc:
        raise SandboxUnavailable(str(exc)) from None


#: What a child interpreter runs to compile the harness (given on stdin) and
#: write the code object, marshalled in its own format, to stdout.
_COMPILE = "import marshal, sys; sys.stdout.buffer.write(marshal.dumps(compile(sys.stdin.read(), 'harness', 'exec')))"

#: What a child runs first when its interpreter's compiled harness is at hand:
#: read the code object from the sealed memory file whose fd is its first
#: argument, close that fd (the program never sees it) and run the harness, whose
#: arguments are then where they always are.
_BOOT = (
    "import marshal, os, sys\n"
    "_fd = int(sys.argv.pop(1))\n"
    "_code = marshal.loads(os.pread(_fd, %d, 0))\n"
    "os.close(_fd)\n"
    "del _fd\n"
    "exec(_code)\n"
)

#: Each child interpreter's compiled harness: (fd of a sealed memory file, size),
#: or None where it could not be made (the child then compiles the source, as
#: before). Compiling 1,100 lines took about 22 ms of each child's start, a third
#: of a sandboxed run of a small program.
_compiled: dict[str, tuple[int, int] | None] = {}
_compiled_lock = threading.Lock()

#: Where the work directory appears inside bwrap.
SANDBOX_DIR = "/sandbox"


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
    zygote_uid: int | None = None
    """The zygote's uid where children run as uids of their own: a uid of
    the app's block that no slot has (see ``zygote``)."""
    seccomp_path: tuple[str, ...] | None = None
    """sys.path entries for the seccomp binding; None: no seccomp filter."""
    sweep_uid: bool = False
    """After the run, kill every process of ``uid`` (no pid namespace to do it)."""
    disk_mb: int = 64
    """Size of each writable mount inside bwrap (work dir, /tmp, /dev/shm); the
    work dir's total outside bwrap (checked while the child runs)."""
    landlock: tuple[str, ...] | None = None
    """Directories (and files) the child may read and execute beneath, with
    Landlock; it may also read and write its work dir and ``LANDLOCK_DEVICES``,
    and nothing else. None: no Landlock ruleset."""
    cgroup: bool = True
    """Put the child in a memory and pids cgroup of its own where the machine
    offers one (see ``cgroups``)."""
    preload: tuple[str, ...] = ()
    """Modules the zygote imports before any fork (``SandboxConfig.preload``)."""
    packages: tuple[str, ...] = ()
    """Directories on the child's import path besides the standard library's
    (see ``isolation.JUDGED_PACKAGES``); visible read-only (``bind_ro`` and
    ``landlock`` name those outside /usr)."""


#: Device files a Landlock-confined child may read and write.
LANDLOCK_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
#: What a Landlock-confined child may read besides its interpreter's prefix:
#: the same system directories bwrap shows it, and its own /proc entry (opened
#: by the harness, so it names the harness's pid: no other process's).
LANDLOCK_READ = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/proc/self",
)


#: What bwrap binds read-only besides /usr (when present). /etc/alternatives:
#: Debian's links to the libraries a package picks (numpy's libblas.so.3 is
#: one), links into /usr with no file of their own.
SYSTEM_READ = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc/ld.so.cache", "/etc/localtime", "/etc/alternatives")

#: util-linux's setpriv, which starts a child as another uid (see ``as_uid``).
SETPRIV = shutil.which("setpriv", path="/usr/bin:/bin:/usr/sbin:/sbin")


class UidKeywords(TypedDict, total=False):
    """The ``subprocess.Popen`` keywords that start a child as another uid
    (where setpriv is missing)."""

    user: int
    group: int
    extra_groups: list[int]


def as_uid(argv: list[str], uid: int | None) -> tuple[list[str], UidKeywords]:
    """The command line and ``subprocess`` keywords that run ``argv`` as
    ``uid`` (and its gid, with no supplementary groups). Through setpriv where
    it is installed: ``Popen(user=...)`` makes Python fork the whole app
    (vfork cannot change the uid), holding the GIL while the app's page tables
    are copied; that was about 4 ms of the app's CPU time a program, a third
    of what it spent judging HumanEval. setpriv does the same drop
    (setgroups, setregid, setreuid) in its own process and execs ``argv``."""
    if uid is None:
        return argv, {}
    if SETPRIV:
        return [SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--", *argv], {}
    return argv, {"user": uid, "group": uid, "extra_groups": []}


def child_env(workdir_inside: str) -> dict[str, str]:
    """Built from nothing: no variable of the app's environment reaches the child."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": workdir_inside,
        "TMPDIR": "/tmp" if workdir_inside == SANDBOX_DIR else workdir_inside,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONHASHSEED": "0",
        # numpy's BLAS would start a thread per core: one thread keeps a
        # program's own time its own (see ``clock``) and its tasks within
        # RLIMIT_NPROC.
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def owner_tag(pid: int | None = None) -> str:
    """The last argument of every child this app process starts: names the
    app's pid, so a test (or a person) finds exactly this app's sandbox
    processes, and the forks that kept the harness's command line."""
    return f"qflow-sandbox-of-{os.getpid() if pid is None else pid}"


def compiled_harness(interpreter: str) -> tuple[int, int] | None:
    """``interpreter``'s compiled harness, made once per app process: the fd of
    a sealed, read-only memory file holding the marshalled code object, and its
    size. None when the interpreter cannot make it or memory files are missing."""
    with _compiled_lock:
        if interpreter not in _compiled:
            _compiled[interpreter] = _compile_harness(interpreter)
        return _compiled[interpreter]


def _compile_harness(interpreter: str) -> tuple[int, int] | None:
    if not hasattr(os, "memfd_create"):
        return None
    try:
        done = subprocess.run(
            [interpreter, "-I", "-S", "-B", "-c", _COMPILE],
            input=harness_source().encode("utf-8"),
            capture_output=True,
            env=child_env("/"),
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    code = done.stdout
    if done.returncode != 0 or not code:
        return None
    fd = os.memfd_create("qflow-harness", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        view = memoryview(code)
        while view:
            view = view[os.write(fd, view) :]
        seals = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
    except OSError:
        os.close(fd)
        return None
    return fd, len(code)


def build_argv(
    launch: Launch,
    chan_fd: int,
    life_fd: int,
    workdir: str | None,
    harness: tuple[int, int] | None = None,
    *,
    zygote: bool = False,
) -> tuple[list[str], str]:
    """The command line and the work directory as the child sees it. Under
    bwrap the work dir is a size-capped tmpfs (nothing on the host disk), and
    every other writable place is capped or read-only. With ``harness`` (see
    :func:`compiled_harness`; its fd must be passed to the child) the child
    loads the compiled harness instead of compiling its source."""
    head = [launch.interpreter, "-I", "-S", "-B", "-c"]
    if harness is None:
        head += [harness_source()]
    else:
        head += [_BOOT % harness[1], str(harness[0])]
    # A zygote (see ``zygote``) gets its socket where a child gets its channel.
    args = ["zygote", str(chan_fd)] if zygote else [str(chan_fd), str(life_fd)]
    py = [*head, *args, owner_tag()]
    if launch.bwrap is None:
        assert workdir is not None
        return py, workdir
    size = str(launch.disk_mb << 20)
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
    for path in SYSTEM_READ:
        argv += ["--ro-bind-try", path, path]
    for path in launch.bind_ro:
        argv += ["--ro-bind", path, path]
    argv += ["--proc", "/proc", "--dev", "/dev"]
    for mount in ("/dev/shm", "/tmp", SANDBOX_DIR):
        argv += ["--size", size, "--tmpfs", mount]
    argv += ["--chdir", SANDBOX_DIR, "--remount-ro", "/dev", "--remount-ro", "/"]
    if os.geteuid() != 0 or launch.uid is not None:
        # A zygote's forks each make a user namespace of their own (and
        # forbid any below it): bwrap's must allow that one level.
        argv += ["--unshare-user"] if zygote else ["--unshare-user", "--disable-userns"]
    return argv + py, SANDBOX_DIR


def make_workdir(uid: int | None) -> str:
    workdir = tempfile.mkdtemp(prefix="qflow-sb-")
    if uid is not None:
        os.chown(workdir, uid, uid)
    return workdir


def dir_usage(path: str, max_entries: int = 20_000) -> tuple[int, int]:
    """(bytes on disk, entries) under ``path``, stopping after ``max_entries``
    entries. Never raises; iterative, so depth does not matter."""
    total = entries = 0
    stack = [path]
    while stack and entries < max_entries:
        top = stack.pop()
        try:
            with os.scandir(top) as it:
                for entry in it:
                    entries += 1
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    total += st.st_blocks * 512
                    if stat.S_ISDIR(st.st_mode):
                        stack.append(entry.path)
                    if entries >= max_entries:
                        break
        except OSError:
            continue
    return total, entries


def process_tree(pid: int) -> set[int]:
    """``pid`` and its descendants now, from each thread's ``children`` file
    (no scan of all of /proc). Never raises."""
    found = {pid}
    todo = [pid]
    while todo and len(found) < 4096:
        top = todo.pop()
        try:
            tids = os.listdir(f"/proc/{top}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{top}/task/{tid}/children", "rb") as fh:
                    kids = [int(x) for x in fh.read().split()]
            except (OSError, ValueError):
                continue
            for kid in kids:
                if kid not in found:
                    found.add(kid)
                    todo.append(kid)
    return found


def pss_kb(pid: int) -> int:
    """A process's proportional set size in kB (its resident size where
    smaps_rollup cannot be read); 0 when it is gone."""
    for name, field in (("smaps_rollup", b"Pss:"), ("status", b"VmRSS:")):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as fh:
                for line in fh:
                    if line.startswith(field):
                        return int(line.split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return 0


def held_unlinked(pids: set[int], unknown_size: int) -> int:
    """Bytes of files that ``pids`` keep alive after they were unlinked (open
    descriptors, memory files, mappings): the work dir's usage never shows
    them. Each file counts once. A deleted mapping whose size cannot be read
    (reading it needs root) counts as ``unknown_size`` (the largest file the
    child may write). Never raises."""
    seen: set[tuple[str, int]] = set()
    total = 0
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            fds = []
        for fd in fds:
            try:
                st = os.stat(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if st.st_nlink == 0 and stat.S_ISREG(st.st_mode):
                key = (f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}", st.st_ino)
                if key not in seen:
                    seen.add(key)
                    total += max(st.st_blocks * 512, st.st_size)
        try:
            with open(f"/proc/{pid}/maps", "rb") as fh:
                maps = fh.read(1 << 20).splitlines()
        except OSError:
            continue
        for line in maps:
            if not line.endswith(b" (deleted)"):
                continue
            parts = line.split(None, 5)
            if len(parts) < 6 or not parts[5].startswith(b"/"):
                continue
            try:
                key = (parts[3].decode("ascii"), int(parts[4]))
            except (UnicodeDecodeError, ValueError):
                continue
            if key in seen:
                continue
            seen.add(key)
            try:
                st = os.stat(f"/proc/{pid}/map_files/{parts[0].decode('ascii')}")
                total += max(st.st_blocks * 512, st.st_size)
            except (OSError, UnicodeDecodeError):
                total += unknown_size
    return total


def remove_tree(path: str) -> bool:
    """Remove ``path`` and everything below it, whatever its depth or modes.
    Never raises; True when it is gone. Works on file descriptors, one
    directory open at a time, so neither the path length nor the open-file
    limit bounds the depth."""
    try:
        shutil.rmtree(path)
        return True
    except (OSError, RecursionError):
        pass
    try:
        _remove_deep(path)
    except (OSError, RecursionError):
        pass
    return not os.path.lexists(path)


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


def _remove_deep(path: str) -> None:
    os.chmod(path, 0o700)
    cur = os.open(path, _DIR_FLAGS)
    names: list[str] = []  # the way down from path, by name
    try:
        while True:
            sub = None
            with os.scandir(cur) as it:
                for entry in it:
                    if entry.is_dir(follow_symlinks=False):
                        sub = entry.name
                        break
                    try:
                        os.unlink(entry.name, dir_fd=cur)
                    except FileNotFoundError:
                        pass
            if sub is not None:
                try:
                    os.chmod(sub, 0o700, dir_fd=cur)
                except OSError:
                    pass
                nxt = os.open(sub, _DIR_FLAGS, dir_fd=cur)
                os.close(cur)
                cur = nxt
                names.append(sub)
                continue
            if not names:
                break
            up = os.open("..", _DIR_FLAGS, dir_fd=cur)
            os.close(cur)
            cur = up
            os.rmdir(names.pop(), dir_fd=cur)
    finally:
        os.close(cur)
    os.rmdir(path)


#: Programs that call ``kill(-1, SIGKILL)``, tried in order: procps' kill, and
#: the shell's built-in kill where procps is missing (then the sandbox's own
#: interpreter, see ``kill_uid``).
_KILLERS = tuple(
    argv
    for argv in (
        [shutil.which("kill", path="/usr/bin:/bin") or "", "-KILL", "-1"],
        [shutil.which("sh", path="/usr/bin:/bin") or "", "-c", "kill -KILL -1"],
    )
    if argv[0]
)


def uid_processes(uid: int) -> list[int]:
    """Live processes (zombies aside) whose real, effective or saved uid is
    ``uid``, read from /proc/<pid>/status (which, unlike the owner of /proc/<pid>,
    a process cannot hide by making itself undumpable). Never raises."""
    return _uid_census(uid)[0]


def uid_zombies(uid: int) -> int:
    """Dead, unreaped processes of ``uid`` (orphans wait for the machine's init
    to reap them: up to 2 s on some). Each still counts against the uid's
    RLIMIT_NPROC, so the next run on that uid would find forks refused
    (``BlockingIOError``) before it reached its own allowance. Never raises."""
    return _uid_census(uid)[1]


def _uid_census(uid: int) -> tuple[list[int], int]:
    """(live pids, count of zombies) of ``uid``."""
    found: list[int] = []
    dead = 0
    want = str(uid).encode()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found, dead
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", "rb") as fh:
                status = fh.read(2048)
        except OSError:
            continue
        at = status.find(b"\nUid:")
        if at < 0 or want not in status[at + 5 : status.find(b"\n", at + 5)].split()[:3]:
            continue
        at = status.find(b"\nState:")
        if at >= 0 and status[at + 7 : at + 16].split()[:1] in ([b"Z"], [b"X"]):
            dead += 1
            continue
        found.append(int(entry))
    return found, dead


def _wait_exit(pids: list[int], until: float) -> None:
    """Wait (on pidfds, not by polling) until each of ``pids`` has ended or
    ``until`` (monotonic) has passed."""
    fds: list[int] = []
    for pid in pids:
        try:
            fds.append(os.pidfd_open(pid))
        except (OSError, AttributeError):
            continue
    try:
        poller = select.poll()
        for fd in fds:
            poller.register(fd, select.POLLIN)
        pending = len(fds)
        while pending and time.monotonic() < until:
            ready = poller.poll(max(0.0, until - time.monotonic()) * 1000)
            for fd, _ev in ready:
                poller.unregister(fd)
                pending -= 1
    finally:
        for fd in fds:
            os.close(fd)


def kill_uid(uid: int, interpreter: str | None = None, limit: float = 3.0) -> bool:
    """Kill every process of ``uid`` (root only; the uid is one run's alone): a
    process of that uid calls ``kill(-1, SIGKILL)``, which the kernel delivers
    to all of them in one pass that a fork cannot slip past (a process with a
    pending SIGKILL cannot fork), so a process that keeps changing its pid is
    caught too. Repeated until /proc shows none of that uid alive, for at most
    ``limit`` seconds. ``interpreter`` (one that uid can execute) is the last
    resort when neither procps nor a shell is installed. True when none is
    left. Never raises."""
    killers = list(_KILLERS)
    if interpreter:
        killers.append([interpreter, "-I", "-S", "-c", "import os, signal; os.kill(-1, signal.SIGKILL)"])
    until = time.monotonic() + limit
    while True:
        for argv in killers:
            try:
                cmd, kwargs = as_uid(argv, uid)
                subprocess.run(
                    cmd,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    close_fds=True,
                    env={"PATH": "/usr/bin:/bin"},
                    timeout=max(0.1, until - time.monotonic()),
                    **kwargs,
                )
                break
            except (OSError, subprocess.SubprocessError, ValueError):
                continue
        left = uid_processes(uid)
        if not left:
            return True
        if time.monotonic() >= until:
            return False
        # They were killed; a dying process needs a moment to end.
        _wait_exit(left, min(until, time.monotonic() + 0.2))
        if not uid_processes(uid):
            return True
