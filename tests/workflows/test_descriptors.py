"""Workflows are described, not wired in: the registry, the run's first event,
the step gate's stops as events, and old sessions filled from their workflow's description."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qflow_tui.core.config import ConfigError, RunConfig
from qflow_tui.core.events import RunStarted
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.run_state import RunState
from qflow_tui.core.session import read_session
from qflow_tui.core.steps import StepId
from qflow_tui.core.workflow_run import run_workflow
from qflow_tui.core.workflows import WORKFLOWS, get_workflow
from qflow_tui.core.workflows.codetree import BUDGET, DEPTH, SEARCH
from qflow_tui.core.workflows.values import load_config
from tests.core.test_qualityflow import PROBLEM
from tests.helpers import CORRECT, Recorder, Story


def test_every_workflow_describes_itself():
    assert {"qualityflow", "agentcoder", "zeroshot"} <= set(WORKFLOWS)
    for name, spec in WORKFLOWS.items():
        cfg = RunConfig(workflow=name)
        described = spec.described(cfg)
        roles = [a["role"] for a in described["agents"]]
        assert roles and len(set(roles)) == len(roles)
        # Every planned step names only the workflow's own agents.
        for step in described["plan"]:
            assert set(step["agents"]) <= set(roles), (name, step)
            assert step["label"] and step["step"]
        assert described["summary"] and described["visible_tests"]
        for setting in spec.settings:
            assert setting.doc and setting.default == setting.of(cfg)


def test_qualityflow_plan_follows_its_settings():
    spec = get_workflow("qualityflow")
    steps = [s.step for s in spec.plan(RunConfig().replace(epochs=2, clarify=1, tqc=False))]
    assert steps == ["program_generator", "test_designer", "self_debug:1", "self_debug:2", "clarifier:1", "revert"]
    steps = [s.step for s in spec.plan(RunConfig().replace(epochs=0, clarify=0, checker="none"))]
    assert steps == ["program_generator"]
    assert (
        spec.progressions(RunConfig().replace(prompts=4)) == 4
        and spec.progressions(RunConfig().replace(checker="none")) == 1
    )
    assert spec.step_label("self_debug:2") == "self-debug 2"


def test_agentcoder_plan_has_one_refinement_per_iteration():
    spec = get_workflow("agentcoder")
    steps = [s.step for s in spec.plan(RunConfig(workflow="agentcoder").replace(iterations=2))]
    assert steps == [
        "programmer",
        "test_designer",
        "test_executor:1",
        "programmer:1",
        "test_designer:2",
        "test_executor:2",
        "programmer:2",
        "test_designer:3",
        "test_executor:3",
    ]
    once = RunConfig(workflow="agentcoder").replace(iterations=2, regenerate_tests=False)
    assert [s.step for s in spec.plan(once)] == [
        "programmer",
        "test_designer",
        "test_executor:1",
        "programmer:1",
        "test_executor:2",
        "programmer:2",
        "test_executor:3",
    ]


@pytest.mark.parametrize(
    "agents,steps",
    [
        ("programmer", ["programmer"]),
        ("programmer+test_designer", ["programmer", "test_designer", "programmer:1"]),
        ("programmer+test_executor", ["programmer", "test_executor:1", "programmer:1", "test_executor:2"]),
    ],
)
def test_agentcoder_ablations_plan_their_own_steps(agents, steps):
    config = RunConfig(workflow="agentcoder").replace(iterations=1, agents=agents)
    assert [s.step for s in get_workflow("agentcoder").plan(config)] == steps


def test_an_unknown_workflow_is_one_line():
    with pytest.raises(ConfigError, match="unknown workflow 'nope': choose one of qualityflow"):
        get_workflow("nope")
    with pytest.raises(ConfigError, match="unknown workflow"):
        load_config(env={}, overrides={"workflow": "nope"})


@pytest.mark.parametrize(
    "overrides,message",
    [
        ({"prompts": 9}, "prompts 9: the program generator has 6 prompt variants; choose 1 to 6"),
        ({"checker": "magic"}, "checker 'magic': choose one of imagined, python, yesno, none"),
        ({"iterations": 0, "workflow": "agentcoder"}, "iterations 0"),
    ],
)
def test_settings_are_checked_by_their_definitions(tmp_path, overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_config(tmp_path / "none.toml", env={}, overrides=overrides)


def test_step_identity():
    assert StepId("self_debug", epoch=2).name == "self_debug:2"
    assert StepId("clarifier", attempt=1, progression=3).name == "clarifier:1"


async def test_the_first_event_carries_the_description_and_every_gate_stop_is_an_event(tmp_path):
    story = Story(generate=lambda p: CORRECT)
    rec = Recorder()
    await run_workflow(
        PROBLEM,
        RunConfig(model="script/story").replace(prompts=2),
        client=ScriptClient.from_function(story),
        sinks=[rec],
        session_dir=tmp_path,
    )
    first = rec.events[0]
    assert isinstance(first, RunStarted)
    assert [a["role"] for a in first.agents][:2] == ["program_generator", "test_designer"]
    assert first.plan[0] == {
        "step": "program_generator",
        "label": "generate",
        "agents": ["program_generator", "code_quality_checker"],
        "short": "gen",
    }
    assert [s["step"] for s in first.plan if s.get("shared")] == ["test_designer", "test_quality_checker", "revert"]
    assert first.progressions == 2 and first.visible_tests == "not executed (imagined execution only)"
    # Each step_started follows the gate stop that let it in: a check's is typed so.
    stops = [(f"check:{e.step}" if e.check else e.step, e.progression) for e in rec.of("gate_stop")]
    assert sorted(stops, key=str) == sorted(
        [
            ("program_generator", 0),
            ("program_generator", 1),
            ("check:program_generator", 0),
            ("check:program_generator", 1),
        ],
        key=str,
    )
    for i, e in enumerate(rec.events):
        if e.kind == "step_started":
            gate = f"check:{e.step}" if e.agent == "code_quality_checker" else e.step
            before = [x for x in rec.events[:i] if x.kind == "gate_stop" and x.progression == e.progression]
            assert before and (f"check:{before[-1].step}" if before[-1].check else before[-1].step) == gate
            assert before[-1].agent == e.agent


def _old_session(path, workflow: str, config: dict, events: list[dict]) -> None:
    """A session as the previous version wrote it: no agents or plan in run_started."""
    from qflow_tui.core.session import fileformat

    header = {
        "format": fileformat.SESSION_FORMAT,
        "format_version": fileformat.SESSION_FORMAT_VERSION,
        "app_version": "0.1.0",
        "workflow": workflow,
        "model": "m",
        "config": config,
    }
    lines = [header, *events]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def test_an_old_session_gets_its_workflows_agents_and_plan(tmp_path):
    path = tmp_path / "old.jsonl"
    start = {"kind": "run_started", "seq": 1, "ts": 1.0, "workflow": "qualityflow", "model": "m", "problem": {}}
    start["config"] = {"epochs": 1, "clarify": 0, "tqc": True, "prompts": 2, "checker": "imagined"}
    _old_session(path, "qualityflow", start["config"], [start])
    data = read_session(path)
    first = data.events[0]
    assert [a["role"] for a in first.agents] == [
        "program_generator",
        "test_designer",
        "test_quality_checker",
        "self_debugger",
        "code_quality_checker",
        "clarifier",
    ]
    assert [s["step"] for s in first.plan] == [
        "program_generator",
        "test_designer",
        "test_quality_checker",
        "self_debug:1",
        "revert",
    ]
    assert first.progressions == 2


def test_an_old_session_of_an_unknown_workflow_still_reads_with_the_agents_that_spoke(tmp_path):
    """Nothing guesses a description for an unknown workflow's old session any
    more (the changelog says so): it reads, and the agents that spoke get panes."""
    path = tmp_path / "old.jsonl"
    events = [
        {"kind": "run_started", "seq": 1, "ts": 1.0, "workflow": "gone", "model": "m", "config": {}, "problem": {}},
        {"kind": "step_started", "seq": 2, "ts": 1.0, "step": "plan", "agent": "planner"},
        {"kind": "step_started", "seq": 3, "ts": 1.0, "step": "code", "agent": "coder"},
    ]
    _old_session(path, "gone", {}, events)
    data = read_session(path)
    assert not data.events[0].agents and data.events[0].tabs is None
    state = RunState()
    for e in data.events:
        state.apply(e)
    assert [a.role for a in state.agents] == ["planner", "coder"]
    assert state.planned_stages() == ["plan", "code"] and state.tabs == ()


def test_workflow_settings_are_config_file_keys(tmp_path):
    f = tmp_path / "config.toml"
    f.write_text('[run]\nworkflow = "codetree"\nbudget = 7\nsearch = "dfs"\n', encoding="utf-8")
    config = load_config(f, env={})
    assert (config.workflow, BUDGET.of(config), SEARCH.of(config), DEPTH.of(config)) == ("codetree", 7, "dfs", 3)
    f.write_text('[run]\nsearch = "wide"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="search 'wide': choose one of critic, bfs, dfs"):
        load_config(f, env={})
    # Flags beat the file.
    f.write_text('[run]\nworkflow = "codetree"\nbudget = 7\n', encoding="utf-8")
    assert BUDGET.of(load_config(f, env={}, overrides={"budget": "9"})) == 9


def test_zero_shot_is_its_own_package_with_qualityflows_first_prompt():
    """The baseline column of the paper's tables is QualityFlow's first generator
    prompt; zero-shot keeps its own copy, so nothing of QualityFlow is imported."""
    import ast

    from qflow_tui.locations import prompts_dir

    root = prompts_dir()
    assert (root / "zeroshot/program_generator/direct.txt").read_text(encoding="utf-8") == (
        root / "qualityflow/program_generator/variant-1-direct.txt"
    ).read_text(encoding="utf-8")
    package = Path(__file__).parents[2] / "qflow_tui" / "core" / "workflows" / "zeroshot"
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                assert "qualityflow" not in (node.module or ""), (path.name, node.module)


def test_each_built_in_workflow_cites_its_paper_as_a_reader_can_find_it():
    """The paper a workflow follows is named by title and arXiv id, both of a
    paper whose figures the package keeps, never by a file outside the repository."""
    import re

    from qflow_tui.core.bench import papers
    from qflow_tui.core.workflows import WORKFLOWS

    kept = {p.arxiv: p for p in (papers.paper(name) for name in papers.paper_names())}
    for name in ("qualityflow", "agentcoder", "codetree", "adacoder", "zeroshot"):
        cited = WORKFLOWS[name].paper
        found = re.search(r"\(arXiv:(\d{4}\.\d{4,5})\)", cited)
        assert found and found.group(1) in kept, (name, cited)
        short_title = kept[found.group(1)].title.split(":")[0]
        assert short_title in cited and ".txt" not in cited and "shared" not in cited, (name, cited)
