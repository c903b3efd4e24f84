"""CodeTree with a script model and the real sandbox: every branch of the
search (accept early, refine, abort, budget spent, BFS, DFS)."""

from __future__ import annotations

import re
from collections.abc import Callable

from qflow_tui.core.config import RunConfig, make_config
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.workflow_run import run_workflow
from tests.core.test_qualityflow import PROBLEM
from tests.helpers import CORRECT, Recorder, buggy

WRONG = buggy("wrong")


class Tree:
    """A script model for CodeTree. Strategies are ``S1``..``Sn``; the Solver
    writes CORRECT for the strategies in ``good``; the Debugger writes CORRECT
    for a reflection naming ``FIX``; ``critic`` decides from (program, verify)."""

    def __init__(
        self,
        strategies: int = 3,
        good: tuple[str, ...] = (),
        reflections: Callable[[str], list[str]] | None = None,
        critic: Callable[[str, bool], str] | None = None,
    ) -> None:
        self.strategies = strategies
        self.good = good
        self.reflections = reflections or (lambda program: ["R-a", "R-b"])
        self.critic = critic or (lambda program, verify: "accept" if verify else "refine")
        self.calls: list[dict] = []

    def of(self, agent: str) -> list[dict]:
        return [c for c in self.calls if c["agent"] == agent]

    def __call__(self, request: dict) -> str:
        self.calls.append(request)
        agent, text = request["agent"], request["messages"][-1]["content"]
        if agent == "thinker":
            if "strategies" in text:
                return "".join(f"<strategy>S{i} approach</strategy>\n" for i in range(1, self.strategies + 1))
            program = re.search(r"```python\n(.*?)```", text, re.S).group(1)
            return "".join(f"<reflection>{r}</reflection>" for r in self.reflections(program))
        if agent == "solver":
            strategy = re.search(r"Implement this strategy:\n(S\d+)", text).group(1)
            return "```python\n" + (CORRECT if strategy in self.good else buggy(strategy)) + "```"
        if agent == "debugger":
            reflection = text.split("Reflection on how to improve it:\n", 1)[1]
            tag = reflection.split()[0]
            return "```python\n" + (CORRECT if "FIX" in reflection else buggy(tag)) + "```"
        if agent == "critic":
            program = re.search(r"```python\n(.*?)```", text, re.S).group(1)
            verify = "passes every visible test" in request["system"]
            action = self.critic(program, verify)
            score = 9 if action == "accept" else 5 if action == "refine" else 1
            return f"<critique>looked at it</critique>\n<score>{score}</score>\n<action>{action}</action>"
        raise AssertionError(agent)


async def solve(tree: Tree, tmp_path, **cfg):
    rec = Recorder()
    outcome = await run_workflow(
        PROBLEM,
        make_config({"model": "script/tree", "workflow": "codetree", **cfg}),
        client=ScriptClient.from_function(tree),
        sinks=[rec],
        session_dir=tmp_path,
    )
    return outcome, rec


def latest_nodes(rec: Recorder) -> dict:
    return {e.node: e for e in rec.of("tree_node")}


async def test_the_critic_accepts_a_verified_first_program(tmp_path):
    tree = Tree(good=("S1",))
    outcome, rec = await solve(tree, tmp_path)
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "critic:1")
    assert outcome.final_program.strip() == CORRECT.strip()
    # One strategy call, one program, one verification: the search ends early.
    assert [c["agent"] for c in tree.calls] == ["thinker", "solver", "critic"]
    nodes = latest_nodes(rec)
    assert list(nodes) == ["n1"] and nodes["n1"].action == "accept" and nodes["n1"].passed == 2
    assert nodes["n1"].parent is None and nodes["n1"].score == 1.9
    assert rec.of("run_finished")[0].detail.startswith("accepted node n1")
    # The run's first event describes CodeTree.
    assert [a["role"] for a in rec.events[0].agents] == ["thinker", "solver", "debugger", "critic"]


async def test_refine_writes_debugger_children_from_thinker_reflections(tmp_path):
    tree = Tree(reflections=lambda p: ["R-a", "FIX it"])
    outcome, rec = await solve(tree, tmp_path)
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "critic:4")
    nodes = latest_nodes(rec)
    # Depth first: n1 (S1) is refined; its first reflection gives n2 (still wrong),
    # refined in turn: n3 (depth 3, the limit: not refined further), then n4 (FIX).
    assert nodes["n1"].action == "refine" and nodes["n2"].parent == "n1"
    assert nodes["n3"].parent == "n2" and nodes["n3"].action == "refine"
    assert nodes["n4"].parent == "n2" and nodes["n4"].action == "accept"
    assert len(tree.of("thinker")) == 3  # strategies, reflections on n1 and on n2; none on n3
    # The Debugger was told the execution feedback and the Critic's judgement.
    first_debug = tree.of("debugger")[0]["messages"][-1]["content"]
    assert "add_one(1)" in first_debug and "looked at it" in first_debug
    # Reflections are at most `width` and each node's events carry its id.
    assert {e.node for e in rec.of("llm_call_started") if e.agent == "debugger"} == {"n2", "n3", "n4"}


