"""Run untrusted generated code and tests in limited child processes, with
verdicts decided in the trusted parent. See docs/sandbox.md."""

from .api import CheckingSandbox, SandboxProtocol
from .config import SandboxConfig
from .isolation import WEAK_AS_ROOT_ENV, Isolation, WeakLevelRefused, weak_refusal, weak_warning
from .isolation import detect_isolation as _detect
from .launch import SandboxUnavailable
from .report import SandboxReport, TestOutcome
from .sandbox import Sandbox


def detect_isolation(spec: str | None = None) -> Isolation:
    """The isolation the sandbox uses (``spec`` as in ``SandboxConfig.isolation``;
    default: the config default, i.e. auto or ``QFLOW_SANDBOX_ISOLATION``).
    Cached for the process."""
    return _detect(spec if spec is not None else SandboxConfig().effective_isolation())


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
