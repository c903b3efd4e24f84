"""Fork chains: sessions name the session they were forked from, and those
names form trees, or, in files nobody should trust, chains thousands long and
loops. Both walks here are iterative (never Python recursion) and linear, and
a loop of parents is broken at a stated place and named, never followed.

- :func:`fork_tree`: sessions listed together, each fork under its parent,
  depth first (the sessions browser, ``qflow sessions``).
- :func:`lineage`: one session's parent, grandparent and so on, read from
  their headers (``qflow compare``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from ..safe_text import one_line

T = TypeVar("T")

#: The most parents :func:`lineage` reads before it stops (and says so).
MAX_GENERATIONS = 10_000
#: Names of a loop's sessions shown in a message; past this, a count.
NAMED_IN_A_LOOP = 4


@dataclass
class ForkTree(Generic[T]):
    """The sessions in tree order and what the walk found."""

    order: list[T] = field(default_factory=list)
    """Every session once: each root in listing order, its forks under it, depth first."""
    depth: dict[str, int] = field(default_factory=dict)
    """By key: 0 for a root (or a fork whose parent is not among them), 1 for its forks..."""
    loops: list[list[T]] = field(default_factory=list)
    """Each loop of fork parents found, in parent order from the session it was
    broken at (shown as a root)."""
    broken: dict[str, list[T]] = field(default_factory=dict)
    """By key: the loop broken at that session."""


def fork_tree(items: Sequence[T], key: Callable[[T], str], parent: Callable[[T], str | None]) -> ForkTree[T]:
    """The tree (and loops) the ``parent`` names of ``items`` make, in time
    and memory linear in their number, whatever their depth."""
    by_key = {key(s): s for s in items}
    children: dict[str, list[T]] = {}
    roots: list[T] = []
    for s in items:
        p = parent(s)
        if p is not None and p in by_key and p != key(s):
            children.setdefault(p, []).append(s)
        else:
            roots.append(s)
    tree: ForkTree[T] = ForkTree()

    def walk(root: T) -> None:
        stack = [(root, 0)]
        while stack:
            s, depth = stack.pop()
            k = key(s)
            if k in tree.depth:
                continue
            tree.depth[k] = depth
            tree.order.append(s)
            stack.extend((c, depth + 1) for c in reversed(children.get(k, [])))

    for s in roots:
        root = key(s)
        if root in children:
            walk(s)
        elif root not in tree.depth:  # most sessions are no fork's parent: no walk
            tree.depth[root] = 0
            tree.order.append(s)
    # What is left hangs off a loop of parents: find the loop (following
    # parents from the first session left) and break it at its member listed
    # first, which becomes a root.
    position = {key(s): i for i, s in enumerate(items)}
    for s in items:
        if key(s) in tree.depth:
            continue
        seen: dict[str, int] = {}
        chain: list[str] = []
        k: str | None = key(s)
        while k is not None and k not in seen and k not in tree.depth:
            seen[k] = len(chain)
            chain.append(k)
            k = parent(by_key[k])
            k = k if k in by_key else None
        if k is None or k not in seen:  # reached the tree walked already (cannot happen: listed for completeness)
            walk(s)
            continue
        members = chain[seen[k] :]
        first = min(members, key=position.__getitem__)
        start = members.index(first)
        loop = [by_key[m] for m in members[start:] + members[:start]]
        tree.loops.append(loop)
        tree.broken[first] = loop
        walk(by_key[first])
    return tree


@dataclass
class Lineage:
    """A session's forebears as far as their headers can be read."""

    ancestors: list[Path] = field(default_factory=list)
    """Its parent, that one's parent, and so on (the last is the root, unless
    the chain loops, is cut or is longer than :data:`MAX_GENERATIONS`)."""
    loop: list[Path] = field(default_factory=list)
    """When the chain comes back to a session it passed: that loop, in parent order."""
    missing: Path | None = None
    """A parent named but not readable (deleted, moved, not a session)."""
    cut: bool = False
    """The walk stopped at :data:`MAX_GENERATIONS`."""

    def words(self) -> str:
        """One line: ``2 forks from the root a.jsonl``, or what stopped the walk."""
        if self.loop:
            return f"its fork parents form a loop ({loop_words(self.loop, lambda p: p.name)}): the chain stops there"
        if self.cut:
            return f"more than {MAX_GENERATIONS} forks deep: the chain was not followed further"
        if self.missing is not None:
            known = f"{len(self.ancestors)} forks known, then " if len(self.ancestors) > 1 else ""
            return f"{known}{one_line(self.missing.name, 120)} is not readable (deleted or moved?)"
        if not self.ancestors:
            return ""
        n = len(self.ancestors)
        return f"{n} fork{'' if n == 1 else 's'} from the root {one_line(self.ancestors[-1].name, 120)}"


def loop_words(loop: Sequence[T], name: Callable[[T], str]) -> str:
    """``a.jsonl -> b.jsonl -> a.jsonl``, with at most :data:`NAMED_IN_A_LOOP`
    names and a count for the rest; terminal-safe."""
    names = [one_line(name(s), 80) for s in loop]
    if len(names) > NAMED_IN_A_LOOP:
        shown = [*names[: NAMED_IN_A_LOOP - 1], f"… {len(names) - NAMED_IN_A_LOOP} more …", names[-1]]
    else:
        shown = names
    return " -> ".join([*shown, names[0]]) + f"; {len(names)} session{'' if len(names) == 1 else 's'}"


def lineage(path: Path, parent_of: Callable[[Path], str | None]) -> Lineage:
    """Walk ``path``'s fork parents (``parent_of`` reads a session's parent from
    its header, raising OSError or ValueError where it cannot), iteratively,
    stopping at a loop, an unreadable parent or :data:`MAX_GENERATIONS`."""
    out = Lineage()
    seen = {_same(path): 0}
    here = path
    while True:
        try:
            named = parent_of(here)
        except (OSError, ValueError):
            if here != path:
                out.missing = here
                out.ancestors.pop()
            return out
        if named is None:
            return out
        up = Path(named)
        if not up.is_absolute():
            up = here.parent / up
        mark = _same(up)
        if mark in seen:
            chain = [path, *out.ancestors]
            out.loop = chain[seen[mark] :]
            return out
        if len(out.ancestors) >= MAX_GENERATIONS:
            out.cut = True
            return out
        seen[mark] = len(out.ancestors) + 1
        out.ancestors.append(up)
        here = up


def _same(path: Path) -> str:
    try:
        return str(path.resolve())
    except (OSError, RuntimeError):
        return str(path)