async def test_abort_prunes_a_node_and_retraces_to_its_sibling(tmp_path):
    tree = Tree(good=("S2",), critic=lambda p, verify: "accept" if verify else "abort")
    outcome, rec = await solve(tree, tmp_path)
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "critic:2")
    assert tree.of("debugger") == []  # the aborted n1 was never refined
    nodes = latest_nodes(rec)
    assert nodes["n1"].action == "abort" and nodes["n2"].parent is None and nodes["n2"].action == "accept"


async def test_budget_spent_returns_the_highest_scored_node(tmp_path):
    # Nothing is ever correct; the critic refines everything. With budget 5 the
    # search writes exactly 5 programs and returns the best-scored one.
    def reflections(program: str) -> list[str]:
        return ["R-x", "R-y"]

    tree = Tree(reflections=reflections)

    def critic(program: str, verify: bool) -> str:
        return "refine"

    tree.critic = critic
    outcome, rec = await solve(tree, tmp_path, budget=5)
    programs = tree.of("solver") + tree.of("debugger")
    assert len(programs) == 5
    assert outcome.outcome == "rejected" and outcome.accepted_at is None
    nodes = latest_nodes(rec)
    assert len(nodes) == 5
    best = max(nodes.values(), key=lambda n: (n.score, -int(n.node[1:])))
    assert outcome.final_program == best.code
    finished = rec.of("run_finished")[0]
    assert f"returned node {best.node}" in finished.detail and "budget of 5 programs spent" in finished.detail
    # The result says which node it is, live and read back from the session.
    from qflow_tui.core.session import read_session

    assert outcome.summary()["detail"] == finished.detail
    assert read_session(outcome.session).summary()["detail"] == finished.detail


async def test_budget_best_node_prefers_the_higher_score(tmp_path):
    """The returned node is the one with the highest Score(F_exe) + Score(F_cri)."""
    half = "def add_one(x):\n    return 2 if x == 1 else 0\n"  # passes 1 of 2 visible tests

    tree = Tree(strategies=2, critic=lambda p, verify: "abort")

    original = tree.__call__

    def respond(request: dict) -> str:
        if request["agent"] == "solver" and "S2 approach" in request["messages"][-1]["content"]:
            tree.calls.append(request)
            return "```python\n" + half + "```"
        return original(request)

    rec = Recorder()
    outcome = await run_workflow(
        PROBLEM,
        RunConfig(model="script/tree", workflow="codetree"),
        client=ScriptClient.from_function(respond),
        sinks=[rec],
        session_dir=tmp_path,
    )
    assert outcome.outcome == "rejected"
    assert outcome.final_program.strip() == half.strip()
    assert "returned node n2" in rec.of("run_finished")[0].detail
    assert "the search ended" in rec.of("run_finished")[0].detail


async def test_bfs_writes_every_strategy_then_refines_level_by_level(tmp_path):
    tree = Tree(strategies=3, reflections=lambda p: ["R-a", "R-b"] if "S1" in p else ["FIX", "R-c"])
    outcome, rec = await solve(tree, tmp_path, search="bfs")
    assert tree.of("critic") == []
    assert outcome.outcome == "accepted"
    nodes = latest_nodes(rec)
    # Level 1: n1..n3 from the strategies; level 2: n1's children n4, n5, then n2's first child n6 passes.
    assert [nodes[f"n{i}"].parent for i in range(1, 7)] == [None, None, None, "n1", "n1", "n2"]
    assert nodes["n6"].action == "accept" and outcome.accepted_at == nodes["n6"].step
    assert all(n.action == "refine" for k, n in nodes.items() if k != "n6")
    # Without the Critic a node's score is its pass rate.
    assert nodes["n6"].score == 1.0 and nodes["n1"].score == 0.0


