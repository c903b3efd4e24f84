"""Finding the strongest isolation this machine offers, once per process.

Layers, each optional, on top of the always-present process limits (rlimits,
own process group, scrubbed environment, fresh work directory):

- ``bwrap``: bubblewrap; no network, read-only system, private /tmp, pid
  namespace (everything dies with the child), ``--die-with-parent``.
- ``seccomp``: a syscall deny-list loaded by the child before untrusted code
  (Debian ``python3-seccomp``, importable by the child's interpreter).
- ``landlock``: where there is no bwrap, a Landlock ruleset (Linux 5.13+, no
  privilege needed) the child loads before untrusted code: it may read only
  the system directories and its own /proc entry, and write only its work dir,
  so neither the user's files nor the app's command line (which names the
  tests file) can be opened, whatever their permissions.
- ``uid``: when the app runs as root, the child runs as an unprivileged uid of
  its own (RLIMIT_NPROC does not bind root, and root can read and delete
  anything); needs an interpreter that uid can execute.

Each layer is verified by starting a real child, not only by looking for files.
"""

from __future__ import annotations

import functools
import grp
import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field, fields

from ..jsontypes import JSONObject
from . import cgroups
from .config import FORKS_FIND_LOADED, ISOLATION_ENV, LAYERS, SandboxConfig, parse_layers
from .harness.wire import Job
from .launch import LANDLOCK_READ, Launch, SandboxUnavailable, child_env, compiled_harness
from .watchdog import BOOT_TIMEOUT, Child

#: Start of the uid range the sandbox uses when it drops root; override with
#: QFLOW_SANDBOX_UID_BASE. Each concurrent run gets a uid of its own so one run's
#: fork bomb cannot use up another's process limit, and the post-run sweep kills
#: exactly that run's processes. Each app process takes its own block of
#: MAX_SLOTS uids, chosen by its pid (unique among live processes), so several
#: apps (or test runs) on one machine never share a uid.
DEFAULT_UID_BASE = 1_900_000_000
MAX_SLOTS = 64
#: The last uid of the block is no slot's: the zygote's (see ``zygote``), so
#: that no sweep of a slot's uid reaches it or its forks.
ZYGOTE_SLOT = MAX_SLOTS - 1
SECCOMP_DIRS = ("/usr/lib/python3/dist-packages",)


