"""How the code is laid out: lines and modules per layer (each core package a
layer of its own), and how many imports sit inside functions (each one a cycle
or a launch cost being dodged).

    python bench/layers.py
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "qflow_tui"


def layer(path: Path) -> str:
    parts = path.relative_to(ROOT).parts
    if parts[0] == "core" and len(parts) > 2:
        return f"core/{parts[1]}"
    if parts[0] == "core":
        return "core (top-level modules)"
    if parts[0] in ("ui", "commands", "data"):
        return parts[0] if parts[0] != "ui" or len(parts) == 2 else f"ui/{parts[1]}"
    return "cli and package root"


def function_imports(tree: ast.AST) -> int:
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import | ast.ImportFrom):
                    count += 1
    return count


def main() -> None:
    lines: Counter[str] = Counter()
    modules: Counter[str] = Counter()
    local: Counter[str] = Counter()
    for path in sorted(ROOT.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        key = layer(path)
        lines[key] += len(text.splitlines())
        modules[key] += 1
        local[key] += function_imports(ast.parse(text))
    print(f"{'layer':28} {'modules':>7} {'lines':>7} {'imports in functions':>21}")
    for key in sorted(lines):
        print(f"{key:28} {modules[key]:7} {lines[key]:7} {local[key]:21}")
    print(f"{'total':28} {sum(modules.values()):7} {sum(lines.values()):7} {sum(local.values()):21}")


if __name__ == "__main__":
    main()
