"""UI test set-up: apps built by the same factory as the CLI, driven by script
models, an in-process sandbox and a frozen clock, at a fixed terminal size."""

from __future__ import annotations

from typing import Any

from ui_fakes import InProcessSandbox, mbpp11_client

from qflow_tui.core.config import RunConfig
from qflow_tui.ui.app import QFlowApp, create_app
from qflow_tui.ui.screens.compose import EXAMPLE_STATEMENT, EXAMPLE_TESTS

SIZE = (80, 24)
WIDE = (160, 48)


def replay_app(path: Any, **kwargs: Any) -> QFlowApp:
    """The app as `qflow replay PATH` builds it."""
    return create_app(
        RunConfig(model="script/tests/scripts/mbpp11.py"), replay_path=path, remember_theme=False, **kwargs
    )


def build_app(client: Any = None, *, config: RunConfig | None = None, example: bool = True, **kwargs: Any) -> QFlowApp:
    """The app as `qflow` builds it, with test doubles plugged in."""
    config = config or RunConfig(model="script/tests/scripts/mbpp11.py")
    if example:
        kwargs.setdefault("problem_text", EXAMPLE_STATEMENT)
        kwargs.setdefault("tests_text", EXAMPLE_TESTS)
    return create_app(
        config,
        client=client if client is not None else mbpp11_client(),
        sandbox=InProcessSandbox(),
        clock=lambda: 0.0,
        **kwargs,
    )