@dataclass(frozen=True)
class Isolation:
    layers: frozenset[str]
    """The layers in use, a subset of ``bwrap``, ``seccomp``, ``uid``."""
    label: str
    """Short human label, e.g. ``bwrap+seccomp+uid`` or ``rlimits only (no bwrap)``."""
    interpreter: str
    bwrap: str | None
    seccomp_path: tuple[str, ...] | None
    uid_base: int | None
    slots: int
    """How many children may run at once (one uid each when dropping root)."""
    network_blocked: bool
    landlock_read: tuple[str, ...] | None = None
    """What a Landlock-confined child may read (None: no Landlock layer)."""
    landlock_abi: int = 0
    """The kernel's Landlock ABI version when the layer is in use (6 and later
    also keep abstract Unix sockets and signals inside the sandbox)."""
    packages: tuple[str, ...] = ()
    """Directories put on the import path of every sandboxed process (see
    ``JUDGED_PACKAGES``): where the interpreter's numpy is installed. Read-only
    at every level (under /usr, which every level lets a program read, or
    bound read-only)."""
    package_versions: tuple[tuple[str, str], ...] = ()
    """The packages of ``JUDGED_PACKAGES`` a judged program can import, with
    their versions (what ``qflow doctor`` shows)."""
    notes: tuple[str, ...] = ()
    """Why a layer is missing, one line each."""
    found: dict[str, str] = field(default_factory=dict, compare=False)
    """What each layer found, for ``qflow doctor``."""

    def __hash__(self) -> int:
        """The hash of the fields it is compared by, worked out once: an
        isolation is part of every warm child's kind, hashed at each look
        into the pool (thousands a bench), and never changes."""
        cached: int | None = self.__dict__.get("_hash")
        if cached is None:
            cached = hash(tuple(getattr(self, f.name) for f in fields(self) if f.compare))
            object.__setattr__(self, "_hash", cached)
        return cached

    def __getstate__(self) -> dict[str, object]:
        """Its fields without the kept hash: a string's hash differs from one
        process to the next, so a copy in another process works out its own."""
        state = dict(self.__dict__)
        state.pop("_hash", None)
        return state

    def uid_for(self, slot: int) -> int | None:
        """The uid of ``slot`` for this app process (computed per call, so a
        forked app process gets its own block)."""
        if self.uid_base is None:
            return None
        return process_uid_block(self.uid_base) + slot

    def launch(
        self, slot: int, disk_mb: int = 64, cgroup: bool = True, preload: tuple[str, ...] = FORKS_FIND_LOADED
    ) -> Launch:
        uid = self.uid_for(slot)
        bind = _binds(self.interpreter, self.packages) if self.bwrap else ()
        return Launch(
            interpreter=self.interpreter,
            bwrap=self.bwrap,
            bind_ro=bind,
            uid=uid,
            zygote_uid=self.uid_for(ZYGOTE_SLOT),
            seccomp_path=self.seccomp_path,
            sweep_uid=uid is not None and self.bwrap is None,
            disk_mb=disk_mb,
            landlock=self.landlock_read,
            cgroup=cgroup,
            packages=self.packages,
            preload=preload,
        )

    def judged_programs(self) -> str:
        """What a judged program runs on and can import, one line (``qflow doctor``)."""
        has = ", ".join(f"{name} {version}" for name, version in self.package_versions)
        where = f" from {', '.join(self.packages)}, read-only" if self.packages else ""
        missing = [name for name in JUDGED_PACKAGES if name not in dict(self.package_versions)]
        line = f"{self.interpreter}: the standard library" + (f" and {has}{where}" if has else "")
        if missing:
            line += f"; no {', '.join(missing)} ({PACKAGES_HINT})"
        return line

    def protects(self, cgroup: bool = False) -> dict[str, bool]:
        """What this level guarantees, by threat (used by doctor and tests);
        ``cgroup``: each child runs in a memory and pids cgroup of its own."""
        has = self.layers.__contains__
        root = os.geteuid() == 0
        return {
            "runaway time, memory, output, file size": True,
            # RLIMIT_NPROC binds only a uid that is not root; a pids cgroup binds all.
            "process count (fork bomb)": has("uid") or not root or cgroup,
            # memfd files, shared memory and files on tmpfs (/dev/shm): a cgroup
            # counts them all; else bwrap's sized mounts or Landlock's write-only-
            # the-work-dir, where the disk cap counts what is unlinked (memfds too).
            "memory outside RLIMIT_AS (memfd, /dev/shm)": cgroup or has("bwrap") or has("landlock"),
            # Only bwrap's sized mounts or Landlock keep every write inside what
            # the cap measures; elsewhere /tmp and /dev/shm stay writable.
            "disk beyond the cap (unlinked files, /tmp)": has("bwrap") or has("landlock"),
            "network": has("bwrap") or has("seccomp"),
            "signals to the app / other processes": has("bwrap") or has("seccomp") or has("uid"),
            # seccomp refuses setsid/setpgid (the group kill reaches all); a uid
            # of its own is swept with kill(-1); bwrap's pid namespace ends all.
            "orphan processes": has("bwrap") or has("seccomp") or has("uid") or cgroup,
            "reading/deleting your files": has("bwrap") or has("landlock") or has("uid"),
            # A uid of its own still reads what every user may read: the app's
            # /proc/<pid>/cmdline (the --tests path) and a world-readable file
            # there. Only a mount namespace or Landlock hides them.
            "the app's command line and world-readable files": has("bwrap") or has("landlock"),
            # seccomp refuses socket(); bwrap's network namespace has its own
            # abstract sockets and shows no host socket file. Landlock (ABI 6)
            # stops only abstract sockets: a socket file any user may write
            # (e.g. /run/dbus/system_bus_socket) stays reachable.
            "unix sockets of host services": has("bwrap") or has("seccomp"),
            "secrets in the app's environment": True,
            # Without bwrap or a uid, the app makes itself undumpable, which
            # hides its /proc from a child of the same (non-root) user.
            "the app's /proc (environ, memory)": has("bwrap") or has("landlock") or has("uid") or not root,
        }


class WeakLevelRefused(SandboxUnavailable):
    """A run as root asked for a level that cannot keep a judged program from
    signalling every process, without the second setting that accepts it."""


