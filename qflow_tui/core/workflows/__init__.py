"""Workflows: each is described by a :class:`WorkflowSpec` (name, agents,
settings, plan, use of the visible tests, where the function that runs it is;
all in :mod:`.catalog`), composes agents, emits events and returns a
:class:`WorkflowResult`. Importing this package imports the descriptions only;
a workflow's implementation is imported when a run asks for it."""

from __future__ import annotations

from ..config import ConfigError
from .base import Agent, PlannedStep, WorkflowResult, WorkflowSpec
from .catalog import ADACODER, AGENTCODER, CODETREE, QUALITYFLOW, ZEROSHOT
from .settings import Setting

#: Every workflow by name, in the order ``qflow workflows`` lists them.
WORKFLOWS: dict[str, WorkflowSpec] = {
    spec.name: spec for spec in (QUALITYFLOW, AGENTCODER, CODETREE, ADACODER, ZEROSHOT)
}


def get_workflow(name: str) -> WorkflowSpec:
    """The workflow called ``name``; :class:`ConfigError` (one line) when none is."""
    spec = WORKFLOWS.get(name)
    if spec is None:
        raise ConfigError(
            f"unknown workflow {name!r}: choose one of {', '.join(WORKFLOWS)} (`qflow workflows` lists them)"
        )
    return spec


__all__ = ["WORKFLOWS", "Agent", "PlannedStep", "Setting", "WorkflowResult", "WorkflowSpec", "get_workflow"]
