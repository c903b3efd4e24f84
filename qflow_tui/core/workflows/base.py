"""What a workflow is: a described thing (name, summary, agents, settings, plan,
use of the visible tests, the function that runs it) and what it returns."""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..config import RunConfig
from ..events import Decision, DecisionWord
from .settings import Setting

if TYPE_CHECKING:
    from ..context import RunContext
    from ..events import RunOutcomeWord

#: The core's decision words, which a workflow's own words map onto.
CORE_DECISIONS: tuple[DecisionWord, ...] = ("accept", "continue", "clarify", "revert")


@dataclass
class WorkflowResult:
    """What a run function returns: the program the run ends with and how it
    got there. The runner turns it into the run's last event
    (``run_finished``), the ``--json`` summary and the session's header.

    ``WorkflowResult(program, "unchecked", None, 0, first)``: positional in
    this order; the rest by keyword."""

    final_program: str
    """The program the run answers with (the bench judges this one)."""
    outcome: RunOutcomeWord
    """``accepted``; ``reverted`` (nothing passed, the first program returned);
    ``rejected`` (revert disabled, or budget spent with nothing accepted);
    ``unchecked`` (no quality checker)."""
    accepted_at: str | None
    """Step whose program was accepted: ``program_generator``, ``self_debug:2``,
    ``clarifier:1``; None when none was (``unchecked``, ``rejected``, ``reverted``)."""
    progression: int | None
    """The progression whose program :attr:`final_program` is (0 for a workflow
    of one progression); None when it belongs to none."""
    first_program: str = ""
    """The first program the run wrote (the bench's pass@1 before any check or
    fix reads it; a workflow that :attr:`WorkflowSpec.reverts` returns it)."""
    detail: str = ""
    """Anything more to say about the result, in words."""
    node: str | None = None
    """The search-tree node whose program is returned (CodeTree), else None."""


@dataclass(frozen=True)
class Agent:
    """One agent role of a workflow, as the app names it."""

    role: str
    """The role in the paper's words, as events carry it: ``program_generator``."""
    label: str
    """``Program generator``."""
    short: str
    """For narrow places: ``PG``."""

    def to_dict(self) -> dict[str, str]:
        return {"role": self.role, "label": self.label, "short": self.short}


@dataclass(frozen=True)
class PlannedStep:
    """A step the workflow will (or may) take with given settings."""

    step: str
    """The step's name in events: ``self_debug:1``."""
    label: str
    """In words: ``self-debug 1``."""
    agents: tuple[str, ...] = ()
    """The roles that work in it, in order."""
    short: str = ""
    """A shorter label for narrow places (replay chips): ``debug 1``."""
    shared: bool = False
    """Runs once for the whole run, not once per progression."""

    def to_dict(self) -> dict[str, object]:
        data: dict[str, Any] = {"step": self.step, "label": self.label, "agents": list(self.agents)}
        if self.short:
            data["short"] = self.short
        if self.shared:
            data["shared"] = True
        return data


Runner = Callable[["RunContext"], Awaitable[WorkflowResult]]

Tab = Literal["imagined", "tests", "tree"]
"""A run-screen tab a workflow may use beyond the timeline, the agents and the
program: ``imagined`` (a checker imagining the program's run on each visible
test), ``tests`` (tests designed, judged or run), ``tree`` (a search tree)."""

Edit = Literal["program", "verdict", "tests", "statement"]
"""What a person may change in a run at a stop or a fork: a step's program, a
quality verdict on it, the synthesized tests, the statement."""


@dataclass(frozen=True)
class Column:
    """One column of a :class:`Pane`'s table: a field of its records."""

    field: str
    """The field's name in the record's ``fields``; ``step``, ``agent`` and
    ``progression`` name the record event's own (a field so named wins)."""
    title: str = ""
    """The column's heading; empty: the field's name with spaces for ``_``."""
    width: int = 0
    """Cells wide (text past it is cut with an ellipsis); 0: as wide as it needs."""

    @property
    def heading(self) -> str:
        return self.title or self.field.replace("_", " ")

    def to_dict(self) -> dict[str, object]:
        return {"field": self.field, "title": self.heading, "width": self.width}