#: Set to ``1`` to let a run as root use a level at which a judged program can
#: signal every process (see :func:`weak_refusal`): the explicit second setting.
WEAK_AS_ROOT_ENV = "QFLOW_SANDBOX_WEAK_AS_ROOT"
#: The claim whose absence makes a level weak.
_SIGNALS = "signals to the app / other processes"


def weak_warning(iso: Isolation) -> str | None:
    """One line to show in red wherever a run is prepared (``qflow doctor``,
    the compose screen) when ``iso`` cannot stop a judged program from
    signalling every process of its user, and what else it cannot stop; None
    for a level that can."""
    claims = iso.protects()
    if claims[_SIGNALS]:
        return None
    whom = (
        "every process on this machine (qflow runs as root)"
        if os.geteuid() == 0
        else "every process of your user, qflow and your shell included"
    )
    files = "" if claims["reading/deleting your files"] else " and read or delete your files"
    asked = os.environ.get(ISOLATION_ENV, "").strip()
    advice = (
        f"{ISOLATION_ENV}={asked} asks for it: unset it for the strongest level this machine offers"
        if asked and asked.lower() != "auto"
        else "install bubblewrap for a strong level (`qflow doctor` shows what is missing)"
    )
    return f"weak sandbox: at {_level(iso)} a judged program can kill {whom} with kill(-1, SIGKILL){files}; {advice}"


def _level(iso: Isolation) -> str:
    """The level's label without what it says of how it was chosen."""
    return iso.label.split(" (", 1)[0]


def weak_refusal(iso: Isolation) -> str | None:
    """Why a run as root may not use ``iso`` without :data:`WEAK_AS_ROOT_ENV`
    (one line), or None when it may."""
    if os.geteuid() != 0 or iso.protects()[_SIGNALS] or os.environ.get(WEAK_AS_ROOT_ENV, "").strip() == "1":
        return None
    asked = os.environ.get(ISOLATION_ENV, "").strip()
    risk = (
        f"judged programs would run as root with nothing but limits ({_level(iso)}), and one that calls "
        "kill(-1, SIGKILL) ends every process on this machine"
    )
    if asked and asked.lower() != "auto":
        return (
            f"{ISOLATION_ENV}={asked} as root: {risk}; set {WEAK_AS_ROOT_ENV}=1 as well to accept "
            f"that risk, or unset {ISOLATION_ENV} for the strongest level this machine offers"
        )
    return (
        f"the strongest sandbox level this machine offers is {_level(iso)}, and as root {risk}: install "
        f"bubblewrap (or a system python3, for the uid layer), or set {WEAK_AS_ROOT_ENV}=1 to accept that risk"
    )


def run_slots(cgroup: bool) -> int:
    """How many children may run at once: two per run (the program's and its
    oracle's), and twice as many runs as cores where cgroups bound each
    child's memory, so that a run's waits (a child's start, its calls relayed
    through the app) leave no core idle: on 2 cores, 4 runs in flight kept the
    cores 96% busy judging HumanEval, 2 kept them 72% busy. Without cgroups
    the memory bound is RLIMIT_AS per process times RLIMIT_NPROC per run, so
    more runs would lower every process's cap: as many runs as cores there."""
    cores = os.cpu_count() or 2
    return min(ZYGOTE_SLOT, max(8, 4 * cores) if cgroup else max(4, 2 * cores))


def process_uid_block(base: int) -> int:
    """First uid of this process's block: pids are unique among live processes."""
    return base + (os.getpid() % (1 << 22)) * MAX_SLOTS  # stays below 2**32 - 1 for base < 4e9


#: Every uid an app process may use: one block of MAX_SLOTS per pid value.
UID_RANGE = (1 << 22) * MAX_SLOTS


def accounts_in_uid_range(base: int) -> list[str]:
    """Accounts (user or group) whose id falls in the sandbox's uid range: the
    sweep kills every process of a sandbox uid, so no account may have one."""
    found: list[str] = []
    try:
        found += [f"user {p.pw_name} ({p.pw_uid})" for p in pwd.getpwall() if base <= p.pw_uid < base + UID_RANGE]
        found += [f"group {g.gr_name} ({g.gr_gid})" for g in grp.getgrall() if base <= g.gr_gid < base + UID_RANGE]
    except OSError:
        pass
    return found


