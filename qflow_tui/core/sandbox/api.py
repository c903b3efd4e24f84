"""The narrow face of a sandbox: what the workflows and the bench call.

:class:`~qflow_tui.core.sandbox.sandbox.Sandbox` is the one real
implementation (child processes under the machine's isolation); a test double
implements these few members and nothing else. Modelled on inspect_ai's
abstract ``SandboxEnvironment``: a handful of operations, each returning a
finished report, with everything about processes, limits and the wire kept
behind them.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from .config import SandboxConfig
from .report import SandboxReport
from .truth import TruthFile


@runtime_checkable
class SandboxProtocol(Protocol):
    """A place where untrusted programs are judged, as a workflow uses one.

    The workflows call :meth:`run_tests` and :meth:`check_values` and read
    :attr:`isolation` (the label a session records) and :attr:`config` (an I/O
    problem's judge makes a sandbox of its own from it, with the problem's
    limits)."""

    @property
    def isolation(self) -> str:
        """The isolation level's label (``bwrap+seccomp+uid``, ...)."""
        ...

    @property
    def config(self) -> SandboxConfig:
        """The settings every run of this sandbox uses."""
        ...

    async def run_tests(
        self,
        program: str,
        tests: list[str],
        entry_point: str | None = None,
        setup: str = "",
        *,
        trusted_tests: bool = False,
    ) -> SandboxReport:
        """``program`` against each assert of ``tests``; ``trusted_tests``: the
        tests and the setup are a dataset's own, never generated code."""
        ...

    async def check_values(
        self, items: list[tuple[str, str]], entry_point: str | None = None, setup: str = ""
    ) -> SandboxReport:
        """Imagined-execution verdicts: each ``(assert_src, value_src)`` judged
        with the call under test replaced by the value; no program is loaded."""
        ...


@runtime_checkable
class CheckingSandbox(SandboxProtocol, Protocol):
    """A sandbox the bench's evaluator judges with: a workflow's sandbox that
    also runs a dataset's whole check function, and says (:meth:`protects`,
    :attr:`interpreter`) whether a ground truth it kept on disk can be trusted."""

    @property
    def interpreter(self) -> str:
        """The Python interpreter the judged programs run on."""
        ...

    def protects(self) -> dict[str, bool]:
        """What this sandbox guarantees, by threat (``"reading/deleting your
        files"``: no judged program can write the user's files)."""
        ...

    async def run_check(
        self,
        program: str,
        check: str,
        entry_point: str,
        setup: str = "",
        *,
        check_function: str = "check",
        trusted_tests: bool = False,
        truth: TruthFile | None = None,
        load_limit: float | None = None,
    ) -> SandboxReport:
        """A dataset's whole test function (HumanEval's ``check(candidate)``),
        run in a trusted process that calls into the program's process."""
        ...
