"""A run's events as this build reads them: a ``run_started`` that does not
describe its workflow gets what the workflow declares now, for the settings it
recorded (a stream handed to the reducer without a description, a test's or a
plugin's, and sessions from the builds of 2026-11-22 to 11-27 that wrote none),
and a stop before a quality check those builds recorded as a label is the typed
stop it is (the shipped demo session has them). A reader of any run (the app,
replay, the browser) never needs a fallback of its own."""

from __future__ import annotations

from ..config import RunConfig
from ..events import Event, GateStop, RunStarted
from . import WORKFLOWS
from .values import config_from_record


def describe_started(event: RunStarted) -> bool:
    """Give ``event`` what its workflow declares now for the settings it
    recorded (in place): the agents, plan, summary and progressions when it has
    none, the tabs, checker, test judge and decided roles when it has no tabs,
    its panes and stage and step words when it has no panes.
    False when this build does not know the workflow (the run's events still
    give each agent that speaks a pane). The oldest sessions name no workflow:
    they were the default's."""
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
    if event.panes is None:
        event.panes = described["panes"]
        event.stage_words = event.stage_words or described["stage_words"]
        event.step_words = event.step_words or described["step_words"]
    if event.tabs is None:
        event.tabs = described["tabs"]
        event.checker, event.test_judge, event.decided = (
            described["checker"],
            described["test_judge"],
            described["decided"],
        )
    return True


#: How the builds before 2026-11-27 labelled the gate before a quality check.
_CHECK_LABEL = "quality_check:"


def read_as_now(events: list[Event]) -> None:
    """Give a session's events what this build reads (in place): each first
    event its workflow's description (:func:`describe_started`), and a stop
    recorded as ``quality_check:self_debug:1`` the typed check stop it is."""
    checker: str | None = None
    for event in events:
        if isinstance(event, RunStarted):
            if not event.agents or event.tabs is None or event.panes is None:
                describe_started(event)
            spec = WORKFLOWS.get(event.workflow or RunConfig.workflow)
            checker = spec.checker or None if spec is not None else None
        elif isinstance(event, GateStop) and (event.step or "").startswith(_CHECK_LABEL):
            event.step, event.check = (event.step or "")[len(_CHECK_LABEL) :] or None, True
            event.agent = event.agent or checker