def _prefix(interpreter: str) -> str:
    return os.path.dirname(os.path.dirname(os.path.realpath(interpreter)))


@functools.lru_cache(maxsize=16)
def _binds(interpreter: str, packages: tuple[str, ...]) -> tuple[str, ...]:
    """What bwrap binds read-only besides the system directories: the
    interpreter's prefix and the package directories, when outside /usr.
    Worked out once per interpreter and packages: resolving the interpreter's
    links is a walk of its path, and every child of a bench was launched
    with it (detection, which finds the packages, is cached the same way)."""
    extra = [_prefix(interpreter), *packages]
    return tuple(dict.fromkeys(d for d in extra if d != "/usr" and not d.startswith("/usr/")))


#: The packages a judged program may import besides the standard library:
#: what the reference harnesses' environments offer (EvalPlus requires numpy;
#: human-eval's users run it where numpy is installed).
JUDGED_PACKAGES = ("numpy",)
#: How to give the sandbox's interpreter numpy.
PACKAGES_HINT = "install python3-numpy (Debian/Ubuntu) for programs that import it; EvalPlus's environment has it"

#: Run by the sandbox's interpreter, with its site (no user site): where each
#: package is installed and its version, as JSON; nothing is imported. The
#: version is read from the one ``NAME-*.dist-info`` or ``.egg-info`` beside the
#: package, as ``importlib.metadata`` reads it; only where there is not exactly
#: one is ``importlib.metadata`` asked (importing it is most of this script's
#: time, and the sandbox's detection waits for the script).
_FIND_PACKAGES = (
    "import importlib.util, json, os, sys\n"
    "def norm(name):\n"
    "    return name.lower().replace('-', '_').replace('.', '_')\n"
    "def beside(name, where):\n"
    "    found = []\n"
    "    try:\n"
    "        entries = os.listdir(where)\n"
    "    except OSError:\n"
    "        return None\n"
    "    for entry in entries:\n"
    "        stem, _, kind = entry.rpartition('.')\n"
    "        if kind not in ('dist-info', 'egg-info') or norm(stem.split('-')[0]) != norm(name):\n"
    "            continue\n"
    "        path = os.path.join(where, entry)\n"
    "        if os.path.isdir(path):\n"
    "            path = os.path.join(path, 'METADATA' if kind == 'dist-info' else 'PKG-INFO')\n"
    "        try:\n"
    "            with open(path, encoding='utf-8', errors='replace') as f:\n"
    "                for line in f:\n"
    "                    if not line.strip():\n"
    "                        break\n"
    "                    if line.startswith('Version:'):\n"
    "                        found.append(line[8:].strip())\n"
    "                        break\n"
    "        except OSError:\n"
    "            pass\n"
    "    return found[0] if len(found) == 1 and found[0] else None\n"
    "out = {}\n"
    "for name in sys.argv[1:]:\n"
    "    spec = importlib.util.find_spec(name)\n"
    "    if spec is None or not spec.submodule_search_locations:\n"
    "        continue\n"
    "    where = os.path.dirname(list(spec.submodule_search_locations)[0])\n"
    "    version = beside(name, where)\n"
    "    if version is None:\n"
    "        try:\n"
    "            import importlib.metadata\n"
    "            version = importlib.metadata.version(name)\n"
    "        except Exception:\n"
    "            version = '?'\n"
    "    out[name] = [version, where]\n"
    "print(json.dumps(out))\n"
)


def find_packages(interpreter: str) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """Where ``interpreter`` has the packages of ``JUDGED_PACKAGES`` (the
    directories to put on a judged program's import path) and their versions;
    empty where it has none. Only directories every uid may read count: a
    dropped uid must import from them too."""
    try:
        done = subprocess.run(
            [interpreter, "-I", "-c", _FIND_PACKAGES, *JUDGED_PACKAGES],
            capture_output=True,
            env=child_env("/"),
            timeout=30,
        )
        found = json.loads(done.stdout.decode("utf-8", "replace") or "{}")
    except (OSError, subprocess.SubprocessError, ValueError):
        return (), ()
    dirs: list[str] = []
    versions: list[tuple[str, str]] = []
    for name in JUDGED_PACKAGES:
        entry = found.get(name) if isinstance(found, dict) else None
        if not (isinstance(entry, list) and len(entry) == 2 and all(isinstance(x, str) for x in entry)):
            continue
        version, where = entry
        if not os.path.isabs(where) or not _world_readable(os.path.join(where, name)):
            continue
        versions.append((name, version))
        if where not in dirs:
            dirs.append(where)
    return tuple(dirs), tuple(versions)


