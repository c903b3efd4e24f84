"""What sessions recorded before workflows described themselves lack: their
first event names no agents and no plan. They get the ones their workflow has
now, for the settings they recorded, so a reader of any session (the app,
replay, the browser) never needs a fallback of its own."""

from __future__ import annotations

from ..config import RunConfig
from ..events import (
    Decision,
    Event,
    GateStop,
    ImaginedCheck,
    RunStarted,
    SandboxRun,
    StepStarted,
    TestsDesigned,
    TQCVerdict,
    TreeNode,
)
from .values import config_from_record


def _label(role: str) -> str:
    return role.replace("_", " ").capitalize()


def describe_started(event: RunStarted) -> bool:
    """Give ``event`` (a ``run_started`` an older build wrote) what its workflow
    declares now for the settings it recorded (in place): the agents, plan,
    summary and progressions when it has none, the tabs, checker, test judge
    and decided roles when it has no tabs. False when this build does not know
    the workflow. The oldest sessions name no workflow: they were the default's."""
    from . import WORKFLOWS

    workflow = event.workflow or RunConfig.workflow
    spec = WORKFLOWS.get(workflow)
    if spec is None:
        return False
    recorded = event.config if isinstance(event.config, dict) else {}
    described = spec.described(config_from_record(recorded, workflow, strict=False))
    if not event.agents:
        event.agents = described["agents"]
        event.plan = described["plan"]
        event.summary = event.summary or described["summary"]
        event.visible_tests = event.visible_tests or described["visible_tests"]
        event.progressions = described["progressions"]
    if event.tabs is None:
        event.tabs = described["tabs"]
        event.checker, event.test_judge, event.decided = (
            described["checker"],
            described["test_judge"],
            described["decided"],
        )
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
    """Give a ``run_started`` an older build wrote what this build's first
    event says (in place): its workflow's declaration, or, for a workflow this
    build does not know, the agents, steps, tabs and roles its events show."""
    for i, event in enumerate(events):
        if not isinstance(event, RunStarted) or (event.agents and event.tabs is not None):
            continue
        if describe_started(event):
            continue
        later = []
        for e in events[i + 1 :]:
            if isinstance(e, RunStarted):
                break
            later.append(e)
        if not event.agents:
            _shape_seen(event, later)
        if event.tabs is None:
            _roles_seen(event, later)


def _shape_seen(event: RunStarted, later: list[Event]) -> None:
    """The agents and steps the events show, in order of appearance."""
    roles: list[str] = []
    steps: dict[str, list[str]] = {}
    for e in later:
        if e.agent and e.agent not in roles:
            roles.append(e.agent)
        if isinstance(e, StepStarted) and e.step:
            agents = steps.setdefault(e.step, [])
            if e.agent and e.agent not in agents:
                agents.append(e.agent)
    event.agents = [{"role": r, "label": _label(r), "short": r[:3].upper()} for r in roles]
    event.plan = [{"step": s, "label": s.replace("_", " "), "agents": a} for s, a in steps.items()]


def _roles_seen(event: RunStarted, later: list[Event]) -> None:
    """The tabs and the roles the events show: a tab for each kind of view
    the run filled, the test judge and the roles that decided."""
    tabs: list[str] = []
    decided: list[str] = []
    for e in later:
        tab = _TAB_OF.get(type(e))
        if tab and tab not in tabs:
            tabs.append(tab)
        if isinstance(e, TQCVerdict) and e.agent and not event.test_judge:
            event.test_judge = e.agent
        if isinstance(e, Decision) and e.agent and e.agent not in decided:
            decided.append(e.agent)
    event.tabs, event.decided = tabs, decided


#: Which tab an event of an older session of an unknown workflow fills.
_TAB_OF: dict[type[Event], str] = {
    ImaginedCheck: "imagined",
    TestsDesigned: "tests",
    TQCVerdict: "tests",
    SandboxRun: "tests",
    TreeNode: "tree",
}
