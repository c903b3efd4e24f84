"""Workflows: each composes agents, emits events and returns a WorkflowResult."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from ..context import RunContext
from .agentcoder import run_agentcoder
from .base import WorkflowResult
from .qualityflow import run_qualityflow
from .zeroshot import run_zeroshot

Workflow = Callable[[RunContext], Awaitable[WorkflowResult]]

WORKFLOWS: dict[str, Workflow] = {
    "qualityflow": run_qualityflow,
    "agentcoder": run_agentcoder,
    "zeroshot": run_zeroshot,
}

__all__ = ["WORKFLOWS", "Workflow", "WorkflowResult"]