def _world_readable(path: str) -> bool:
    """Can an unrelated uid read ``path`` (a directory) and reach it?"""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return bool(st.st_mode & stat.S_IROTH and st.st_mode & stat.S_IXOTH) and _world_executable_dirs(path)


def _world_executable_dirs(path: str) -> bool:
    d = os.path.dirname(os.path.realpath(path))
    while True:
        try:
            if not os.stat(d).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
        if d == "/":
            return True
        d = os.path.dirname(d)


def _world_executable(path: str) -> bool:
    """Can an unrelated uid execute ``path`` (every directory searchable)?"""
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except OSError:
        return False
    if not (st.st_mode & stat.S_IXOTH and st.st_mode & stat.S_IROTH):
        return False
    d = os.path.dirname(real)
    while True:
        try:
            if not os.stat(d).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
        if d == "/":
            return True
        d = os.path.dirname(d)


def _interpreters() -> list[str]:
    """System interpreters first: the seccomp binding is built for them and
    another uid can execute them; then the app's own (e.g. pyenv)."""
    out: list[str] = []
    minor = f"/usr/bin/python3.{sys.version_info.minor}"
    base = getattr(sys, "_base_executable", None) or sys.executable
    for cand in (minor, "/usr/bin/python3", os.path.realpath(base), os.path.realpath(sys.executable)):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK) and cand not in out:
            out.append(cand)
    return out


def _probe(launch: Launch) -> tuple[JSONObject | None, str]:
    job: Job = {
        "mode": "probe",
        "limits": {},
        "seccomp": ({"path": list(launch.seccomp_path)} if launch.seccomp_path is not None else None),
    }
    try:
        child = Child(launch, job, max_output=1 << 16, max_line=1 << 16)
    except (SandboxUnavailable, OSError) as exc:
        return None, str(exc)
    try:
        deadline = time.monotonic() + BOOT_TIMEOUT
        hello = child.receive(BOOT_TIMEOUT, deadline)
        done = child.receive(5.0, deadline) if hello is not None else None
    finally:
        child.close()
    if hello is None or hello.get("k") != "hello" or done is None or done.get("k") != "done":
        err = bytes(child.stderr).decode("utf-8", "replace").strip().splitlines()
        return None, (err[-1] if err else child.detail or child.end)
    # A hello is JSON alone (no raw value follows its line).
    return {k: v for k, v in hello.items() if not isinstance(v, bytes)}, ""


def landlock_read(
    interpreter: str, seccomp_dirs: tuple[str, ...] | None, packages: tuple[str, ...] = ()
) -> tuple[str, ...]:
    """What a Landlock-confined child may read: the system directories, the
    interpreter's prefix, the seccomp binding and the package directories
    (when outside /usr)."""
    extra = [
        d for d in (_prefix(interpreter), *(seccomp_dirs or ()), *packages) if d != "/usr" and not d.startswith("/usr/")
    ]
    return LANDLOCK_READ + tuple(dict.fromkeys(extra))


def _seccomp_dirs() -> tuple[str, ...] | None:
    dirs = tuple(d for d in SECCOMP_DIRS if os.path.isdir(d) and any(n.startswith("seccomp") for n in os.listdir(d)))
    return dirs or None


