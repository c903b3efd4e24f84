"""The code a problem's tests run after: what a reader of the tests is shown of
it, what the sandbox runs before a program, and what an imagined-execution
verdict needs of it. Pure parsing: nothing here runs the code it reads."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from . import pyparse

if TYPE_CHECKING:
    from .problem import Problem

_IMPORT_LINE_RE = re.compile(r"^(?:from\s+[\w.]+\s+import\s+.+|import\s+[\w., ]+)$")


def statement_imports(statement: str) -> str:
    """The import lines a problem statement holds at the top level (HumanEval's
    ``from typing import List``): the reference evaluators run the prompt
    before the completion, so those names are there for the program."""
    found: list[str] = []
    for line in statement.splitlines():
        if line != line.lstrip() or not _IMPORT_LINE_RE.match(line.strip()):
            continue
        try:
            tree = pyparse.parse(line.strip())
        except SyntaxError:
            continue
        if len(tree.body) == 1 and isinstance(tree.body[0], (ast.Import, ast.ImportFrom)):
            found.append(line.strip())
    return "\n".join(dict.fromkeys(found))


def sandbox_setup(problem: Problem) -> str:
    """What runs before the program and its tests: the statement's own imports,
    then the problem's setup (test imports, MBPP's ``test_setup_code``)."""
    return "\n".join(s for s in (statement_imports(problem.statement), problem.setup.strip()) if s)


def shown_setup(problem: Problem) -> str:
    """The test setup a reader of the tests must see (MBPP's ``test_setup_code``,
    e.g. ``root = Node(1)`` for mbpp/367): the setup without its import lines,
    which every prompt implies anyway. Empty when there is none."""
    kept = []
    for stmt in _statements(problem.setup):
        if not isinstance(stmt, (ast.Import, ast.ImportFrom)):
            kept.append(ast.unparse(stmt))
    return "\n".join(kept)


def _statements(code: str) -> list[ast.stmt]:
    if not code.strip():
        return []
    try:
        return pyparse.parse(code.replace("\r\n", "\n")).body
    except SyntaxError:
        return []


def _loaded_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _bound_names(stmt: ast.stmt) -> set[str]:
    """Names a setup statement defines or changes (``root.left = ...`` changes ``root``)."""
    names: set[str] = set()
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        names.add(stmt.name)
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = list(stmt.targets)
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
        targets = [stmt.target]
    for target in targets:
        for sub in ast.walk(target):
            if isinstance(sub, ast.Name):
                names.add(sub.id)
    if isinstance(stmt, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
        for sub in ast.walk(stmt):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                names.add(sub.id)
    return names


def judging_setup(setup: str, judged: list[str]) -> str:
    """The part of the test setup that the judged asserts (each with the model's
    value already in place of the call) need: its imports, and every statement
    that defines or changes a name they use, with what those statements use in
    turn. The rest is left out because the judge loads no program: mbpp/367's
    ``root = Node(1)`` needs the program's ``Node``, and once the imagined value
    stands in for ``is_tree_balanced(root)`` nothing uses ``root`` any more.
    A setup that does not parse is passed on whole (the sandbox reports it)."""
    if not setup.strip():
        return ""
    try:
        body = pyparse.parse(setup.replace("\r\n", "\n")).body
    except SyntaxError:
        return setup
    needed: set[str] = set()
    for src in judged:
        try:
            needed |= _loaded_names(pyparse.parse(src.strip()))
        except SyntaxError:
            continue
    kept: list[ast.stmt] = []
    for stmt in reversed(body):
        if isinstance(stmt, (ast.Import, ast.ImportFrom)) or _bound_names(stmt) & needed:
            kept.append(stmt)
            needed |= _loaded_names(stmt)
    return "\n".join(ast.unparse(s) for s in reversed(kept))
