"""A plugin's pane, records and decision words, as a user runs it: installed
beside qflow, ``qflow solve`` prints each record's line and the workflow's own
decision word, and the session replays both (issue 54). Child processes only:
no other test sees the plugin."""

from __future__ import annotations

import os
from pathlib import Path

from qflow_tui.core.pieces import Records
from qflow_tui.core.run_state import RunState
from qflow_tui.core.session.reader import read_session
from tests.helpers import MBPP11, ROOT, install_distribution, run_with

SOURCE = """
from qflow_tui.core.events import Record
from qflow_tui.core.steps import step
from qflow_tui.core.workflows import Agent, Column, Pane, PlannedStep, WorkflowResult, WorkflowSpec

SPEC = WorkflowSpec(
    name="planrec",
    summary="Plans, each with a confidence, then a program.",
    agents=(Agent("planner", "Planner", "PL"),),
    settings=(),
    plan=lambda cfg: [PlannedStep("planning", "plan", ("planner",))],
    visible_tests=lambda cfg: "not used",
    runner="planrec:run",
    panes=(Pane("plans", "Plans", record="plan", columns=(Column("plan", "#"), "confidence")),),
    decision_words={"next plan": "continue"},
    decided=("planner",),
    stage_words={"planning": "planning"},
)


async def run(ctx):
    async with step(ctx, "planning", "planner", progression=0) as s:
        for n, confidence in ((1, 40), (2, 85)):
            fields = {"plan": n, "confidence": confidence, "note": "[red]not markup[/]"}
            ctx.event(Record(step=s.name, agent="planner", progression=0, record="plan", key=str(n), fields=fields))
    ctx.event(SPEC.decision("next plan", "plan 1 failed its samples", step="planning", agent="planner", progression=0))
    program = "def remove_Occ(s, ch):\\n    return s\\n"
    return WorkflowResult(program, "unchecked", None, 0, program)
"""


def test_a_plugins_records_and_words_print_headless_and_replay(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install_distribution(site, "planrec", "qflow.workflows", {"planrec": "planrec:SPEC"}, {"planrec": SOURCE})
    home = tmp_path / "home"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("QFLOW_")},
        "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]),
        "QFLOW_CONFIG_DIR": str(home / "config"),
        "QFLOW_DATA_DIR": str(home / "data"),
    }
    sessions = tmp_path / "sessions"
    done = run_with(env, "solve", "--workflow", "planrec", *MBPP11, "--session-dir", str(sessions), timeout=180)
    assert done.returncode == 0, done.stderr
    # The pane's columns, in its order; the workflow's word for the decision.
    assert "[p0] planning plan: plan=2 confidence=85" in done.stderr
    assert "[p0] planning: NEXT PLAN - plan 1 failed its samples" in done.stderr
    assert "CONTINUE" not in done.stderr
    session = next(sessions.rglob("*.jsonl"))
    state = RunState()
    for e in read_session(session).events:
        state.apply(e)
    assert [p.id for p in state.panes] == ["plans"]
    rows = state.piece(Records).of("plan", 0)
    assert [(r.value("plan"), r.value("confidence"), r.value("note")) for r in rows] == [
        (1, 40, "[red]not markup[/]"),
        (2, 85, "[red]not markup[/]"),
    ]
    assert state.decisions[-1].word == "next plan" and state.decisions[-1].decision == "continue"