def _detect(spec: str) -> Isolation:
    wanted = parse_layers(spec)
    forced = wanted is not None
    want = set(LAYERS) if wanted is None else wanted
    notes: list[str] = []
    found: dict[str, str] = {}
    root = os.geteuid() == 0

    interps = _interpreters()
    if not interps:
        raise SandboxUnavailable("no Python interpreter found to run sandboxed code")
    found["interpreters"] = ", ".join(interps)

    bwrap = shutil.which("bwrap") if "bwrap" in want else None
    found["bwrap"] = bwrap or ("not wanted" if "bwrap" not in want else "not installed")
    if "bwrap" in want and not bwrap:
        notes.append("no bwrap: install bubblewrap for no network, a read-only system and a pid namespace")
    sec_dirs = _seccomp_dirs() if "seccomp" in want else None
    if "seccomp" in want and sec_dirs is None:
        found["seccomp"] = "python3-seccomp not installed"
        notes.append("no seccomp: install python3-seccomp (Debian/Ubuntu) for the syscall filter")
    use_uid = "uid" in want and root
    if "uid" in want and not root:
        found["uid"] = "not root: runs as your own uid"

    slots = run_slots(cgroups.support().version > 0)
    uid_base = None
    if use_uid:
        base = int(os.environ.get("QFLOW_SANDBOX_UID_BASE", DEFAULT_UID_BASE))
        taken = accounts_in_uid_range(base)
        if taken:
            use_uid = False
            found["uid"] = f"not used: the sandbox's uids are taken ({', '.join(taken[:3])})"
            notes.append(
                f"no uid drop: {', '.join(taken[:3])} in the sandbox's uid range {base}..{base + UID_RANGE - 1}; "
                "set QFLOW_SANDBOX_UID_BASE to a free range"
            )
        else:
            uid_base = base

    # Try the strongest combination first, then drop layers that fail to start.
    attempts: list[tuple[str | None, bool, str]] = []
    for b in [bwrap, None] if bwrap else [None]:
        for u in [True, False] if use_uid else [False]:
            for interp in interps:
                if u and not _world_executable(interp):
                    continue
                attempts.append((b, u, interp))
    if attempts:
        # The first probe's interpreter's compiled harness (a process of its
        # own) is made while its packages are listed (another): the probe needs both.
        compiling = threading.Thread(target=compiled_harness, args=(attempts[0][2],), name="qflow-harness-compile")
        compiling.daemon = True
        compiling.start()
    chosen = None
    errors: list[str] = []
    landlock_wanted = "landlock" in want
    packages: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str], ...]]] = {}
    for b, u, interp in attempts:
        if interp not in packages:
            packages[interp] = find_packages(interp)
        dirs = packages[interp][0]
        # auto adds Landlock only without bwrap, whose mount namespace already
        # hides the host's files and processes.
        ll = landlock_read(interp, sec_dirs, dirs) if landlock_wanted and (b is None or forced) else None
        launch = Launch(
            interpreter=interp,
            bwrap=b,
            bind_ro=_binds(interp, dirs) if b else (),
            uid=process_uid_block(uid_base) if u and uid_base is not None else None,
            seccomp_path=sec_dirs,
            sweep_uid=bool(u and b is None),
            landlock=ll,
            packages=dirs,
        )
        hello, err = _probe(launch)
        if hello is None:
            errors.append(f"{'bwrap ' if b else ''}{'uid ' if u else ''}{interp}: {err}")
            continue
        chosen = (b, u, interp, hello, ll)
        break
    if chosen is None:
        raise SandboxUnavailable("the sandbox child could not start: " + "; ".join(errors))
    b, u, interp, hello, ll = chosen
    layers = set()
    if b:
        layers.add("bwrap")
    elif bwrap:
        notes.append(f"bwrap is installed but failed: {errors[0] if errors else '?'}")
        found["bwrap"] = f"{bwrap} (failed to start)"
    if u:
        layers.add("uid")
        first = process_uid_block(uid_base)  # type: ignore[arg-type]
        found["uid"] = (
            f"drops root to uids {first}..{first + slots - 1} (one per child running at once, a block per app process)"
        )
    elif use_uid:
        notes.append(
            "running as root without a uid drop: no interpreter another uid can execute "
            "(install python3 from the system packages)"
        )
        found["uid"] = "no world-executable interpreter"
    elif "uid" in want and root is False:
        pass
    elif "uid" not in want:
        found["uid"] = "not wanted"
    sec = hello.get("seccomp")
    if sec == "ok":
        layers.add("seccomp")
        found["seccomp"] = f"filter loaded (python3-seccomp from {', '.join(sec_dirs or ())})"
    elif sec_dirs is not None:
        found["seccomp"] = f"could not load: {sec}"
        notes.append(f"seccomp binding present but unusable by {interp}: {sec}")
    elif "seccomp" not in want:
        found["seccomp"] = "not wanted"
    lls = hello.get("landlock")
    if ll is not None and isinstance(lls, str) and lls.startswith("abi "):
        layers.add("landlock")
        found["landlock"] = (
            f"filesystem confined (Landlock {lls.replace('abi', 'ABI')}): reads only {', '.join(ll)}; "
            "writes only its work dir"
        )
    elif ll is not None:
        found["landlock"] = f"could not load: {lls}"
        notes.append(f"no landlock: {lls} (Linux 5.13+ with Landlock enabled confines the child's files)")
    elif not landlock_wanted:
        found["landlock"] = "not wanted"
    else:
        found["landlock"] = "not needed: bwrap's mount namespace hides the host's files"
    found["interpreter"] = f"{interp} (Python {hello.get('python')}, child uid {hello.get('uid')})"
    pkg_dirs, pkg_versions = packages.get(interp, ((), ()))

    order = [x for x in LAYERS if x in layers]
    label = "+".join(order) if order else "rlimits only"
    missing = [x for x in LAYERS if x not in layers and (x in want or not forced)]
    if "uid" in missing and not root:
        missing.remove("uid")  # nothing to drop
    if "landlock" in missing and b and not forced:
        missing.remove("landlock")  # bwrap does its job
    if forced and spec.strip().lower() not in ("auto", "full"):
        label += " (forced)"
    elif missing:
        label += " (" + ", ".join(f"no {m}" for m in missing) + ")"
    return Isolation(
        layers=frozenset(layers),
        label=label,
        interpreter=interp,
        bwrap=b,
        seccomp_path=sec_dirs if "seccomp" in layers else None,
        uid_base=uid_base if u else None,
        slots=slots,
        network_blocked=bool(b) or "seccomp" in layers,
        landlock_read=ll if "landlock" in layers else None,
        landlock_abi=int(lls[4:]) if "landlock" in layers and isinstance(lls, str) else 0,
        packages=pkg_dirs,
        package_versions=pkg_versions,
        notes=tuple(notes),
        found=found,
    )


