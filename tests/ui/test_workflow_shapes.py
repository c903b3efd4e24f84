"""The run view draws any workflow from its events: the agents and the plan its
first event declares, and (for streams recorded before) QualityFlow's own."""

from __future__ import annotations

from pathlib import Path

from conftest import SIZE
from wf_streams import AGENTCODER_AGENTS, PROBLEM, agentcoder_stream, screen_text, write_session

from qflow_tui.core import events as ev
from qflow_tui.ui.app import create_app
from qflow_tui.ui.replay_model import replay_steps
from qflow_tui.ui.state import RunState
from qflow_tui.ui.widgets.agent_pane import AgentPane
from qflow_tui.ui.widgets.run_view import RunView
from tests.sessions.support import demo_config

QUALITYFLOW_ROLES = [
    "program_generator",
    "test_designer",
    "test_quality_checker",
    "self_debugger",
    "code_quality_checker",
    "clarifier",
]


def fold(events: list[ev.Event], upto: int | None = None) -> RunState:
    state = RunState()
    for e in events[:upto]:
        state.apply(e)
    return state


def test_agents_plan_and_progressions_come_from_the_first_event():
    state = fold(agentcoder_stream())
    assert [a.role for a in state.agents] == [a["role"] for a in AGENTCODER_AGENTS]
    assert state.short("programmer") == "prog"
    assert state.planned_stages() == [
        "programmer",
        "test_designer",
        "test_executor:1",
        "programmer:1",
        "test_executor:2",
    ]
    assert state.progressions == 1
    assert state.summary.startswith("AgentCoder")
    assert state.cells[("test_executor:2", 0)].decision == "accept"
    assert state.is_shared("test_designer") and not state.is_shared("programmer")


def test_progress_names_the_planned_step_and_its_repeat():
    events = agentcoder_stream()
    cut = next(i for i, e in enumerate(events) if e.kind == "step_started" and e.step == "test_executor:2")
    assert fold(events, cut + 1).progress_text() == "run tests 2 of 2"
    assert fold(events, 3).progress_text() == "write the program"


def test_a_stream_without_agents_of_qualityflow_gets_its_six_agents_and_plan():
    # LEGACY FALLBACK (delete with ui/legacy_shape.py when the session reader fills agents/plan).
    state = fold(
        [
            ev.RunStarted(
                workflow="qualityflow",
                model="m",
                config={"prompts": 6, "epochs": 2, "clarify": 1, "tqc": True, "checker": "imagined"},
                problem=PROBLEM,
            )
        ]
    )
    assert [a.role for a in state.agents] == QUALITYFLOW_ROLES
    assert state.planned_stages() == [
        "program_generator",
        "test_designer",
        "test_quality_checker",
        "self_debug:1",
        "self_debug:2",
        "clarifier:1",
        "revert",
    ]
    assert state.progressions == 6


def test_another_workflow_without_agents_gets_the_agents_that_speak():
    events = [e for e in agentcoder_stream() if e.kind != "gate_stop"]
    first = events[0]
    assert isinstance(first, ev.RunStarted)
    first.agents, first.plan = [], []
    state = fold(events)
    assert [a.role for a in state.agents] == ["programmer", "test_designer", "test_executor"]
    assert state.planned_stages()[:3] == ["programmer", "test_designer", "test_executor:1"]


def test_replay_cuts_at_the_gate_stops_and_labels_steps_from_the_plan():
    events = agentcoder_stream()
    steps = replay_steps(events)
    stops = [i for i, e in enumerate(events) if e.kind == "gate_stop"]
    # Step 0 is the run's start (run_started); then one step per gate stop.
    assert [s.start for s in steps[1:]] == stops
    assert [s.label for s in steps] == [
        "start",
        "write the program",
        "design tests",
        "run tests 1",
        "refine 1",
        "run tests 2",
    ]
    assert steps[-1].end == len(events)


def test_replay_without_gate_stops_cuts_where_steps_start():
    events = [e for e in agentcoder_stream() if e.kind != "gate_stop"]
    steps = replay_steps(events)
    assert [s.step for s in steps] == [
        None,
        "programmer",
        "test_designer",
        "test_executor:1",
        "programmer:1",
        "test_executor:2",
    ]


def test_a_checking_agent_is_its_own_replay_step_in_an_old_stream():
    # A step's first agent works, a later agent in the same step checks it.
    events: list[ev.Event] = [
        ev.RunStarted(workflow="x", model="m", config={}, problem=PROBLEM),
        ev.StepStarted(step="write", agent="writer", progression=0),
        ev.StepStarted(step="write", agent="writer", progression=1),
        ev.StepStarted(step="write", agent="judge", progression=0),
        ev.StepStarted(step="write", agent="judge", progression=1),
    ]
    steps = replay_steps(events)
    assert [(s.step, s.phase, s.label) for s in steps] == [
        (None, "work", "start"),
        ("write", "work", "write"),
        ("write", "check", "check write"),
    ]
    state = fold(events)
    assert state.cells[("write", 0)].status == "checking"


async def test_the_app_shows_one_pane_per_declared_agent_and_the_plan(tmp_path: Path):
    path = write_session(tmp_path / "agentcoder.jsonl", agentcoder_stream())
    app = create_app(demo_config(), replay_path=path, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        view = app.screen.query_one(RunView)
        view.flush()
        await pilot.pause()
        panes = list(view.query(AgentPane))
        assert [p.agent for p in panes] == ["programmer", "test_designer", "test_executor"]
        programmer = view.query_one("#pane-programmer", AgentPane)
        assert "Fixed:" in "".join(str(c.render()) for c in programmer.query(".agent-call"))
        assert programmer.border_title == "programmer · p0"
        assert view.query_one("#pane-test_designer", AgentPane).border_title == "test_designer · all"
        view.action_show_tab("tab-timeline")
        await pilot.pause()
        timeline = screen_text(app)
        for step in ("programmer", "test_designer", "test_executor:1", "programmer:1", "test_executor:2"):
            assert step in timeline
        assert "ACCEPT" in timeline
        # Going back to the start and forward again rebuilds the same panes.
        await pilot.press("home")
        await pilot.press("end")
        await pilot.pause()
        assert [p.agent for p in view.query(AgentPane)] == ["programmer", "test_designer", "test_executor"]
