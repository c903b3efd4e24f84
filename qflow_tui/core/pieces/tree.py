"""CodeTree's search tree: each node as its latest ``tree_node`` event has it."""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import events as ev
from .base import RunReading, StatePiece, register_piece


@dataclass
class SearchNode:
    """One node of a search tree (CodeTree): the latest ``tree_node`` event for it."""

    node: str
    parent: str | None
    strategy: str
    code: str
    passed: int
    total: int
    score: float | None
    action: str
    """``refine``, ``abort``, ``accept`` or ``""`` (the critic has not acted)."""
    feedback: str
    critique: str
    seq: int = 0


@register_piece
@dataclass
class SearchNodes(StatePiece):
    """The search tree's nodes by id, in the order they were first seen, and
    the run's end (which names the node it returned)."""

    events = (ev.TreeNode, ev.RunFinished)
    nodes: dict[str, SearchNode] = field(default_factory=dict)
    finished: ev.RunFinished | None = None

    def apply(self, state: RunReading, event: ev.Event) -> None:
        if isinstance(event, ev.RunFinished):
            self.finished = event
        elif isinstance(event, ev.TreeNode):
            self.nodes[event.node] = SearchNode(
                node=event.node,
                parent=event.parent,
                strategy=event.strategy,
                code=event.code,
                passed=event.passed,
                total=event.total,
                score=event.score,
                action=event.action,
                feedback=event.feedback,
                critique=event.critique,
                seq=event.seq,
            )

    def children(self, parent: str | None) -> list[SearchNode]:
        """A node's children (the roots for None), oldest first; a node whose
        parent is unknown counts as a root."""
        return [n for n in self.nodes.values() if (n.parent if n.parent in self.nodes else None) == parent]

    @property
    def returned(self) -> str | None:
        """The node whose program the finished run returned: the one it names
        (``node``, or ``accepted_at`` where that is a node), else (sessions from
        before runs named it) the accepted one, else the last with its code."""
        if self.finished is None or not self.nodes:
            return None
        for named in (self.finished.node, self.finished.accepted_at):
            if named in self.nodes:
                return named
        accepted = [n.node for n in self.nodes.values() if n.action == "accept"]
        if accepted:
            return accepted[-1]
        final = self.finished.final_program.strip()
        same = [n for n in self.nodes.values() if n.code.strip() and n.code.strip() == final]
        return max(same, key=lambda n: n.seq).node if same else None
