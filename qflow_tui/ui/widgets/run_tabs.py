"""The run view's tabs, declared once: each tab's title, the widget it holds
and what takes the focus in it, the events that change it, and the workflow
declaration that shows it. A new view of a run is one entry here and a widget
that paints itself from the run's state (:class:`TabContent`). A workflow's
own panes (:class:`~qflow_tui.core.workflows.base.Pane`) are tabs after these,
made when its run says so (:func:`pane_widget`). The digits number the tabs a
run has, in this order (:func:`numbered_tabs`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from textual.widget import Widget

from ...core import events as ev
from ...core.safe_text import one_line
from ...core.workflows.base import Pane
from ..state import RunState
from .imagined_trace import ImaginedTrace
from .program_view import ProgramView
from .records_table import RecordsTable
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

#: The tabs, in the order they are numbered (those a run has).
RUN_TABS: tuple[RunTab, ...] = (
    RunTab(
        "tab-timeline",
        "Timeline",
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
    RunTab("tab-agents", "Agents", "agent-panes", ".agent-pane", _CALLS | {ev.TextDelta}),
    RunTab(
        "tab-imagined",
        "Imagined",
        "imagined-trace",
        "#imagined-trace",
        _CALLS | _STEPS | {ev.ImaginedCheck},
        lambda: ImaginedTrace(id="imagined-trace"),
        declared="imagined",
    ),
    RunTab(
        "tab-tests",
        "Tests",
        "tests-table",
        "#tests-grid",
        frozenset({ev.TestsDesigned, ev.TQCVerdict, ev.SandboxRun}),
        lambda: TestsTable(id="tests-table"),
        declared="tests",
    ),
    RunTab(
        "tab-program",
        "Program",
        "program-view",
        "#program-view",
        frozenset({ev.SandboxRun, ev.ProgramCandidate, ev.Decision, ev.VisibleTestsRun}),
        lambda: ProgramView(id="program-view"),
    ),
    RunTab(
        "tab-tree",
        "Tree",
        "search-tree",
        "#search-tree-nodes",
        frozenset({ev.TreeNode}),
        lambda: SearchTree(id="search-tree"),
        declared="tree",
    ),
)

TAB_BY_ID = {t.id: t for t in RUN_TABS}

#: Events that change no built-in tab (the status line and notices show them;
#: a record changes its workflow's panes alone).
QUIET_EVENTS = frozenset({ev.GateStop, ev.Notice, ev.Record})

#: A workflow pane's TabPane id is this and the pane's id.
PANE_TAB = "pane-"

#: The most tabs a digit reaches.
MOST_NUMBERED = 9


def tabs_of(event_type: type[ev.Event]) -> frozenset[str]:
    """The tabs an event of this type may change; a type no tab names, all of them."""
    if event_type in QUIET_EVENTS:
        return frozenset()
    named = frozenset(t.id for t in RUN_TABS if event_type in t.touched_by)
    return named or frozenset(t.id for t in RUN_TABS)


def shown_tabs(state: RunState) -> frozenset[str]:
    """The tabs a run shows: every run's, and those its workflow declares."""
    return frozenset(t.id for t in RUN_TABS if not t.declared or t.declared in state.tabs)


def numbered_tabs(shown: frozenset[str], panes: tuple[Pane, ...] = ()) -> list[tuple[str, str]]:
    """The tabs a run has, in the order the digits number them: (TabPane id,
    title); the workflow's panes after the built-in ones."""
    out = [(t.id, t.title) for t in RUN_TABS if t.id in shown]
    out += [(PANE_TAB + p.id, p.title) for p in panes]
    return out


def pane_widget(pane: Pane) -> tuple[Widget, str]:
    """The widget a workflow's pane shows: the plugin's own class when it names
    one that imports, else the generic records table; and, when the plugin's
    could not be had, why (one line) for a notice."""
    widget_id = f"records-{pane.id}"
    if pane.widget:
        module, _, name = pane.widget.partition(":")
        try:
            cls = getattr(importlib.import_module(module), name)
            if not (isinstance(cls, type) and issubclass(cls, Widget) and callable(getattr(cls, "update_from", None))):
                raise TypeError("it is not a widget with update_from(state, progression)")
            return cls(id=widget_id), ""
        except Exception as exc:  # a plugin's widget that fails shows the table instead
            why = one_line(f"{type(exc).__name__}: {exc}", 160)
            title = one_line(pane.title, 30)
            said = f"The {title} pane's own widget ({pane.widget}) could not be made ({why}); it shows as a table."
            return RecordsTable(pane, id=widget_id), said
    return RecordsTable(pane, id=widget_id), ""
