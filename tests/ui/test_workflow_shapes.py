"""The run view draws any workflow from its events: the agents and the plan its
first event declares, and (for streams recorded before) QualityFlow's own."""

from __future__ import annotations

from pathlib import Path

import wf_streams
from ui_app import SIZE
from wf_streams import AGENTCODER_AGENTS, PROBLEM, agentcoder_stream, codetree_stream, screen_text, write_session

from qflow_tui.core import events as ev
from qflow_tui.ui.app import create_app
from qflow_tui.ui.replay_model import replay_steps
from qflow_tui.ui.state import RunState, RunText, SearchNodes, SynthTests
from qflow_tui.ui.widgets.agent_pane import AgentPane
from qflow_tui.ui.widgets.run_view import RunView
from qflow_tui.ui.widgets.search_tree import SearchTree
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
    assert RunText(fold(events, cut + 1)).progress() == "run tests 2 of 2"
    assert RunText(fold(events, 3)).progress() == "write the program"


def test_a_stream_without_agents_of_qualityflow_gets_its_six_agents_and_plan():
    # A stream from before RunStarted carried agents: the workflow's spec fills them, as the session reader does.
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
        assert "Fixed:" in programmer.text()
        assert programmer.border_title == "programmer · p0"
        assert view.query_one("#pane-test_designer", AgentPane).border_title == "test_designer · all"
        # The test executor calls no model: its pane shows the steps it ran and their outcomes.
        executor = view.query_one("#pane-test_executor", AgentPane).text()
        assert "no calls yet" not in executor
        assert "test_executor:1" in executor and "test_executor:2" in executor and "accept" in executor
        view.action_show_tab("tab-timeline")
        await pilot.pause()
        timeline = screen_text(app)
        # Each step in the workflow's words (the plan's labels).
        for step in ("write the program", "design tests", "run tests 1", "refine 1", "run tests 2"):
            assert step in timeline
        assert "ACCEPT" in timeline
        # Going back to the start and forward again rebuilds the same panes.
        await pilot.press("home")
        await pilot.press("end")
        await pilot.pause()
        assert [p.agent for p in view.query(AgentPane)] == ["programmer", "test_designer", "test_executor"]


def test_the_tree_reducer_keeps_the_latest_event_per_node_and_finds_the_returned_one():
    events = codetree_stream()
    state = fold(events)
    assert list(state.piece(SearchNodes).nodes) == ["1", "2", "1.1"]
    assert [n.node for n in state.piece(SearchNodes).children(None)] == ["1", "2"]
    assert [n.node for n in state.piece(SearchNodes).children("1")] == ["1.1"]
    assert state.piece(SearchNodes).nodes["1"].action == "refine" and state.piece(SearchNodes).nodes["1"].score == 0.4
    assert state.piece(SearchNodes).nodes["2"].action == "abort"
    assert state.piece(SearchNodes).returned == "1.1"
    # Before the run finishes nothing is returned yet.
    assert fold(codetree_stream(finish=False)).piece(SearchNodes).returned is None


def test_the_returned_node_without_an_accept_is_the_one_whose_program_came_back():
    events = [e for e in codetree_stream(finish=False) if not (e.kind == "tree_node" and e.node == "1.1")]
    events.append(ev.RunFinished(final_program=wf_streams.BAD, outcome="rejected", accepted_at=None, seq=999))
    state = fold(events)
    assert state.piece(SearchNodes).returned == "2"  # both hold the same code; the latest is the one returned


