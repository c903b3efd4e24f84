"""What sessions recorded before workflows described themselves lack: their
first event names no agents and no plan. They get the ones their workflow has
now, for the settings they recorded, so a reader of any session (the app,
replay, the browser) never needs a fallback of its own."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..config import RunConfig
from ..events import Event, RunStarted


def _config(workflow: str, recorded: dict[str, Any]) -> RunConfig:
    """The recorded settings as a RunConfig; values this build cannot use are
    left at their defaults (an old session must still open)."""
    names = {f.name for f in dataclasses.fields(RunConfig)}
    config = RunConfig(workflow=workflow)
    for key, value in recorded.items():
        if key in names and key != "workflow":
            candidate = dataclasses.replace(config, **{key: value})
            try:
                candidate.validate()
            except Exception:
                continue
            config = candidate
    return config


def _label(role: str) -> str:
    return role.replace("_", " ").capitalize()


def fill_description(events: list[Event]) -> None:
    """Give a ``run_started`` without ``agents`` the agents and plan of its
    workflow (in place). A workflow this build does not know gets the agents
    and steps its events show, in order of appearance."""
    from . import WORKFLOWS

    for i, event in enumerate(events):
        if not isinstance(event, RunStarted) or event.agents:
            continue
        spec = WORKFLOWS.get(event.workflow)
        if spec is not None:
            config = _config(event.workflow, event.config if isinstance(event.config, dict) else {})
            described = spec.described(config)
            event.agents = described["agents"]
            event.plan = described["plan"]
            event.summary = event.summary or described["summary"]
            event.visible_tests = event.visible_tests or described["visible_tests"]
            event.progressions = described["progressions"]
            continue
        roles: list[str] = []
        steps: dict[str, list[str]] = {}
        for later in events[i + 1 :]:
            if later.kind == "run_started":
                break
            if later.agent and later.agent not in roles:
                roles.append(later.agent)
            if later.kind == "step_started" and later.step:
                agents = steps.setdefault(later.step, [])
                if later.agent and later.agent not in agents:
                    agents.append(later.agent)
        event.agents = [{"role": r, "label": _label(r), "short": r[:3].upper()} for r in roles]
        event.plan = [{"step": s, "label": s.replace("_", " "), "agents": a} for s, a in steps.items()]