_cache: dict[str, Isolation] = {}
_cache_lock = threading.Lock()


def detect_isolation(spec: str | None = None) -> Isolation:
    """The isolation for ``spec`` (see ``SandboxConfig.isolation``; default:
    the config's, i.e. auto or ``QFLOW_SANDBOX_ISOLATION``), detected once per
    process and cached. Raises SandboxUnavailable when no child can start at all."""
    key = (spec if spec is not None else SandboxConfig().effective_isolation()).strip().lower() or "auto"
    with _cache_lock:
        iso = _cache.get(key)
        if iso is None:
            iso = _cache[key] = _detect(key)
        return iso


class SlotPool:
    """Numbered slots, one per concurrently running child (per isolation). A
    run that needs two children takes both at once, so runs waiting for a
    second slot cannot starve each other."""

    def __init__(self, n: int):
        self.size = n
        self._free = list(range(n))
        self._cond = threading.Condition()

    def acquire(self, n: int = 1) -> list[int]:
        with self._cond:
            while len(self._free) < n:
                self._cond.wait()
            taken, self._free = self._free[:n], self._free[n:]
            return taken

    def try_acquire(self, n: int = 1) -> list[int] | None:
        """``n`` slots at once if they are free now, else None."""
        with self._cond:
            if len(self._free) < n:
                return None
            taken, self._free = self._free[:n], self._free[n:]
            return taken

    def free(self) -> int:
        """Slots free now."""
        with self._cond:
            return len(self._free)

    def wait_free(self, n: int, timeout: float | None = None) -> bool:
        """Wait until ``n`` slots are free (they may be taken again at once),
        at most ``timeout`` seconds; False when it passed first."""
        with self._cond:
            return self._cond.wait_for(lambda: len(self._free) >= n, timeout)

    def release(self, slots: list[int]) -> None:
        with self._cond:
            self._free.extend(slots)
            self._cond.notify_all()


_pools: dict[tuple[int | None, int], SlotPool] = {}


def slot_pool(iso: Isolation) -> SlotPool:
    # All isolations share uids, so pools are keyed by the uid range, not the label.
    key = (iso.uid_base, iso.slots)
    with _cache_lock:
        pool = _pools.get(key)
        if pool is None:
            pool = _pools[key] = SlotPool(iso.slots)
        return pool
