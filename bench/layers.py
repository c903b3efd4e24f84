"""How the code is laid out: lines and modules per layer (each core package a
layer of its own); how many imports sit inside functions (each one a cycle or
a launch cost being dodged); how many parameters are typed ``Any`` (a seam
without a type), and how many parameters and returns mention ``Any`` anywhere
(``dict[str, Any]`` too: issue 52's measure, also per 1,000 lines); the modules
over 800 lines; the longest functions; module names that more than one
package uses (``run.py`` three times reads as one thing in a traceback); the
import circles, counting imports inside functions (which hide a circle from
Python's start-up, not from a reader), ``TYPE_CHECKING`` blocks aside; and
last, issue 52's table rows, ready to quote.

    python bench/layers.py [--root DIR]

``--root``: another checkout's ``qflow_tui`` (a tree before a change, say).
"""

from __future__ import annotations

import argparse
import ast
import functools
from collections import Counter
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent / "qflow_tui"
#: The size above which a module counts as a giant room (issue 52).
BIG_MODULE = 800
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def layer(path: Path) -> str:
    parts = path.relative_to(ROOT).parts
    if parts[0] == "core" and len(parts) > 2:
        return f"core/{parts[1]}"
    if parts[0] == "core":
        return "core (top-level modules)"
    if parts[0] in ("ui", "commands", "data"):
        return parts[0] if parts[0] != "ui" or len(parts) == 2 else f"ui/{parts[1]}"
    return "cli and package root"


def _scoped(tree: ast.AST) -> list[tuple[ast.AST, ast.AST | None]]:
    """Every node with the function it sits in directly (None: module or class level)."""
    out: list[tuple[ast.AST, ast.AST | None]] = []
    stack: list[tuple[ast.AST, ast.AST | None]] = [(tree, None)]
    while stack:
        node, function = stack.pop()
        out.append((node, function))
        inner = node if isinstance(node, _FUNCTIONS) else function
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))
    return out


def function_imports(tree: ast.AST) -> int:
    """Import statements inside a function body (each counted once)."""
    return sum(1 for node, fn in _scoped(tree) if fn is not None and isinstance(node, ast.Import | ast.ImportFrom))


def _is_any(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.strip() == "Any"
    return (isinstance(annotation, ast.Name) and annotation.id == "Any") or (
        isinstance(annotation, ast.Attribute) and annotation.attr == "Any"
    )


def any_parameters(tree: ast.AST) -> int:
    """Parameters annotated exactly ``Any`` (``*args: Any`` included)."""
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, _FUNCTIONS):
            a = node.args
            params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *(p for p in (a.vararg, a.kwarg) if p)]
            count += sum(1 for p in params if _is_any(p.annotation))
    return count


def _mentions_any(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return False
    return any(_is_any(node) for node in ast.walk(annotation))


def any_in_signatures(tree: ast.AST) -> int:
    """Parameters and returns whose annotation mentions ``Any`` anywhere."""
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, _FUNCTIONS):
            a = node.args
            params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *(p for p in (a.vararg, a.kwarg) if p)]
            count += sum(1 for p in params if _mentions_any(p.annotation)) + _mentions_any(node.returns)
    return count


