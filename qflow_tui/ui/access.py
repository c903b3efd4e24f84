"""What a screen or widget may ask of the running app: its start-up settings,
and the way to another screen.

Screens never import each other to move on: they ask the app
(``qflow_app(self).open_run(...)``), which alone knows every screen. This module
imports no screen and not the app, so nothing in the UI imports in a circle;
:class:`Host` is what :class:`~qflow_tui.ui.app.QFlowApp` provides (the app
module checks it), typed, where Textual types ``self.app`` as ``App[Any]``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypedDict, TypeVar, cast

from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget

if TYPE_CHECKING:  # types only: the core modules are loaded by the screens that use them
    from ..core.app_prefs import AppPrefs
    from ..core.bench.bench_runner import BenchRunner
    from ..core.config import RunConfig
    from ..core.llm import LLMClient
    from ..core.problem import Problem
    from ..core.sandbox import Sandbox
    from ..core.steer.edits import Steering
    from ..core.steer.gate import Breakpoint


_Result = TypeVar("_Result")
"""What a screen hands back when dismissed; nothing here reads it."""


class ReplayOptions(TypedDict, total=False):
    """How the first replay opens (``qflow replay --step N / --play``, ``qflow demo``)."""

    step: int | None
    """The step to open at (1-based); None: the end."""
    play: bool
    """Play the run from its start."""
    intro: bool
    """Show the demo's introduction."""


@dataclass
class LoggedMessage:
    """One notification as the app's log keeps it (Ctrl+L)."""

    at: float
    """Seconds since the app started."""
    severity: str
    title: str
    message: str
    repeats: int = 0
    """How many times more it was said right after."""


class Host(Protocol):
    """The app as its screens see it."""

    config: RunConfig
    """Settings the compose form starts from; each run uses the form's copy."""
    client: LLMClient | None
    """A model client to use instead of building one from the model name (tests, embedding)."""
    sandbox: Sandbox | None
    """A sandbox to use instead of the default one (tests)."""
    clock: Callable[[], float]
    problem_text: str | None
    tests_text: str | None
    entry_point: str | None
    stepping: bool
    breakpoints: list[Breakpoint]
    replay_options: ReplayOptions
    message_log: deque[LoggedMessage]
    prefs: AppPrefs
    """The app's own preferences (the config file's ``[app]`` table; F5 sets them)."""

    def open_run(
        self,
        problem: Problem,
        config: RunConfig,
        *,
        client: LLMClient | None = None,
        own_client: bool = False,
        stepping: bool = False,
        breakpoints: Sequence[Breakpoint] = (),
        steering: Steering | None = None,
        header: Mapping[str, object] | None = None,
    ) -> None:
        """Run ``problem`` live on a new run screen."""
        ...

    def open_replay(self, path: str | Path, *, step: int | None = None) -> None:
        """Replay a session file (at ``step``, 1-based, when given)."""
        ...

    def open_compare(self, a: str | Path, b: str | Path) -> None:
        """Two sessions side by side."""
        ...

    def open_compose(self) -> None:
        """Back to the compose form, cleared for a new problem."""
        ...

    def open_bench(self, runner: BenchRunner | None = None, *, estimate: int | None = None) -> None:
        """Watch a bench live (or estimate it from its first ``estimate`` problems)."""
        ...

    def action_sessions(self) -> None:
        """The sessions browser."""
        ...

    def quit_from(self, screen: Screen[_Result]) -> None:
        """``q`` on ``screen`` (a replay): quit, asking first where it was opened from the app."""
        ...


def qflow_app(node: DOMNode) -> Host:
    """The app ``node`` belongs to, typed as qflow's app."""
    return cast("Host", node.app)


def mark_invalid(screen: DOMNode, field: str | None) -> None:
    """Clear every field's error mark on a form, then mark ``field`` (a widget id)
    and focus it, so the user lands on what to correct."""
    for widget in screen.query(".-invalid"):
        widget.remove_class("-invalid")
    if field:
        target = screen.query_one(f"#{field}", Widget)
        target.add_class("-invalid")
        target.focus()
