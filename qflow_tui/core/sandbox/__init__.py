"""Run untrusted generated code and tests in limited child processes, with
verdicts decided in the trusted parent. See docs/sandbox.md.

The names below load on first use through this package's ``__getattr__`` (as
the app's screens do, after Textual's ``textual/widgets/__init__.py``): a
bench starts detecting the machine's isolation on a thread of its own as soon
as the few modules detection needs are loaded, before the sandbox's runner
and asyncio, which the rest of the bench's start loads meanwhile."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .api import CheckingSandbox as CheckingSandbox
    from .api import SandboxProtocol as SandboxProtocol
    from .config import SandboxConfig as SandboxConfig
    from .isolation import WEAK_AS_ROOT_ENV as WEAK_AS_ROOT_ENV
    from .isolation import Isolation as Isolation
    from .isolation import WeakLevelRefused as WeakLevelRefused
    from .isolation import detect_configured as detect_isolation
    from .isolation import weak_refusal as weak_refusal
    from .isolation import weak_warning as weak_warning
    from .launch import SandboxUnavailable as SandboxUnavailable
    from .report import SandboxReport as SandboxReport
    from .report import TestOutcome as TestOutcome
    from .sandbox import Sandbox as Sandbox

#: Each name the package gives: the module that holds it, and its name there.
LAZY_NAMES = {
    "CheckingSandbox": ("api", "CheckingSandbox"),
    "SandboxProtocol": ("api", "SandboxProtocol"),
    "SandboxConfig": ("config", "SandboxConfig"),
    "WEAK_AS_ROOT_ENV": ("isolation", "WEAK_AS_ROOT_ENV"),
    "Isolation": ("isolation", "Isolation"),
    "WeakLevelRefused": ("isolation", "WeakLevelRefused"),
    "detect_isolation": ("isolation", "detect_configured"),
    "weak_refusal": ("isolation", "weak_refusal"),
    "weak_warning": ("isolation", "weak_warning"),
    "SandboxUnavailable": ("launch", "SandboxUnavailable"),
    "SandboxReport": ("report", "SandboxReport"),
    "TestOutcome": ("report", "TestOutcome"),
    "Sandbox": ("sandbox", "Sandbox"),
}

__all__ = [
    "WEAK_AS_ROOT_ENV",
    "CheckingSandbox",
    "Isolation",
    "Sandbox",
    "SandboxConfig",
    "SandboxProtocol",
    "SandboxReport",
    "SandboxUnavailable",
    "TestOutcome",
    "WeakLevelRefused",
    "detect_isolation",
    "weak_refusal",
    "weak_warning",
]


def __getattr__(name: str) -> object:
    """A name of :data:`LAZY_NAMES`, from its module (imported the first time).
    Anything else is not here: ``from . import pool`` then loads the submodule."""
    where = LAZY_NAMES.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value: object = getattr(importlib.import_module(f".{where[0]}", __name__), where[1])
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *LAZY_NAMES})