@dataclass(frozen=True)
class Pane:
    """A tab of a workflow's own on the run screen, showing the :class:`Record
    <qflow_tui.core.events.Record>` events of one kind its run emits: as a
    table (the app's generic view, per progression) or in a widget of the
    plugin's own (:attr:`widget`).

    ``Pane("plans", "Plans", record="plan", columns=("plan", Column("confidence", "conf %")))``"""

    id: str
    """A word (a-z, 0-9, _), unique among the workflow's panes."""
    title: str
    """The tab's title: short, the tab row has 80 columns at 80x24."""
    record: str
    """The kind of the records it shows (:attr:`Record.record <qflow_tui.core.events.Record.record>`)."""
    columns: tuple[Column | str, ...] = ()
    """Its columns, in order, each a field's name or a :class:`Column`; empty:
    every field, in the order first seen. ``qflow solve`` prints a record's
    line with these fields too."""
    widget: str = ""
    """``module:Class`` of a Textual widget of the plugin's own to show instead
    of the table, made with ``id=`` only and painted with
    ``update_from(state, progression)`` (the app's run state, whose text is
    made terminal-safe); the core names it and never imports it. If it cannot
    be imported, the table shows and a notice says why. Empty: the table."""
    empty: str = ""
    """What it says before its first record; empty: ``No <title> yet.``"""

    @property
    def table_columns(self) -> tuple[Column, ...]:
        return tuple(c if isinstance(c, Column) else Column(c) for c in self.columns)

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "title": self.title,
            "record": self.record,
            "columns": [c.to_dict() for c in self.table_columns],
            "widget": self.widget,
            "empty": self.empty or f"No {self.title} yet.",
        }


def _one(config: RunConfig) -> int:
    return 1


def _never(config: RunConfig) -> bool:
    return False


def _no_notes(config: RunConfig) -> tuple[str, ...]:
    return ()


def _no_edits(config: RunConfig) -> frozenset[Edit]:
    return frozenset()


def _no_tabs(config: RunConfig) -> tuple[Tab, ...]:
    return ()


@dataclass(frozen=True)
class Steerable:
    """What a person may steer in a workflow, so that the run screen, fork and
    the command line offer exactly that without knowing the workflow."""

    edits: Callable[[RunConfig], frozenset[Edit]] = _no_edits
    """The kinds of edit the workflow takes with given settings (the run
    screen offers only these, and ``qflow fork`` refuses the others).

    Declaring an edit does not apply it: a person's edits wait in the run's
    :class:`~qflow_tui.core.steer.edits.Steering` (``ctx.steering``), and the run
    function takes each where it applies, once, with
    :func:`~qflow_tui.core.steer.edits.steered_program` (at a producing step, or
    at its check) and :func:`~qflow_tui.core.steer.edits.steered_verdict` (at
    the checker's step). Those emit the ``steered`` event that records it."""
    program_stages: tuple[str, ...] = ()
    """The stages (a step's name before ``:``) whose program a person may
    replace or whose quality verdict override (``program`` and ``verdict``):
    those edits are offered only at a stop before a step of one of these
    stages, in a progression."""
    first_stage: str = ""
    """The stage that writes the first program: a program edit at the stop
    before it stands in for that agent's answer (the editor says so) rather
    than for a program to be checked."""
    statement_readers: str = ""
    """Who reads an edited statement, in words (``the clarifier and the
    clarified generator``): the editor and its notice say it."""

    def takes(self, edit: Edit, config: RunConfig) -> bool:
        return edit in self.edits(config)


