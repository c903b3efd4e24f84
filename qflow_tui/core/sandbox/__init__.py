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
    from .isolation import detect_isolation as detect_isolation
    from .isolation import weak_refusal as weak_refusal
    from .isolation import weak_warning as weak_warning
    from .launch import SandboxUnavailable as SandboxUnavailable
    from .report import SandboxReport as SandboxReport
    from .report import TestOutcome as TestOutcome
    from .sandbox import Sandbox as Sandbox

#: Each name the package gives, by the module that holds it.
LAZY_NAMES = {
    "CheckingSandbox": "api",
    "SandboxProtocol": "api",
    "SandboxConfig": "config",
    "WEAK_AS_ROOT_ENV": "isolation",
    "Isolation": "isolation",
    "WeakLevelRefused": "isolation",
    "detect_isolation": "isolation",
    "weak_refusal": "isolation",
    "weak_warning": "isolation",
    "SandboxUnavailable": "launch",
    "SandboxReport": "report",
    "TestOutcome": "report",
    "Sandbox": "sandbox",
}

__all__ = sorted(LAZY_NAMES)


def __getattr__(name: str) -> object:
    """A name of :data:`LAZY_NAMES`, from its module (imported the first time).
    Anything else is not here: ``from . import pool`` then loads the submodule."""
    module = LAZY_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value: object = getattr(importlib.import_module(f".{module}", __name__), name)
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *LAZY_NAMES})
