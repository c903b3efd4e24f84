"""CodeTree (Li et al., section 3): agent-guided tree search for code.

The Thinker proposes strategies; the Solver implements each as a child of the
root (the problem); every new program is run on the visible tests in the
sandbox (execution feedback). With the Critic (``search=critic``), the Critic
scores each node (Score = Score(F_exe) + Score(F_cri), Eq. 7), verifies a
program that passes every visible test, and decides: refine (the Thinker
reflects on the node and the Debugger writes one child per reflection, explored
depth first), abort (prune it, retrace to its siblings) or accept (end the
search). Without the Critic (the paper's CodeTree-BFS and -DFS ablations) a
node is accepted when it passes every visible test and every other node is
refined, level by level (``bfs``) or depth first (``dfs``). Table 2's Strategy
List (``strategy_list``; the paper names the row and no more) is read as the
tree without its depth: the Thinker lists up to a budget's worth of strategies,
the Solver implements each once, in order, and the first program that passes
every visible test is accepted, as in the paper's other variants without the
Critic (section 4.1).

With the Critic the Thinker decides how many strategies, and reflections per
node, to write (section 3.1); the width w bounds them only in the BFS/DFS
ablations (its Table 3: 3), where the Thinker is asked for at most w. The
search is bounded by the generation budget (programs written, 20 in the
paper) and the depth d (3 in Table 3). Where this departs from issue 28's
reading ("depth bounds only BFS/DFS"): the paper's own ablation of the Critic
(section 4.5, "keep exploring till we reach the max depth") has the Critic's
search bounded by the max depth too, so d bounds every search. When nothing is
accepted the highest-scored node is returned.

The Critic's tasks can each be left out, as in the paper's Table 4:
``solution_verification`` off accepts a program that passes every visible test
without the Critic's verification; ``node_abort`` off reads the Critic's abort
as refine, so the search goes on to the depth d; ``node_scoring`` off leaves the Critic's evaluation out of the
node's feedback and score (execution outputs alone).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...agents.test_executor import execute_tests, execution_feedback
from ...context import RunContext
from ...events import CriticAction, Decision, TreeNode
from ...steps import step
from ..base import WorkflowResult
from . import BUDGET, DEPTH, NODE_ABORT, NODE_SCORING, SEARCH, SEPARATE_SCORING, SOLUTION_VERIFICATION, WIDTH
from .critic import criticise
from .debugger import refine
from .solver import implement
from .thinker import propose_strategies, reflect

#: When the Thinker answers with no strategy at all, the Solver still gets one.
_PLAIN_STRATEGY = "Solve the problem directly, handling the edge cases the statement implies."


@dataclass
class Node:
    """A program in the tree; the root (the problem itself) is not a node."""

    id: str
    number: int
    parent: Node | None
    depth: int
    """1 for a strategy's program, +1 per Debugger refinement."""
    strategy: str
    """The Thinker's strategy (a child of the root) or reflection (deeper)."""
    code: str = ""
    made_at: str = ""
    """The step that wrote it: ``solver:1``, ``debugger:4``."""
    passed: int = 0
    total: int = 0
    load_error: bool = False
    feedback: str = ""
    critic_score: float | None = None
    action: CriticAction = ""
    critique: str = ""
    scored: bool = True
    """The Critic's evaluation is part of F_i and of the score (Table 4: w/o Node Scoring turns it off)."""
    children: list[Node] = field(default_factory=list)

    @property
    def line_strategy(self) -> str:
        """S_i: the Thinker's strategy this node's line implements (its reflections come after)."""
        node = self
        while node.parent is not None:
            node = node.parent
        return node.strategy

    @property
    def passes(self) -> bool:
        return not self.load_error and self.total > 0 and self.passed == self.total

    @property
    def execution_score(self) -> float:
        """Score(F_exe): the share of visible tests it passes."""
        return self.passed / self.total if self.total and not self.load_error else 0.0

    @property
    def score(self) -> float:
        """Eq. 7 with the Critic; the pass rate alone without it."""
        return self.execution_score + (self.critic_score if self.scored and self.critic_score is not None else 0.0)

    @property
    def feedback_for_agents(self) -> str:
        """F_i = {F_exe, F_cri}: what the Thinker and the Debugger are told."""
        if self.critique and self.scored:
            return f"{self.feedback}\n\nThe critic's judgement:\n{self.critique}"
        return self.feedback


