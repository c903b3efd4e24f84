"""The problem a run is solving, for code the run calls that is not handed it:
a context variable :func:`~qflow_tui.core.workflow_run.run_workflow` sets around
the workflow's run (``--model reference`` reads it to answer with that
problem's reference solution). A module of its own, light, so that reading it
does not import the run's machinery (the app's first paint needs none)."""

from __future__ import annotations

from contextvars import ContextVar

from .problem import Problem

running_problem: ContextVar[Problem | None] = ContextVar("qflow_running_problem", default=None)
"""The problem of the run in progress in this task (None outside a run)."""