async def test_dfs_refines_the_first_strategy_down_to_the_depth_limit_first(tmp_path):
    tree = Tree(strategies=2, good=("S2",), reflections=lambda p: ["R-a"])
    outcome, rec = await solve(tree, tmp_path, search="dfs", depth=3)
    assert tree.of("critic") == []
    nodes = latest_nodes(rec)
    # n1 (S1) -> n2 -> n3 (depth 3, the limit), then back to S2: n4 passes.
    assert [(k, n.parent) for k, n in nodes.items()] == [("n1", None), ("n2", "n1"), ("n3", "n2"), ("n4", None)]
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "solver:4")


async def test_width_limits_strategies_and_reflections(tmp_path):
    tree = Tree(strategies=5, reflections=lambda p: ["R-1", "R-2", "R-3", "R-4"])
    await solve(tree, tmp_path, width=2, depth=2, search="bfs", budget=50)
    assert len(tree.of("solver")) == 2  # only 2 of the Thinker's 5 strategies
    assert len(tree.of("debugger")) == 4  # 2 reflections on each of the 2 nodes, depth 2 stops there


async def test_with_the_critic_the_thinker_decides_how_many_strategies_and_reflections(tmp_path):
    """Section 3.1: the Thinker decides the number of strategies; the width bounds only BFS/DFS."""
    tree = Tree(strategies=5, reflections=lambda p: ["R-1", "R-2", "R-3", "R-4"], critic=lambda p, v: "abort")
    await solve(tree, tmp_path, width=2, depth=2, budget=50)
    assert len(tree.of("solver")) == 5  # every strategy, though the width is 2
    assert all("between 1 and" not in c["messages"][-1]["content"] for c in tree.of("thinker"))
    tree = Tree(strategies=1, reflections=lambda p: ["R-1", "R-2", "R-3", "R-4"])
    await solve(tree, tmp_path, width=2, depth=2, budget=50)
    assert len(tree.of("debugger")) == 4  # every reflection on n1; depth 2 stops there


async def test_the_debugger_is_told_the_strategy_its_node_implements(tmp_path):
    """Eq. 6: the Debugger's input holds the strategy S_i, also deeper in the tree."""
    tree = Tree(strategies=2, reflections=lambda p: ["R-a"])
    await solve(tree, tmp_path, depth=3, budget=4)
    prompts = [c["messages"][-1]["content"] for c in tree.of("debugger")]
    assert len(prompts) == 2 and all("The strategy it implements:\nS1 approach" in p for p in prompts)


async def test_the_critic_and_the_reflection_are_told_the_strategy_below_depth_1(tmp_path):
    """Eq. 4 and 5: the Critic and the Thinker's reflection take the node's
    strategy S_i, not the reflection its Debugger followed."""
    tree = Tree(strategies=1, reflections=lambda p: ["R-a"])
    await solve(tree, tmp_path, depth=3, budget=3)
    # The Debugger's child of n1 carries its reflection's tag in its program.
    # (The Critic's test-output scoring is shown no strategy at all.)
    deeper = [
        c
        for c in tree.calls
        if c["agent"] in ("critic", "thinker") and "# R-a" in (text := c["messages"][-1]["content"])
        if "The strategy it followed:" in text
    ]
    assert {c["agent"] for c in deeper} == {"critic", "thinker"}
    assert all("The strategy it followed:\nS1 approach" in c["messages"][-1]["content"] for c in deeper)


async def test_without_solution_verification_a_passing_program_is_accepted_unverified(tmp_path):
    """Table 4, w/o Solution Verification."""
    tree = Tree(good=("S1",))
    outcome, _ = await solve(tree, tmp_path, solution_verification=False)
    assert [c["agent"] for c in tree.calls] == ["thinker", "solver"]
    assert (outcome.outcome, outcome.accepted_at) == ("accepted", "solver:1")


async def test_without_node_abort_an_abort_is_refined_to_the_depth(tmp_path):
    """Table 4, w/o Node Abort Evaluation: the agents keep exploring to the max depth."""
    tree = Tree(strategies=1, reflections=lambda p: ["R-a"], critic=lambda p, v: "abort")
    await solve(tree, tmp_path, depth=3, node_abort=False)
    assert len(tree.of("debugger")) == 2  # n1 -> n2 -> n3 (depth 3)
    tree = Tree(strategies=1, reflections=lambda p: ["R-a"], critic=lambda p, v: "abort")
    await solve(tree, tmp_path, depth=3)
    assert tree.of("debugger") == []


async def test_without_node_scoring_the_feedback_and_score_are_execution_alone(tmp_path):
    """Table 4, w/o Node Scoring: F_i is the execution outputs; the score their pass rate."""
    tree = Tree(strategies=1, reflections=lambda p: ["R-a"], critic=lambda p, v: "refine")
    _, rec = await solve(tree, tmp_path, depth=2, node_scoring=False)
    debug = tree.of("debugger")[0]["messages"][-1]["content"]
    assert "add_one(1)" in debug and "looked at it" not in debug
    assert latest_nodes(rec)["n1"].score == 0.0


