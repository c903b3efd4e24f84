"""What sessions recorded before workflows described themselves lack: their
first event names no agents and no plan. They get the ones their workflow has
now, for the settings they recorded, so a reader of any session (the app,
replay, the browser) never needs a fallback of its own."""

from __future__ import annotations

from ..config import RunConfig
from ..events import Event, GateStop, RunStarted, StepStarted
from .values import config_from_record


def _label(role: str) -> str:
    return role.replace("_", " ").capitalize()


def describe_started(event: RunStarted) -> bool:
    """Give ``event`` (a ``run_started`` without agents) the agents, plan,
    summary and progressions its workflow has now for the settings it
    recorded (in place); False when this build does not know the workflow.
    The oldest sessions name no workflow: they were the default's."""
    from . import WORKFLOWS

    workflow = event.workflow or RunConfig.workflow
    spec = WORKFLOWS.get(workflow)
    if spec is None:
        return False
    recorded = event.config if isinstance(event.config, dict) else {}
    described = spec.described(config_from_record(recorded, workflow, strict=False))
    event.agents = described["agents"]
    event.plan = described["plan"]
    event.summary = event.summary or described["summary"]
    event.visible_tests = event.visible_tests or described["visible_tests"]
    event.progressions = described["progressions"]
    return True


#: How builds before typed stops labelled the gate before a quality check.
_OLD_CHECK_LABEL = "quality_check:"


def upgrade(events: list[Event]) -> None:
    """Give events an older build recorded what this build reads (in place):
    the first event's description (:func:`fill_description`), and a stop
    before a check recorded as a label (``quality_check:self_debug:1``) as
    the typed stop it is."""
    from . import WORKFLOWS

    checker: str | None = None
    for event in events:
        if isinstance(event, RunStarted):
            spec = WORKFLOWS.get(event.workflow or RunConfig.workflow)
            checker = spec.checker or None if spec is not None else None
        label = event.step or "" if isinstance(event, GateStop) else ""
        if isinstance(event, GateStop) and label.startswith(_OLD_CHECK_LABEL):
            event.step, event.check = label[len(_OLD_CHECK_LABEL) :] or None, True
            event.agent = event.agent or checker
    fill_description(events)


def fill_description(events: list[Event]) -> None:
    """Give a ``run_started`` without ``agents`` the agents and plan of its
    workflow (in place). A workflow this build does not know gets the agents
    and steps its events show, in order of appearance."""
    for i, event in enumerate(events):
        if not isinstance(event, RunStarted) or event.agents:
            continue
        if describe_started(event):
            continue
        roles: list[str] = []
        steps: dict[str, list[str]] = {}
        for later in events[i + 1 :]:
            if isinstance(later, RunStarted):
                break
            if later.agent and later.agent not in roles:
                roles.append(later.agent)
            if isinstance(later, StepStarted) and later.step:
                agents = steps.setdefault(later.step, [])
                if later.agent and later.agent not in agents:
                    agents.append(later.agent)
        event.agents = [{"role": r, "label": _label(r), "short": r[:3].upper()} for r in roles]
        event.plan = [{"step": s, "label": s.replace("_", " "), "agents": a} for s, a in steps.items()]