async def test_the_tree_tab_shows_nodes_and_a_selected_nodes_code_feedback_and_critique(tmp_path: Path):
    path = write_session(tmp_path / "codetree.jsonl", codetree_stream())
    app = create_app(demo_config(), replay_path=path, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        view = app.screen.query_one(RunView)
        await pilot.press("5")  # the Tree: the fifth tab CodeTree has
        await pilot.pause()
        text = screen_text(app)
        assert "1 Add with the + operator  0/1  score 0.40  refine" in text
        assert "★ 1.1 Add with the + operator  1/1  score 1.00  ACCEPT  returned" in text
        assert "2 Subtract the negation  0/1  score 0.10  abort" in text
        tree = view.query_one(SearchTree)
        assert tree.selected_node() == "1"
        assert "It subtracts where the statement says add." in text
        assert "got -1" in text and "return a - b" in text
        await pilot.press("down")
        await pilot.pause()
        assert tree.selected_node() == "1.1"
        text = screen_text(app)
        assert "the run returned this node's program" in text and "return a + b" in text
        # Back to before the refinement: the node is gone, its parent is still "refine".
        stop = next(i for i, e in enumerate(app.screen.events) if e.kind == "gate_stop" and e.step == "debugger")
        app.screen.seek(stop)
        view.flush()
        await pilot.pause()
        assert "1.1" not in screen_text(app).split("search tree")[0]
        assert "★" not in screen_text(app)


async def test_a_run_without_a_tree_offers_no_tree_tab(tmp_path: Path):
    path = write_session(tmp_path / "agentcoder.jsonl", agentcoder_stream())
    app = create_app(demo_config(), replay_path=path, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        view = app.screen.query_one(RunView)
        await pilot.press("5")
        await pilot.pause()
        assert view.query_one("#run-tabs").active != "tab-tree"
        assert "Tree" not in screen_text(app).splitlines()[2]


class TestCodeTreeSnapshot:
    def test_search_tree_tab(self, snap_compare, tmp_path):
        path = write_session(tmp_path / "codetree.jsonl", codetree_stream())

        async def run_before(pilot):
            await pilot.pause()
            await pilot.press("5")
            await pilot.press("down")
            await pilot.pause()
            pilot.app.clear_notifications()
            await pilot.pause()

        app = create_app(demo_config(), replay_path=path, remember_theme=False)
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_compose_offers_every_workflow_and_only_the_chosen_ones_settings():
    from textual.widgets import Checkbox, Input, Select
    from ui_app import build_app

    from qflow_tui.core.workflows import WORKFLOWS
    from qflow_tui.core.workflows.codetree import BUDGET, NODE_ABORT, NODE_SCORING, SEARCH
    from qflow_tui.core.workflows.settings import ITERATIONS
    from qflow_tui.ui.screens.compose import ComposeScreen

    app = build_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ComposeScreen)
        choice = screen.query_one("#workflow", Select)
        assert [value for _, value in choice._options if value is not Select.BLANK] == list(WORKFLOWS)
        assert choice.value == "qualityflow"

        def shown() -> set[str | None]:
            (box,) = [b for b in screen.query(".workflow-settings") if b.display]
            return {setting.id for setting in box.query(".setting")}

        # Every setting QualityFlow declares, generated from its spec as a plugin's are.
        assert shown() == {f"setting-{s.key}" for s in WORKFLOWS["qualityflow"].settings}
        # Another workflow's settings are not even mounted until it is chosen.
        assert not screen.query("#settings-agentcoder") and not screen.query("#setting-budget")
        choice.value = "agentcoder"
        await pilot.pause()
        assert not screen.query_one("#settings-qualityflow").display
        assert shown() == {"setting-iterations", "setting-max_tests", "setting-regenerate_tests", "setting-agents"}
        screen.query_one("#settings-agentcoder #set-iterations", Select).value = 2
        config = screen.read_config()
        assert (config.workflow, ITERATIONS.of(config)) == ("agentcoder", 2)
        # CodeTree's settings come from its definitions in the core's registry.
        choice.value = "codetree"
        await pilot.pause()
        assert shown() == {
            "setting-budget",
            "setting-depth",
            "setting-width",
            "setting-search",
            "setting-separate_scoring",
            "setting-solution_verification",
            "setting-node_abort",
            "setting-node_scoring",
        }
        screen.query_one("#set-search", Select).value = "bfs"
        screen.query_one("#set-budget", Input).value = "7"
        screen.query_one("#set-node_abort", Checkbox).value = False
        config = screen.read_config()
        assert (config.workflow, SEARCH.of(config), BUDGET.of(config)) == ("codetree", "bfs", 7)
        assert NODE_ABORT.of(config) is False and NODE_SCORING.of(config) is True
        # A budget that is not a number is named when the run is asked for, not a traceback.
        screen.query_one("#set-budget", Input).value = "lots"
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, ComposeScreen)
        assert "budget" in str(screen.query_one("#compose-error").render())
        choice.value = "zeroshot"
        await pilot.pause()
        assert shown() == {"setting-baseline"}