def test_the_critics_two_scores_and_its_tolerant_reading():
    from qflow_tui.core.workflows.codetree.critic import parse_critique

    c = parse_critique(
        "<critique>misses zeros</critique><test_score>8</test_score><strategy_score>4</strategy_score>"
        "<action>refine</action>",
        verify=False,
    )
    assert (c.action, c.score, c.test_score, c.strategy_score, c.critique) == ("refine", 0.6, 8, 4, "misses zeros")
    # One overall score, an out-of-range value, a missing action tag.
    assert parse_critique("<score>14</score> I would abort this.", verify=False).score == 1.0
    assert parse_critique("I would abort this.", verify=False).action == "abort"
    # Only a verified program can be accepted; a verification does not abort.
    assert parse_critique("<action>accept</action>", verify=False).action == "refine"
    assert parse_critique("<action>abort</action>", verify=True).action == "refine"
    assert parse_critique("nothing useful", verify=True).action == "refine"


async def test_the_critic_scores_test_outputs_and_the_solution_in_separate_calls(tmp_path):
    """Section 3.2: "We separately evaluate how well: 1) the execution outputs of
    test cases match expected outputs ...; and 2) the solution robustly implements
    its corresponding strategy". Two calls for a failing node; off, one."""
    asked: list[str] = []

    def critic(request: dict) -> str:
        text = request["messages"][-1]["content"]
        asked.append(text)
        if "strategy it followed" not in text:  # test-case scoring: outputs only
            return "<critique>off by one everywhere</critique>\n<test_score>2</test_score>"
        return "<critique>the approach is sound</critique>\n<strategy_score>8</strategy_score>\n<action>abort</action>"

    tree = Tree(strategies=1)
    plain = tree.__call__
    client = lambda request: critic(request) if request["agent"] == "critic" else plain(request)  # noqa: E731
    rec = Recorder()
    await run_workflow(
        PROBLEM,
        make_config({"model": "script/tree", "workflow": "codetree", "budget": 1}),
        client=ScriptClient.from_function(client),
        sinks=[rec],
        session_dir=tmp_path,
    )
    assert len(asked) == 2
    assert "S1 approach" not in asked[0] and "S1 approach" in asked[1]
    node = latest_nodes(rec)["n1"]
    # Eq. 7: the pass rate (0) plus the mean of the two scores (2 and 8 of 10).
    assert node.score == 0.5 and node.action == "abort"
    assert "off by one everywhere" in node.critique and "the approach is sound" in node.critique

    asked.clear()
    await run_workflow(
        PROBLEM,
        make_config({"model": "script/tree", "workflow": "codetree", "budget": 1, "separate_scoring": False}),
        client=ScriptClient.from_function(client),
        sinks=[Recorder()],
        session_dir=tmp_path,
    )
    assert len(asked) == 1 and "S1 approach" in asked[0]


async def test_the_strategy_list_implements_each_strategy_once_and_accepts_the_first_that_passes(tmp_path):
    """Table 2's Strategy List: no Critic, no refinement, strategies in order."""
    tree = Tree(strategies=4, good=("S3",))
    outcome, rec = await solve(tree, tmp_path, search="strategy_list")
    assert "between 1 and 20" in tree.of("thinker")[0]["messages"][-1]["content"]  # the budget's worth
    assert len(tree.of("thinker")) == 1 and not tree.of("critic") and not tree.of("debugger")
    assert len(tree.of("solver")) == 3
    assert (outcome.outcome, outcome.final_program.strip()) == ("accepted", CORRECT.strip())
    assert latest_nodes(rec)["n3"].parent is None

    tree = Tree(strategies=4)
    outcome, _ = await solve(tree, tmp_path, search="strategy_list", budget=2)
    assert len(tree.of("solver")) == 2 and not tree.of("debugger")
    assert outcome.outcome == "rejected"


def test_the_strategy_list_rows_name_the_setting_that_reproduces_them():
    from qflow_tui.core.bench import papers

    (row,) = [r for t in papers.paper("codetree").tables for r in t.rows if r.id == "t2-gpt-4o-strategy-list"]
    commands = [command for _, command in papers.reproduce(row)]
    assert commands and all("--search strategy_list" in c for c in commands if c.startswith("qflow bench"))
    assert any(c.startswith("qflow bench") for c in commands)
