"""CodeTree (codetree.txt section 3), described: the spec the command line, the config file, the
compose form and replay read. Its agents and its run function (``.run``) are
imported only when a run asks for it."""

from __future__ import annotations

from ...config import RunConfig
from ..base import Agent, PlannedStep, WorkflowSpec
from ..settings import Setting

SEARCHES = ("critic", "bfs", "dfs")

AGENTS = (
    Agent("thinker", "Thinker", "TH"),
    Agent("solver", "Solver", "SO"),
    Agent("debugger", "Debugger", "DB"),
    Agent("critic", "Critic", "CR"),
)


def _codetree_plan(cfg: RunConfig) -> list[PlannedStep]:
    """The kinds of step the search takes; it repeats them per node, as the
    Critic (or the BFS/DFS order) and the budget decide."""
    critic = ("critic",) if cfg.search == "critic" else ()
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
    settings=(
        Setting("budget", "generation budget: the most programs the search writes", minimum=1, maximum=200),
        Setting(
            "depth",
            "maximum search depth d (1: strategies only, no refinement)",
            minimum=1,
            maximum=10,
        ),
        Setting(
            "width",
            "maximum search width w for bfs and dfs: strategies, and reflections per node (with the "
            "Critic the Thinker decides how many)",
            minimum=1,
            maximum=10,
        ),
        Setting(
            "search",
            "critic (the Critic scores nodes and decides refine/abort/accept), or the paper's "
            "ablations without the Critic: bfs, dfs",
            choices=SEARCHES,
        ),
        Setting(
            "solution_verification",
            "the Critic verifies a program that passes every visible test before it is accepted "
            "(Table 4 ablation: off)",
            default=True,
        ),
        Setting("node_abort", "the Critic may abort (prune) a node (Table 4 ablation: off)", default=True),
        Setting(
            "node_scoring",
            "the Critic's evaluation is part of a node's feedback and score (Table 4 ablation: off, "
            "execution outputs alone)",
            default=True,
        ),
    ),
    plan=_codetree_plan,
    visible_tests=lambda cfg: "executed in the sandbox",
    executes_visible=lambda cfg: True,
    runner=f"{__name__}.run:run_codetree",
    paper="codetree.txt section 3",
    stage_words={
        "thinker": "strategies",
        "solver": "solve",
        "critic": "critic",
        "reflection": "reflect",
        "debugger": "debug",
    },
)