def test_the_returned_node_named_by_the_run_finished_event():
    events = [e for e in codetree_stream(finish=False) if not (e.kind == "tree_node" and e.node == "1.1")]
    finished = ev.RunFinished(
        final_program="",
        outcome="rejected",
        accepted_at=None,
        seq=999,
        detail="nothing accepted (budget spent): the highest-scored, score 0.4",
        node="1",
    )
    events.append(finished)
    assert fold(events).piece(SearchNodes).returned == "1"


def test_a_numbered_repeat_of_a_step_planned_once_is_labelled_after_it():
    events = codetree_stream()
    first = events[0]
    assert isinstance(first, ev.RunStarted)
    events.insert(1, ev.GateStop(step="solver:3", seq=2))
    state = fold(events)
    assert state.step_label("solver:3") == "solve 3"
    # Not planned: in the run's stage words (CodeTree's), as the timeline names it.
    assert state.step_label("critic:7") == "critic 7"
    state.stage_words = {}
    assert state.step_label("critic:7") == "critic:7"  # no words: its name
    assert [s.label for s in replay_steps(events)][1] == "solve 3"


async def test_the_tests_table_shows_the_tests_another_workflow_ran(tmp_path: Path):
    state = fold(agentcoder_stream())
    assert [(t.test, t.source, t.results[0]["status"]) for t in state.piece(SynthTests).tests] == [
        ("assert add(2, 2) == 4", "run", "pass")
    ]
    path = write_session(tmp_path / "agentcoder.jsonl", agentcoder_stream())
    app = create_app(demo_config(), replay_path=path, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("3")  # the Tests tab: AgentCoder has no Imagined tab
        await pilot.pause()
        text = screen_text(app)
        assert "1 run · p0 at test_executor:2: 1/1 pass" in text
        assert "assert add(2, 2) == 4" in text and "last run (p0's program at test_executor:2) pass" in text


def test_numbered_repeats_take_the_place_of_the_step_planned_once_in_the_order_they_ran():
    plan = [{"step": s, "label": s, "agents": []} for s in ("thinker", "solver", "critic", "debugger")]
    events: list[ev.Event] = [
        ev.RunStarted(workflow="x", model="m", config={}, problem=PROBLEM, agents=wf_streams.CODETREE_AGENTS, plan=plan)
    ]
    for step in ("thinker", "solver:1", "critic:1", "debugger:2", "critic:2"):
        events.append(ev.StepStarted(step=step, agent="a", progression=0))
    assert fold(events).planned_stages() == ["thinker", "solver:1", "critic:1", "debugger:2", "critic:2"]
    assert fold(events[:3]).planned_stages() == ["thinker", "solver:1", "critic", "debugger"]


def test_every_reducer_handler_is_reached_by_its_event_class():
    from qflow_tui.core import run_state as state

    handlers = {name for name in vars(state.RunState) if name.startswith("_on_")}
    table = {fn.__name__ for fn in state._HANDLERS.values()}
    assert handlers == table
    for cls, fn in state._HANDLERS.items():
        assert fn.__name__ == f"_on_{cls.kind}"  # the handler is the one for that class's kind
