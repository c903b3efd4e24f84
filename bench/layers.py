"""How the code is laid out: lines and modules per layer (each core package a
layer of its own); how many imports sit inside functions (each one a cycle or
a launch cost being dodged); how many parameters are typed ``Any`` (a seam
without a type), and how many parameters and returns mention ``Any`` anywhere
(``dict[str, Any]`` too: issue 52's measure, also per 1,000 lines); the modules
over 800 lines; the longest functions; and module names that more than one
package uses (``run.py`` three times reads as one thing in a traceback).

    python bench/layers.py [--root DIR]

``--root``: another checkout's ``qflow_tui`` (a tree before a change, say).
"""

from __future__ import annotations

import argparse
import ast
from collections import Counter
from pathlib import Path

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


def functions(tree: ast.AST, where: str) -> list[tuple[int, str]]:
    """(lines, ``file:name``) of every function."""
    return [
        ((node.end_lineno or node.lineno) - node.lineno + 1, f"{where}:{node.name}")
        for node in ast.walk(tree)
        if isinstance(node, _FUNCTIONS)
    ]


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
    for path in sorted(ROOT.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
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
        print(row + f" {signatures[key]:18} {1000 * signatures[key] / lines[key]:12.1f}")
    n, size = sum(modules.values()), sum(lines.values())
    row = f"{'total':28} {n:7} {size:7} {sum(local.values()):21} {sum(anys.values()):15}"
    print(row + f" {sum(signatures.values()):18} {1000 * sum(signatures.values()) / size:12.1f}")
    print(
        f"\nmodules over {BIG_MODULE} lines: "
        + (", ".join(f"{p} ({n})" for n, p in sorted(big, reverse=True)) or "none")
    )
    print("\nthe longest functions (lines):")
    for size, name in sorted(longest, reverse=True)[:8]:
        print(f"  {size:4}  {name}")
    shared = sorted((n, c) for n, c in names.items() if c > 1)
    print("\nmodule names used more than once: " + (", ".join(f"{n} x{c}" for n, c in shared) or "none"))


if __name__ == "__main__":
    main()