class _Search:
    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.cfg = ctx.config
        self.critic = SEARCH.of(self.cfg) == "critic"
        self.verification = SOLUTION_VERIFICATION.of(self.cfg)
        self.abort = NODE_ABORT.of(self.cfg)
        self.scoring = NODE_SCORING.of(self.cfg)
        # Width bounds the BFS/DFS ablations only; with the Critic the Thinker decides.
        # The Strategy List asks for as many strategies as the budget has programs.
        self.strategy_list = SEARCH.of(self.cfg) == "strategy_list"
        self.width: int | None = None if self.critic else WIDTH.of(self.cfg)
        if self.strategy_list:
            self.width = BUDGET.of(self.cfg)
        self.depth = DEPTH.of(self.cfg)
        self.nodes: list[Node] = []
        self.accepted: Node | None = None
        self.spent = False
        """The generation budget ran out."""

    # -- the nodes ----------------------------------------------------------------------

    def _publish(self, node: Node) -> None:
        self.ctx.event(
            TreeNode(
                step=node.made_at,
                agent=None,
                progression=0,
                node=node.id,
                parent=node.parent.id if node.parent else None,
                strategy=node.strategy,
                code=node.code,
                passed=node.passed,
                total=node.total,
                score=round(node.score, 4) if (node.critic_score is not None or not self.critic) else None,
                action=node.action,
                feedback=node.feedback,
                critique=node.critique,
            )
        )

    async def _new_node(self, parent: Node | None, strategy: str) -> Node | None:
        """Write one program (the Solver for a strategy, the Debugger for a
        reflection) and run it on the visible tests; None when the budget is spent."""
        if len(self.nodes) >= BUDGET.of(self.cfg):
            self.spent = True
            return None
        ctx = self.ctx
        number = len(self.nodes) + 1
        node = Node(f"n{number}", number, parent, 1 if parent is None else parent.depth + 1, strategy)
        self.nodes.append(node)
        if parent is not None:
            parent.children.append(node)
        agent = "solver" if parent is None else "debugger"
        async with step(ctx, agent, agent, attempt=number, progression=0, node=node.id) as s:
            node.made_at = s.name
            if parent is None:
                node.code = await implement(ctx, strategy, step=s.name, node=node.id, index=number)
            else:
                node.code = await refine(
                    ctx,
                    parent.code,
                    parent.feedback_for_agents,
                    strategy,
                    parent.line_strategy,
                    step=s.name,
                    node=node.id,
                    depth=node.depth,
                )
            report = await execute_tests(
                ctx,
                node.code,
                ctx.problem.test_sources,
                purpose="codetree",
                agent=agent,
                step=s.name,
                progression=0,
            )
            node.passed, node.total, node.load_error = report.passed, report.total, report.load_error is not None
            node.feedback = (
                f"All {report.total} visible tests pass." if node.passes else execution_feedback(report, ctx.problem)
            )
            s.detail = f"{node.id}: {node.passed}/{node.total} visible tests pass"
        self._publish(node)
        return node

    async def _evaluate(self, node: Node) -> None:
        """The Critic's evaluation and decision (Eq. 4, 7); without the Critic,
        accept a node that passes every visible test and refine the others."""
        if not self.critic:
            node.action = "accept" if node.passes else "refine"
            self._publish(node)
            if node.passes:
                reason = f"{node.id} passes every visible test (search={SEARCH.of(self.cfg)}, no critic)"
                self.ctx.event(Decision(step=node.made_at, agent=None, progression=0, decision="accept", reason=reason))
            return
        ctx = self.ctx
        if node.passes and not self.verification:
            node.action = "accept"
            self._publish(node)
            reason = f"{node.id} passes every visible test (no solution verification)"
            ctx.event(Decision(step=node.made_at, agent=None, progression=0, decision="accept", reason=reason))
            return
        async with step(ctx, "critic", "critic", attempt=node.number, progression=0, node=node.id) as s:
            critique = await criticise(
                ctx,
                node.line_strategy,  # Eq. 4: S_i, the strategy, also below depth 1
                node.code,
                node.feedback,
                verify=node.passes,
                step=s.name,
                node=node.id,
                separate=SEPARATE_SCORING.of(self.cfg),
            )
            node.action, node.critic_score, node.critique = critique.action, critique.score, critique.critique
            node.scored = self.scoring
            if node.action == "abort" and not self.abort:
                node.action = "refine"
            if critique.test_score is not None and critique.strategy_score is not None:
                node.critique += f"\n(test outputs {critique.test_score:g}/10, strategy {critique.strategy_score:g}/10)"
            s.outcome = "accepted" if node.action == "accept" else "rejected" if node.action == "abort" else "done"
            s.detail = f"{node.id}: {node.action}, score {node.score:.2f}"
        self._publish(node)
        reason = {
            "accept": f"{node.id} verified: it passes every visible test and the critic accepts it",
            "refine": f"{node.id} is worth refining (score {node.score:.2f})",
            "abort": f"{node.id} pruned (score {node.score:.2f}): on to its siblings",
        }[node.action]
        ctx.event(
            Decision(
                step=s.name,
                agent="critic",
                progression=0,
                decision="accept" if node.action == "accept" else "continue",
                reason=reason,
            )
        )

    async def _reflections(self, node: Node) -> list[str]:
        ctx = self.ctx
        async with step(ctx, "reflection", "thinker", attempt=node.number, progression=0, node=node.id) as s:
            found = await reflect(
                ctx,
                node.line_strategy,  # Eq. 5: S_i, the strategy, also below depth 1
                node.code,
                node.feedback_for_agents,
                self.width,
                step=s.name,
                node=node.id,
                depth=node.depth,
            )
            s.detail = f"{len(found)} reflections on {node.id}"
        return found

    # -- the searches -------------------------------------------------------------------

    async def _depth_first(self, node: Node) -> bool:
        """Evaluate ``node`` and, when it is to be refined, its children one by
        one (each explored before the next is written). True once a node is accepted."""
        await self._evaluate(node)
        if node.action == "accept":
            self.accepted = node
            return True
        if node.action == "abort" or node.depth >= self.depth or self.spent:
            return False
        for reflection in await self._reflections(node):
            child = await self._new_node(node, reflection)
            if child is None:
                return False
            if await self._depth_first(child):
                return True
        return False

    async def _breadth_first(self, level: list[Node]) -> None:
        """Level by level: every node of a level is refined before any of the next."""
        while level:
            next_level: list[Node] = []
            for node in level:
                if node.depth >= self.depth:
                    continue
                for reflection in await self._reflections(node):
                    child = await self._new_node(node, reflection)
                    if child is None:
                        return
                    await self._evaluate(child)
                    if child.action == "accept":
                        self.accepted = child
                        return
                    next_level.append(child)
            level = next_level

    async def run(self) -> WorkflowResult:
        ctx = self.ctx
        async with step(ctx, "thinker", "thinker", progression=0) as s:
            strategies = await propose_strategies(ctx, self.width, step=s.name) or [_PLAIN_STRATEGY]
            s.detail = f"{len(strategies)} strategies"
        if self.strategy_list:
            # Table 2's Strategy List: each strategy implemented once, in the
            # Thinker's order, the first that passes every visible test accepted.
            for strategy in strategies:
                node = await self._new_node(None, strategy)
                if node is None:
                    break
                await self._evaluate(node)
                if node.action == "accept":
                    self.accepted = node
                    break
        elif SEARCH.of(self.cfg) == "bfs":
            level: list[Node] = []
            for strategy in strategies:
                node = await self._new_node(None, strategy)
                if node is None:
                    break
                await self._evaluate(node)
                if node.action == "accept":
                    self.accepted = node
                    break
                level.append(node)
            if self.accepted is None and not self.spent:
                await self._breadth_first(level)
        else:
            for strategy in strategies:
                node = await self._new_node(None, strategy)
                if node is None or await self._depth_first(node):
                    break
        return self._result()

    def _result(self) -> WorkflowResult:
        first = self.nodes[0].code if self.nodes else ""
        if self.accepted is not None:
            node = self.accepted
            at = f"critic:{node.number}" if self.critic and (self.verification or not node.passes) else node.made_at
            detail = f"accepted node {node.id} ({node.passed}/{node.total} visible tests pass)"
            return WorkflowResult(node.code, "accepted", at, 0, first, detail=detail, node=node.id)
        if not self.nodes:
            return WorkflowResult("", "rejected", None, 0, first, detail="no program was written")
        # Highest score first; among equals, the earliest written.
        best = max(self.nodes, key=lambda n: (n.score, -n.number))
        plural = "s" if BUDGET.of(self.cfg) != 1 else ""
        why = f"budget of {BUDGET.of(self.cfg)} program{plural} spent" if self.spent else "the search ended"
        detail = (
            f"nothing accepted ({why}): returned node {best.id}, the highest-scored "
            f"(score {best.score:.2f}, {best.passed}/{best.total} visible tests pass)"
        )
        self.ctx.event(Decision(step=best.made_at, agent=None, progression=0, decision="continue", reason=detail))
        return WorkflowResult(best.code, "rejected", None, 0, first, detail=detail, node=best.id)


async def run_codetree(ctx: RunContext) -> WorkflowResult:
    return await _Search(ctx).run()
