"""How the code is laid out: lines and modules per layer (each core package a
layer of its own); how many imports sit inside functions (each one a cycle or
a launch cost being dodged); how many parameters are typed ``Any`` (a seam
without a type); the longest functions; and module names that more than one
package uses (``run.py`` three times reads as one thing in a traceback).

    python bench/layers.py
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "qflow_tui"
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


def functions(tree: ast.AST, where: str) -> list[tuple[int, str]]:
    """(lines, ``file:name``) of every function."""
    return [
        ((node.end_lineno or node.lineno) - node.lineno + 1, f"{where}:{node.name}")
        for node in ast.walk(tree)
        if isinstance(node, _FUNCTIONS)
    ]


def main() -> None:
    lines: Counter[str] = Counter()
    modules: Counter[str] = Counter()
    local: Counter[str] = Counter()
    anys: Counter[str] = Counter()
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
        longest += functions(tree, str(path.relative_to(ROOT.parent)))
        if path.name != "__init__.py":
            names[path.name] += 1
    print(f"{'layer':28} {'modules':>7} {'lines':>7} {'imports in functions':>21} {'Any parameters':>15}")
    for key in sorted(lines):
        print(f"{key:28} {modules[key]:7} {lines[key]:7} {local[key]:21} {anys[key]:15}")
    total = (sum(modules.values()), sum(lines.values()), sum(local.values()), sum(anys.values()))
    print(f"{'total':28} {total[0]:7} {total[1]:7} {total[2]:21} {total[3]:15}")
    print("\nthe longest functions (lines):")
    for size, name in sorted(longest, reverse=True)[:8]:
        print(f"  {size:4}  {name}")
    shared = sorted((n, c) for n, c in names.items() if c > 1)
    print("\nmodule names used more than once: " + (", ".join(f"{n} x{c}" for n, c in shared) or "none"))


if __name__ == "__main__":
    main()
