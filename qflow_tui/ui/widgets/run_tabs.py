"""The run view's tabs, declared once: each tab's title and key, the widget it
holds and what takes the focus in it, the events that change it, and the
workflow declaration that shows it. A new view of a run is one entry here and
a widget that paints itself from the run's state (:class:`TabContent`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from textual.widget import Widget

from ...core import events as ev
from ..state import RunState
from .imagined_trace import ImaginedTrace
from .program_view import ProgramView
from .search_tree import SearchTree
from .tests_table import TestsTable


class TabContent(Protocol):
    """What a tab holds: it paints itself from the run's state, for one progression."""

    def update_from(self, state: RunState, progression: int) -> None: ...


@dataclass(frozen=True)
class RunTab:
    """One tab of the run view."""

    id: str
    """The TabPane's id: ``tab-tests``."""
    title: str
    key: str
    """The key that shows it (``4``)."""
    content: str
    """The id of the widget it holds (the one that paints, and that z zooms)."""
    focus: str
    """The selector of what takes the focus when the tab is shown."""
    touched_by: frozenset[type[ev.Event]]
    """The events that change what it shows."""
    make: Callable[[], Widget] | None = None
    """Builds its content, mounted after the run screen's first paint; None:
    composed with the view (the agents' panes, the timeline)."""
    declared: str = ""
    """The tab a workflow declares to have it shown (``imagined``: see
    :data:`qflow_tui.core.workflows.base.Tab`); empty: every run shows it."""


_CALLS = frozenset({ev.LLMCallStarted, ev.LLMCallFinished, ev.LLMCallFailed})
_STEPS = frozenset({ev.StepStarted, ev.StepFinished, ev.Decision})

#: The tabs, in key order.
RUN_TABS: tuple[RunTab, ...] = (
    RunTab(
        "tab-timeline",
        "Timeline",
        "1",
        "timeline-tab",
        "#timeline-tab",
        _STEPS
        | {
            ev.LLMCallFinished,
            ev.LLMCallFailed,
            ev.ImaginedCheck,
            ev.TestsDesigned,
            ev.TQCVerdict,
            ev.SandboxRun,
            ev.ProgramCandidate,
        },
    ),
    RunTab("tab-agents", "Agents", "2", "agent-panes", ".agent-pane", _CALLS | {ev.TextDelta}),
    RunTab(
        "tab-imagined",
        "Imagined",
        "3",
        "imagined-trace",
        "#imagined-trace",
        _CALLS | _STEPS | {ev.ImaginedCheck},
        lambda: ImaginedTrace(id="imagined-trace"),
        declared="imagined",
    ),
    RunTab(
        "tab-tests",
        "Tests",
        "4",
        "tests-table",
        "#tests-grid",
        frozenset({ev.TestsDesigned, ev.TQCVerdict, ev.SandboxRun}),
        lambda: TestsTable(id="tests-table"),
        declared="tests",
    ),
    RunTab(
        "tab-program",
        "Program",
        "5",
        "program-view",
        "#program-view",
        frozenset({ev.SandboxRun, ev.ProgramCandidate, ev.Decision, ev.VisibleTestsRun}),
        lambda: ProgramView(id="program-view"),
    ),
    RunTab(
        "tab-tree",
        "Tree",
        "6",
        "search-tree",
        "#search-tree-nodes",
        frozenset({ev.TreeNode}),
        lambda: SearchTree(id="search-tree"),
        declared="tree",
    ),
)

TAB_BY_ID = {t.id: t for t in RUN_TABS}

#: Events that change no tab (the status line and notices show them).
QUIET_EVENTS = frozenset({ev.GateStop, ev.Notice})


def tabs_of(event_type: type[ev.Event]) -> frozenset[str]:
    """The tabs an event of this type may change; a type no tab names, all of them."""
    if event_type in QUIET_EVENTS:
        return frozenset()
    named = frozenset(t.id for t in RUN_TABS if event_type in t.touched_by)
    return named or frozenset(t.id for t in RUN_TABS)


def shown_tabs(state: RunState) -> frozenset[str]:
    """The tabs a run shows: every run's, and those its workflow declares."""
    return frozenset(t.id for t in RUN_TABS if not t.declared or t.declared in state.tabs)
