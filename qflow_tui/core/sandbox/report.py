"""What a sandbox run returns: one outcome per test plus the run's output."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Literal, TypeVar

Status = Literal["pass", "fail", "error", "timeout"]

_T = TypeVar("_T")
_D = TypeVar("_D")


@dataclass
class TestOutcome:
    """The verdict for one assert."""

    __test__ = False  # not a pytest test class

    test: str
    """The assert's source text, as given."""
    status: Status
    """``pass``, ``fail`` (the assert was false; ``actual`` says what came out),
    ``error`` (something raised, or the program's value could not be judged) or
    ``timeout``."""
    actual: str | None = None
    """``repr`` of the value the call under test produced, when there was one."""
    error: str | None = None
    """Why it did not pass: exception type and message, a short traceback, or
    the sandbox's reason (value not plain, process died, ...)."""
    duration: float = 0.0
    """Seconds spent on this test (as measured in the child, or until the kill)."""

    def to_dict(self) -> dict[str, str | float | None]:
        """The outcome as a JSON object (its fields: text, seconds or null)."""
        return asdict(self)


@dataclass
class SandboxReport:
    """The result of one sandbox call."""

    results: list[TestOutcome] = field(default_factory=list)
    """One outcome per test, in the order the tests were given."""
    load_error: str | None = None
    """Why the program could not be loaded (syntax error, exception or exit at
    import, load timeout); every test then fails with this reason."""
    stdout: str = ""
    """What the untrusted code printed, truncated to the configured cap."""
    stderr: str = ""
    """What the untrusted code wrote to stderr, truncated the same way."""
    duration: float = 0.0
    """Wall-clock seconds for the whole call, process start-ups included."""
    isolation: str = ""
    """Label of the isolation this run used, e.g. ``bwrap+seccomp+uid``."""
    load_time: float | None = None
    """The program's own time to load (its setup and import), as the app
    measured it (see ``clock``), when the run measured it."""
    charged: list[tuple[float, float]] | None = None
    """A dataset's check: the time it charged against each of its rules and
    the rule's limit, ``(seconds, limit)``, when it said (see ``run_check``)."""

    @property
    def passed(self) -> int:
        """How many tests passed."""
        return sum(1 for r in self.results if r.status == "pass")

    @property
    def total(self) -> int:
        """How many tests ran (every one given)."""
        return len(self.results)

    @property
    def all_passed(self) -> bool:
        """Every test passed, and there was at least one."""
        return self.total > 0 and self.passed == self.total

    def to_dict(self) -> dict[str, object]:
        """The report as a JSON object (for a session file or ``--json``)."""
        return {
            "results": [r.to_dict() for r in self.results],
            "load_error": self.load_error,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "passed": self.passed,
            "total": self.total,
            "duration": self.duration,
            "isolation": self.isolation,
            "load_time": self.load_time,
            "charged": [list(pair) for pair in self.charged] if self.charged else None,
        }

    @staticmethod
    def from_dict(data: Mapping[str, object]) -> SandboxReport:
        """Rebuild a report from :meth:`to_dict` output (sessions, replay);
        ValueError for a field of the wrong type."""
        results: list[object] = _field(data, "results", list, [])
        if not all(isinstance(r, dict) for r in results):
            raise ValueError("a report's results must be objects")
        return SandboxReport(
            results=[TestOutcome(**r) for r in results if isinstance(r, dict)],
            load_error=_field(data, "load_error", str, None),
            stdout=_field(data, "stdout", str, ""),
            stderr=_field(data, "stderr", str, ""),
            duration=float(_field(data, "duration", (int, float), 0.0)),
            isolation=_field(data, "isolation", str, ""),
        )


def _field(data: Mapping[str, object], key: str, kind: type[_T] | tuple[type[_T], ...], default: _D) -> _T | _D:
    """``data[key]`` when it is of ``kind``, ``default`` when it is missing or
    null; ValueError otherwise."""
    value = data.get(key)
    if value is None:
        return default
    if not isinstance(value, kind):
        raise ValueError(f"a report's {key!r} has the wrong type ({type(value).__name__})")
    return value
