"""Helpers for the sandbox tests: sandboxes per isolation level (detection is cached).

``auto`` is the strongest level on the machine (on CI: bwrap+seccomp+uid);
the forced levels exercise the fallback paths on the same machine."""

from __future__ import annotations

import os

from qflow_tui.core.sandbox import Sandbox, SandboxConfig

#: Short limits keep the adversarial cases fast.
TIMEOUT = 0.5

ROOT = os.geteuid() == 0
LEVELS = ["auto", "seccomp+uid", "uid", "rlimits"]


def make(level: str, **kw) -> Sandbox:
    return Sandbox(SandboxConfig(timeout=kw.pop("timeout", TIMEOUT), isolation=level, **kw))


def live_harness_processes() -> list[int]:
    """Sandbox children (and anything they forked) still alive, zombies aside."""
    marker = b"The child side of the sandbox"
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
        if marker in cmd and state not in (b"Z", b"X"):
            found.append(int(entry))
    return found


def protects(sb: Sandbox, what: str) -> bool:
    return sb.details.protects()[what]
