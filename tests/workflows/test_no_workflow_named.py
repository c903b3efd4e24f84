"""Nothing outside a workflow's package names it: the app, the commands,
steering and the bench ask the workflow's spec (its steering, checker,
reverts, decided roles) instead. A name in prose that cites a paper
("QualityFlow Table 1") is the paper's, not the registry's lowercase key."""

from __future__ import annotations

import re
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


def test_the_check_sees_a_name():
    assert re.search(r"\b(qualityflow)\b", 'if config.workflow == "qualityflow":')
    assert not re.search(r"\b(qualityflow)\b", "QualityFlow Table 1")
