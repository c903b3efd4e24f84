"""CodeTree (Li et al., arXiv:2411.04329, section 3), described: the spec the command line, the config file, the
compose form and replay read. Its agents and its run function (``.code_tree``) are
imported only when a run asks for it."""

from __future__ import annotations

from ...config import RunConfig
from ..base import Agent, PlannedStep, WorkflowSpec
from ..settings import Setting

SEARCHES = ("critic", "bfs", "dfs", "strategy_list")

AGENTS = (
    Agent("thinker", "Thinker", "TH"),
    Agent("solver", "Solver", "SO"),
    Agent("debugger", "Debugger", "DB"),
    Agent("critic", "Critic", "CR"),
)


BUDGET = Setting(
    "budget", "generation budget: the most programs the search writes (Table 3: 20)", default=20, minimum=1, maximum=200
)
DEPTH = Setting(
    "depth", "maximum search depth d (Table 3: 3; 1: strategies only, no refinement)", default=3, minimum=1, maximum=10
)
WIDTH = Setting(
    "width",
    "maximum search width w for bfs and dfs: strategies, and reflections per node (Table 3: 3; with the "
    "Critic the Thinker decides how many)",
    default=3,
    minimum=1,
    maximum=10,
)
SEARCH = Setting(
    "search",
    "critic (the Critic scores nodes and decides refine/abort/accept), or the paper's "
    "variants without the Critic: bfs, dfs, strategy_list (Table 2: the Thinker's strategies, "
    "each implemented once, no refinement)",
    default="critic",
    choices=SEARCHES,
    choice_words={"critic": "CodeTree", "bfs": "Table 2", "dfs": "Table 2", "strategy_list": "Table 2"},
)
SEPARATE_SCORING = Setting(
    "separate_scoring",
    "the Critic scores a failing node's test outputs and its solution in two calls, as section 3.2 "
    "evaluates them separately (Figure 10's two prompts); off: one call for both, cheaper",
    default=True,
    before=False,
)
SOLUTION_VERIFICATION = Setting(
    "solution_verification",
    "the Critic verifies a program that passes every visible test before it is accepted (Table 4 ablation: off)",
    default=True,
)
NODE_ABORT = Setting("node_abort", "the Critic may abort (prune) a node (Table 4 ablation: off)", default=True)
NODE_SCORING = Setting(
    "node_scoring",
    "the Critic's evaluation is part of a node's feedback and score (Table 4 ablation: off, execution outputs alone)",
    default=True,
)
SETTINGS = (BUDGET, DEPTH, WIDTH, SEARCH, SEPARATE_SCORING, SOLUTION_VERIFICATION, NODE_ABORT, NODE_SCORING)


def _codetree_plan(cfg: RunConfig) -> list[PlannedStep]:
    """The kinds of step the search takes; it repeats them per node, as the
    Critic (or the BFS/DFS order) and the budget decide."""
    critic = ("critic",) if SEARCH.of(cfg) == "critic" else ()
    if SEARCH.of(cfg) == "strategy_list":
        return [
            PlannedStep("thinker", "strategies", ("thinker",)),
            PlannedStep("solver", "implement each strategy", ("solver",)),
        ]
    return [
        PlannedStep("thinker", "strategies", ("thinker",)),
        PlannedStep("solver", "implement a strategy", ("solver",)),
        *([PlannedStep("critic", "score / verify", critic)] if critic else []),
        PlannedStep("reflection", "reflect on a node", ("thinker",)),
        PlannedStep("debugger", "refine a node", ("debugger",)),
    ]


SPEC = WorkflowSpec(
    name="codetree",
    rank=2,
    summary="CodeTree: Thinker strategies, Solver programs, Critic-guided tree search with "
    "Thinker reflections and Debugger refinements, within a generation budget",
    agents=AGENTS,
    settings=SETTINGS,
    plan=_codetree_plan,
    visible_tests=lambda cfg: "executed in the sandbox",
    executes_visible=lambda cfg: True,
    runner=f"{__name__}.code_tree:run_codetree",
    tabs=lambda cfg: ("tests", "tree"),
    paper="Li et al., CodeTree: Agent-guided Tree Search for Code Generation with Large Language Models "
    "(arXiv:2411.04329), section 3",
    stage_words={
        "thinker": "strategies",
        "solver": "solve",
        "critic": "critic",
        "reflection": "reflect",
        "debugger": "debug",
    },
)