@dataclass(frozen=True)
class WorkflowSpec:
    """A workflow, described: everything the app, the command line, the session
    browser and replay need to show it, without knowing it by name."""

    name: str
    """The workflow's name: ``--workflow NAME``, its ``[workflow.NAME]``
    config table, sessions and benches. A letter, then letters, digits, ``-``
    or ``_``; a plugin may not take a built-in's name."""
    summary: str
    """One line."""
    agents: tuple[Agent, ...]
    """In the order the workflow calls them."""
    settings: tuple[Setting[Any], ...]
    """Its own typed settings (see :class:`Setting`): each gets its flag, its
    key in the ``[workflow.NAME]`` table, its ``QFLOW_<KEY>`` environment
    variable, its compose-form field and its line in ``qflow workflows``; a
    session records every one, resolved. Read one with ``SETTING.of(config)``.
    A key must be a word (a-z, 0-9, _), may not be a run-wide setting's
    (``model``, ``seed``, ...) or an option of qflow's own commands
    (``json``, ``limit``, ...), and may be a built-in workflow's key only with
    that setting's type."""
    plan: Callable[[RunConfig], list[PlannedStep]]
    """The planned steps for given settings; steps run per progression are listed once."""
    visible_tests: Callable[[RunConfig], str]
    """What it does with the visible tests, in words, for given settings."""
    runner: str
    """Where the function that runs it is, as ``module:function``
    (``qflow_tui.core.workflows.qualityflow.quality_flow:run_qualityflow``): imported when
    :attr:`run` is first asked for, so describing a workflow never imports its
    agents."""
    progressions: Callable[[RunConfig], int] = _one
    """How many parallel progressions a run has with given settings (events
    carry their index from 0 as ``progression``; QualityFlow's diversified
    prompts): the run screen gives each a row. Default: one."""
    executes_visible: Callable[[RunConfig], bool] = _never
    """Whether, with given settings, it executes the visible tests during
    synthesis: the relaxed setting (on MBPP those are the evaluation tests).
    Only this says it: a workflow that runs the visible tests in the sandbox
    but leaves the default (never) is labelled standard in benches, exports
    and the run screen, and its figures are compared with standard ones."""
    paper: str = ""
    """Where it comes from, as a reader can look it up: authors, title, arXiv id
    and the part (``Huang et al., AgentCoder: ... (arXiv:2312.13010), section 3``)."""
    stage_words: dict[str, str] = field(default_factory=dict)
    """A step's stage (before ``:``) in words, for :meth:`step_label`:
    ``{"self_debug": "self-debug"}`` makes ``self_debug:2`` read
    ``self-debug 2``. A stage not listed reads as its name with spaces."""
    step_words: dict[str, str] = field(default_factory=dict)
    """Whole step names in words, where they differ from their stage's words:
    AgentCoder's ``{"programmer": "write"}`` beside its stage word ``refine``
    (``programmer:1`` reads ``refine 1``)."""
    steering: Steerable = Steerable()
    """What a person may edit in its runs."""
    checker: str = ""
    """The role whose step outcome (``accepted`` or ``rejected``) is a quality
    verdict on the program its progression holds (the bench scores it as a
    classifier); empty: no such agent. Its steps are entered with
    ``step(ctx, <the producing step's name>, checker, check=True)``, so a stop
    there reads "before checking ..." and a ``verdict`` edit applies to it;
    the body sets ``s.outcome`` to ``accepted`` or ``rejected``."""
    debugger: str = ""
    """The role whose program replaces the one its progression holds, to fix it
    (the bench's self-debugging deviation compares the two); empty: none."""
    decided: tuple[str, ...] = ()
    """Roles whose steps end in a :class:`Decision` event (emitted by the run
    function after the step) that says their outcome: a headless log prints
    the decision, not the step's end, and the run screen lists it."""
    reverts: Callable[[RunConfig], bool] = _never
    """With given settings, does it return its first program when no check
    accepts one (the bench's pass@1 after each step follows that)?"""
    rank: int = 100
    """Where ``qflow workflows`` and the compose form list it, lowest first:
    the built-ins 0 to 4; plugins keep the default, 100, and are listed after
    them by name."""
    tabs: Callable[[RunConfig], tuple[Tab, ...]] = _no_tabs
    """The run screen's tabs its runs use with given settings, beyond the
    timeline, the agents and the program (none: only those three); each is a
    :data:`Tab`, filled from the events that tab reads (``tests``:
    ``tests_designed``, ``tqc_verdict`` and ``sandbox_run``)."""
    test_judge: str = ""
    """The role whose kept or rejected verdict each synthesized test gets (the
    Tests tab gives it a column named after the agent); empty: none."""
    pass_at_last: int = 0
    """k when its paper reports pass@k over the last k programs a run produced
    (QualityFlow section 4.1: "To report pass@5 accuracy, we choose the last five
    programs produced"); the bench reports it beside pass@1. 0: no such figure."""
    setting_notes: Callable[[RunConfig], tuple[str, ...]] = _no_notes
    """What a run with given settings does that a reader of the settings alone
    would not expect, a sentence each (QualityFlow's ``checker=none`` runs only
    progression 0): a bench's report prints them beside its settings. Default: none."""

    panes: tuple[Pane, ...] = ()
    """Tabs of its own on the run screen, each showing one kind of the
    :class:`~qflow_tui.core.events.Record` events its runs emit (see
    :class:`Pane`), numbered after the built-in tabs in this order."""
    decision_words: dict[str, DecisionWord] = field(default_factory=dict)
    """Its own decision words, each mapped onto the core's (``accept``,
    ``continue``, ``clarify``, ``revert``): ``{"next plan": "continue"}``. The
    core acts on the mapped word; the timeline, the headless log, the
    transcript and the session say the workflow's. Emit one with
    :meth:`decision`."""

    @property
    def run(self) -> Runner:
        """The function that runs the workflow (its module is imported now if
        it was not yet)."""
        module, _, name = self.runner.partition(":")
        runner: Runner = getattr(importlib.import_module(module), name)
        return runner

    def step_label(self, step: str) -> str:
        """A step name in words: ``self_debug:2`` -> ``self-debug 2``."""
        if step in self.step_words:
            return self.step_words[step]
        stage, _, number = step.partition(":")
        words = self.stage_words.get(stage, stage.replace("_", " "))
        return f"{words} {number}" if number else words

    def decision(
        self,
        word: str,
        reason: str = "",
        *,
        step: str | None,
        agent: str | None = None,
        progression: int | None = None,
    ) -> Decision:
        """The :class:`~qflow_tui.core.events.Decision` event for ``word``: one of
        the core's words, or one of :attr:`decision_words` (carried as the
        event's ``word``, mapped onto the core's). Emit it with ``ctx.event(...)``.
        A word the spec does not declare raises :class:`ValueError`."""
        core = self.decision_words.get(word)
        if core is not None:
            return Decision(step=step, agent=agent, progression=progression, decision=core, word=word, reason=reason)
        for known in CORE_DECISIONS:
            if word == known:
                return Decision(step=step, agent=agent, progression=progression, decision=known, reason=reason)
        said = ", ".join([*CORE_DECISIONS, *self.decision_words])
        raise ValueError(f"workflow {self.name}: {word!r:.40} is not a decision word of its own (choose one of {said})")

    def why_no_tab(self, config: RunConfig, tab: str) -> str:
        """Why a run with ``config`` has no ``tab`` (a :data:`Tab`), in words, when
        another value of one of its settings would have it (``its checker is
        python; the tab comes with checker=imagined``); empty: the tab is there,
        or no setting brings it (the workflow does not use one)."""
        if tab in self.tabs(config):
            return ""
        for setting in self.settings:
            current = setting.of(config)
            if setting.choices:
                others: tuple[object, ...] = tuple(c for c in setting.choices if c != current)
            elif isinstance(current, bool):
                others = (not current,)
            else:
                others = ()
            for other in others:
                if tab in self.tabs(config.with_settings({setting.key: other}, self.name)):
                    said = str(other).lower() if isinstance(other, bool) else other
                    now = str(current).lower() if isinstance(current, bool) else current
                    return f"its {setting.key.replace('_', ' ')} is {now}; the tab comes with {setting.key}={said}"
        return ""

    def executes_visible_tests(self, config: RunConfig) -> bool:
        """True when a run with ``config`` executes the visible tests during
        synthesis (the relaxed setting), as :attr:`executes_visible` says."""
        return bool(self.executes_visible(config))

    def agent(self, role: str) -> Agent | None:
        return next((a for a in self.agents if a.role == role), None)

    def described(self, config: RunConfig) -> dict[str, Any]:
        """The fields of the run's first event (``RunStarted``)."""
        return {
            "agents": [a.to_dict() for a in self.agents],
            "plan": [s.to_dict() for s in self.plan(config)],
            "summary": self.summary,
            "visible_tests": self.visible_tests(config),
            "progressions": self.progressions(config),
            "tabs": list(self.tabs(config)),
            "checker": self.checker,
            "test_judge": self.test_judge,
            "decided": list(self.decided),
            "panes": [p.to_dict() for p in self.panes],
            "stage_words": dict(self.stage_words),
            "step_words": dict(self.step_words),
        }

    def to_dict(self, config: RunConfig | None = None) -> dict[str, Any]:
        """For ``qflow workflows --json``."""
        config = config or RunConfig(workflow=self.name)
        return {
            "name": self.name,
            "summary": self.summary,
            "paper": self.paper,
            "agents": [a.to_dict() for a in self.agents],
            "settings": [s.to_dict() for s in self.settings],
            "plan": [s.to_dict() for s in self.plan(config)],
            "visible_tests": self.visible_tests(config),
        }
