"""Screens of the app: compose, run, and (from the sessions side) sessions and replay.

The app paints its first screen (the form, or a bench) before the run, replay,
bench, compare and sessions machinery is imported: those screens are loaded on
first use through this package's ``__getattr__`` (as Textual's
``textual/widgets/__init__.py`` loads its widgets), one table instead of an
import inside each method that opens one. ``screens.RunScreen`` imports
``run_screen`` then; a name imported from its own module works as ever."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .bench import BenchScreen as BenchScreen
    from .compare_screen import CompareScreen as CompareScreen
    from .replay import ReplayScreen as ReplayScreen
    from .run_screen import RunScreen as RunScreen
    from .sessions import SessionsScreen as SessionsScreen

#: The screens loaded on first use, by the module that holds each.
LAZY_SCREENS = {
    "BenchScreen": "bench",
    "CompareScreen": "compare_screen",
    "ReplayScreen": "replay",
    "RunScreen": "run_screen",
    "SessionsScreen": "sessions",
}


def __getattr__(name: str) -> object:
    """A screen of :data:`LAZY_SCREENS`, from its module (imported the first
    time; read from it each time, as an import in the method would)."""
    module = LAZY_SCREENS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    screen: object = getattr(importlib.import_module(f".{module}", __name__), name)
    return screen
