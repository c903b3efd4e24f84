"""Nothing outside a workflow's package names it or its own agents: the app,
the commands, steering and the bench ask the workflow's spec (its steering,
checker, debugger, agents, reverts, decided roles) instead. A name in prose that cites a paper
("QualityFlow Table 1") is the paper's, not the registry's lowercase key."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

from qflow_tui.core.workflows import WORKFLOWS

PACKAGE = Path(__file__).resolve().parents[2] / "qflow_tui"
FOLDERS = ("ui", "commands", "core/steer", "core/bench")


def test_no_workflow_is_named_in_the_app_the_commands_steering_or_the_bench():
    names = re.compile(r"\b(" + "|".join(map(re.escape, WORKFLOWS)) + r")\b")
    found = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for folder in FOLDERS
        for path in sorted((PACKAGE / folder).rglob("*"))
        if path.suffix in (".py", ".tcss")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if names.search(line)
    ]
    assert found == []


def _own_roles() -> set[str]:
    """Agent roles that belong to one workflow (``self_debugger``, ``critic``): a
    role two workflows share (``program_generator``) names neither."""
    seen = Counter(role for spec in WORKFLOWS.values() for role in {a.role for a in spec.agents})
    return {role for role, n in seen.items() if n == 1}


def _role_literals(source: str, roles: set[str]) -> list[tuple[int, str]]:
    """Where code spells a role as a string of its own (prose around one is the paper's words)."""
    return [
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in roles
    ]


def test_no_workflows_agent_role_is_named_in_the_app_the_commands_steering_or_the_bench():
    roles = _own_roles()
    assert {"self_debugger", "code_quality_checker", "critic"} <= roles
    found = [
        f"{path.relative_to(PACKAGE)}:{line}: {role!r}"
        for folder in FOLDERS
        for path in sorted((PACKAGE / folder).rglob("*.py"))
        for line, role in _role_literals(path.read_text(encoding="utf-8"), roles)
    ]
    assert found == []


def test_the_role_check_sees_a_role():
    roles = {"self_debugger"}
    assert _role_literals('if p.agent == "self_debugger":\n    pass\n', roles) == [(1, "self_debugger")]
    assert _role_literals('"""The self_debugger fixes it."""\n', roles) == []


def test_the_check_sees_a_name():
    assert re.search(r"\b(qualityflow)\b", 'if config.workflow == "qualityflow":')
    assert not re.search(r"\b(qualityflow)\b", "QualityFlow Table 1")