def module_name(path: Path, root: Path | None = None) -> str:
    """``qflow_tui.core.bench.report`` for its file (a package: its ``__init__``)."""
    parts = list(path.relative_to((root or ROOT).parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the nodes inside ``if TYPE_CHECKING:`` blocks (never run)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for stmt in node.body:
                out.update(id(n) for n in ast.walk(stmt))
    return out


def imported_modules(tree: ast.AST, name: str, is_package: bool, known: set[str]) -> set[str]:
    """The package's own modules ``name`` imports, anywhere in it but ``TYPE_CHECKING``
    blocks (``from .x import y`` names ``x.y`` when that is a module, else ``x``)."""
    skip = _type_checking_only(tree)
    here = name.split(".") if is_package else name.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            target = ".".join([*base, *(node.module.split(".") if node.module else [])])
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in known:
                    out.add(sub)
                elif target in known:
                    out.add(target)
    out.discard(name)
    return out


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other round a circle (Tarjan's
    strongly connected components of more than one module), largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found, key=lambda g: (-len(g), g))


def functions(tree: ast.AST, where: str) -> list[tuple[int, str]]:
    """(lines, ``file:name``) of every function."""
    return [
        ((node.end_lineno or node.lineno) - node.lineno + 1, f"{where}:{node.name}")
        for node in ast.walk(tree)
        if isinstance(node, _FUNCTIONS)
    ]


def lazy_by_design(rel: tuple[str, ...]) -> bool:
    """Where imports inside functions are the design: a command imports its
    own modules when it runs, and the sandbox's child script is compiled from
    its parts in the child."""
    return rel[0] == "commands" or rel[:3] == ("core", "sandbox", "harness")


class House(NamedTuple):
    """Issue 52's four gates, for one package."""

    lines: int
    any_in_signatures: int
    imports_outside: int
    """Imports inside functions, outside what :func:`lazy_by_design` names."""
    biggest: tuple[int, str]
    rings: list[list[str]]

    def per_1k(self, n: int) -> float:
        return 1000 * n / max(self.lines, 1)


@functools.cache
def parsed(root: Path) -> list[tuple[Path, str, ast.Module]]:
    """Each module under ``root``: its path, its text and its tree (read once)."""
    out = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        out.append((path, text, ast.parse(text)))
    return out


def house(root: Path) -> House:
    modules = parsed(root)
    known = {module_name(p, root) for p, _text, _tree in modules}
    graph: dict[str, set[str]] = {}
    lines = anys = outside = 0
    biggest = (0, "")
    for path, text, tree in modules:
        name = module_name(path, root)
        graph[name] = imported_modules(tree, name, path.name == "__init__.py", known)
        n = len(text.splitlines())
        lines += n
        anys += any_in_signatures(tree)
        if not lazy_by_design(path.relative_to(root).parts):
            outside += function_imports(tree)
        biggest = max(biggest, (n, str(path.relative_to(root.parent))))
    return House(lines, anys, outside, biggest, circles(graph))


def main() -> None:
    global ROOT
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=ROOT, help="the qflow_tui package to measure")
    ROOT = ap.parse_args().root.resolve()
    lines: Counter[str] = Counter()
    modules: Counter[str] = Counter()
    local: Counter[str] = Counter()
    anys: Counter[str] = Counter()
    signatures: Counter[str] = Counter()
    big: list[tuple[int, str]] = []
    longest: list[tuple[int, str]] = []
    names: Counter[str] = Counter()
    gates = house(ROOT)
    for path, text, tree in parsed(ROOT):
        key = layer(path)
        lines[key] += len(text.splitlines())
        modules[key] += 1
        local[key] += function_imports(tree)
        anys[key] += any_parameters(tree)
        signatures[key] += any_in_signatures(tree)
        if len(text.splitlines()) > BIG_MODULE:
            big.append((len(text.splitlines()), str(path.relative_to(ROOT.parent))))
        longest += functions(tree, str(path.relative_to(ROOT.parent)))
        if path.name != "__init__.py":
            names[path.name] += 1
    head = f"{'layer':28} {'modules':>7} {'lines':>7} {'imports in functions':>21} {'Any parameters':>15}"
    print(head + f" {'Any in signatures':>18} {'per 1k lines':>12}")
    for key in sorted(lines):
        row = f"{key:28} {modules[key]:7} {lines[key]:7} {local[key]:21} {anys[key]:15}"
        print(row + f" {signatures[key]:18} {1000 * signatures[key] / max(lines[key], 1):12.1f}")
    n, size = sum(modules.values()), sum(lines.values())
    row = f"{'total':28} {n:7} {size:7} {sum(local.values()):21} {sum(anys.values()):15}"
    print(row + f" {sum(signatures.values()):18} {1000 * sum(signatures.values()) / max(size, 1):12.1f}")
    print(
        f"\nmodules over {BIG_MODULE} lines: "
        + (", ".join(f"{p} ({n})" for n, p in sorted(big, reverse=True)) or "none")
    )
    print("\nthe longest functions (lines):")
    for length, name in sorted(longest, reverse=True)[:8]:
        print(f"  {length:4}  {name}")
    shared = sorted((n, c) for n, c in names.items() if c > 1)
    print("\nmodule names used more than once: " + (", ".join(f"{n} x{c}" for n, c in shared) or "none"))
    rings = gates.rings
    print(f"\nimport circles (imports in functions counted, TYPE_CHECKING aside): {len(rings) or 'none'}")
    for ring in rings:
        print("  " + " <-> ".join(m.removeprefix("qflow_tui.") for m in ring))
    print(f"\nissue 52's table rows ({gates.lines} lines of {ROOT.name}):")
    print(f"| `Any` in parameters/returns, per 1k lines | {gates.per_1k(gates.any_in_signatures):.1f} |")
    print(
        f"| function-level imports, per 1k lines | {1000 * sum(local.values()) / max(size, 1):.1f} "
        f"({gates.per_1k(gates.imports_outside):.1f} outside commands/ and the child script) |"
    )
    print(f"| biggest module | {gates.biggest[1]}, {gates.biggest[0]} lines |")
    print(f"| import circles | {len(gates.rings)} |")


if __name__ == "__main__":
    main()
