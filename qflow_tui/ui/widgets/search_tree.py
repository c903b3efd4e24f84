"""The search tree of a tree-search workflow (CodeTree): each node with its
strategy, tests passed, the critic's score and action; the accepted and the
returned node marked. Selecting a node shows its code, execution feedback and
critique below the tree."""

from __future__ import annotations

from typing import Unpack

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static, Tree
from textual.widgets.tree import TreeNode

from ..palette import Palette, palette
from ..state import RunState, SearchNode, SearchNodes
from ..widget_options import WidgetOptions
from .lists import ListTree

#: What a critic's action looks like in a node's label.
_ACTION_WORDS = {"accept": "ACCEPT", "refine": "refine", "abort": "abort"}
_ACTION_OUTCOME = {"accept": "accept", "refine": "continue", "abort": "rejected"}


def node_label(n: SearchNode, returned: bool, colours: Palette) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    if returned:
        text.append("★ ", style=f"bold {colours.success}")
    text.append(n.node, style="bold")
    if n.strategy:
        strategy = " ".join(n.strategy.split())
        text.append(f" {strategy[:40]}{'…' if len(strategy) > 40 else ''}")
    if n.total:
        style = colours.success if n.passed == n.total else colours.error
        text.append(f"  {n.passed}/{n.total}", style=style)
    if n.score is not None:
        text.append(f"  score {n.score:.2f}", style=colours.muted)
    if n.action:
        word = _ACTION_WORDS.get(n.action, n.action)
        style = colours.outcome(_ACTION_OUTCOME.get(n.action, n.action))
        text.append(f"  {word}", style=f"bold {style}" if n.action == "accept" else style)
    if returned:
        text.append("  returned", style=f"bold {colours.success}")
    return text


def render_node(n: SearchNode | None, returned: bool, colours: Palette) -> Text:
    if n is None:
        return Text("No node selected: pick one in the tree (arrows, Enter).", style=colours.muted)
    out = Text()
    out.append(f"{n.node}", style="bold")
    if n.parent:
        out.append(f"  child of {n.parent}", style=colours.muted)
    if returned:
        out.append("  ★ the run returned this node's program", style=f"bold {colours.success}")
    out.append("\nstrategy ", style=f"bold {colours.muted}")
    out.append(n.strategy or "—")
    out.append("\ntests ", style=f"bold {colours.muted}")
    out.append(f"{n.passed}/{n.total} pass" if n.total else "not run")
    out.append("   score ", style=f"bold {colours.muted}")
    out.append("—" if n.score is None else f"{n.score:.2f}")
    out.append("   critic ", style=f"bold {colours.muted}")
    out.append(_ACTION_WORDS.get(n.action, n.action) or "—")
    # Short texts first, so critique and feedback show without scrolling; the code last.
    out.append("\ncritique ", style=f"bold {colours.muted}")
    out.append(n.critique.strip() or "—")
    out.append("\nfeedback ", style=f"bold {colours.muted}")
    out.append(n.feedback.strip() or "—")
    out.append("\ncode\n", style=f"bold {colours.muted}")
    out.append(n.code.rstrip() or "(none yet)")
    return out


class SearchTree(Vertical):
    """The tree above, the highlighted node's details below."""

    ALLOW_MAXIMIZE = True

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self._state: RunState | None = None
        self._tree_nodes: dict[str, TreeNode[str]] = {}
        self._shown: dict[str, tuple[object, ...]] = {}
        self._theme = ""

    def compose(self) -> ComposeResult:
        tree: Tree[str] = ListTree("search tree", id="search-tree-nodes")
        tree.show_root = False
        tree.guide_depth = 2
        yield tree
        with VerticalScroll(id="search-tree-detail"):
            yield Static(id="search-tree-detail-body", markup=False)

    def update_from(self, state: RunState, progression: int) -> None:
        self._state = state
        tree = self.query_one("#search-tree-nodes", Tree)
        colours = palette(self.app)
        theme = self.app.theme
        if any(node_id not in state.piece(SearchNodes).nodes for node_id in self._tree_nodes) or theme != self._theme:
            tree.clear()  # a replay going back, or new colours: draw again
            self._tree_nodes.clear()
            self._shown.clear()
            self._theme = theme
        returned = state.piece(SearchNodes).returned
        self._add(tree.root, None, state, returned, colours)
        if state.piece(SearchNodes).nodes and tree.cursor_line < 0:
            tree.cursor_line = 0  # the first node's details show at once
        self._show_detail()

    def _add(
        self, under: TreeNode[str], parent: str | None, state: RunState, returned: str | None, colours: Palette
    ) -> None:
        for n in state.piece(SearchNodes).children(parent):
            shown = (n.seq, n.node == returned)
            node = self._tree_nodes.get(n.node)
            if node is None:
                node = under.add_leaf(node_label(n, n.node == returned, colours), data=n.node)
                self._tree_nodes[n.node] = node
                if under is not under.tree.root and not under.allow_expand:
                    under.allow_expand = True  # a leaf no more: it has a child now
                    under.expand()
            elif self._shown.get(n.node) != shown:
                node.set_label(node_label(n, n.node == returned, colours))
            self._shown[n.node] = shown
            self._add(node, n.node, state, returned, colours)

    def selected_node(self) -> str | None:
        tree = self.query_one("#search-tree-nodes", Tree)
        node = tree.cursor_node
        if node is None and tree.cursor_line >= 0 and self._tree_nodes:
            node = next(iter(self._tree_nodes.values()))  # lines not laid out yet: the first node
        return node.data if node is not None and node.data else None

    def _show_detail(self) -> None:
        state = self._state
        if state is None:
            return
        node_id = self.selected_node()
        node = state.piece(SearchNodes).nodes.get(node_id) if node_id else None
        body = self.query_one("#search-tree-detail-body", Static)
        body.update(
            render_node(node, node_id is not None and node_id == state.piece(SearchNodes).returned, palette(self.app))
        )

    @on(Tree.NodeHighlighted, "#search-tree-nodes")
    def _node_highlighted(self) -> None:
        self._show_detail()
