"""Helpers for the sandbox tests: sandboxes per isolation level (detection is cached).

``auto`` is the strongest level on the machine (on CI: bwrap+seccomp+uid);
the forced levels exercise the fallback paths on the same machine
(``seccomp+landlock+uid`` is what ``auto`` gives as root without bwrap)."""

from __future__ import annotations

import os

from qflow_tui.core.sandbox import Sandbox, SandboxConfig
from qflow_tui.core.sandbox.launch import owner_tag
from qflow_tui.core.sandbox.pool import warm_pool

#: Short limits keep the adversarial cases fast.
TIMEOUT = 0.5

ROOT = os.geteuid() == 0
LEVELS = ["auto", "seccomp+landlock+uid", "seccomp+uid", "uid", "rlimits"]


def make(level: str, **kw) -> Sandbox:
    return Sandbox(SandboxConfig(timeout=kw.pop("timeout", TIMEOUT), isolation=level, **kw))


def live_harness_processes() -> list[int]:
    """This test process's sandbox children (and forks of them that kept the
    harness's command line) still alive, zombies aside: found by the owner tag
    every child carries, so other qflow runs on the machine do not count."""
    tag = owner_tag().encode()
    # The pool neither starts nor closes a child while we look: an idle child
    # it closed during the scan would be seen alive and then no longer be its.
    with warm_pool().quiet():
        found = _live_processes(lambda cmd: tag in cmd.split(b"\0"))
        # Idle warm children, started ahead of need, ran no program. Listed
        # after the scan: a booting one forks its guardian at any moment.
        warm = warm_pool().idle_pids()
    return [pid for pid in found if pid not in warm]


def leftover_files(folder) -> list:
    """What is in ``folder`` besides the work dirs of idle warm children
    (started ahead of need, no program ran in them)."""
    with warm_pool().quiet():  # none is made or removed while we look
        found = list(folder.iterdir())
        warm = warm_pool().idle_workdirs()  # after the listing: one may be booting
    return [p for p in found if str(p) not in warm]


def processes_with(token: str) -> list[int]:
    """Live processes whose command line has ``token`` (a value unique to one test)."""
    return _live_processes(lambda cmd: token.encode() in cmd)


def _live_processes(matches) -> list[int]:
    """Processes alive now (zombies aside) whose raw command line ``matches``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read()
            with open(f"/proc/{entry}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if matches(cmd) and state not in (b"Z", b"X"):
            found.append(int(entry))
    return found


def protects(sb: Sandbox, what: str) -> bool:
    return sb.protects()[what]
