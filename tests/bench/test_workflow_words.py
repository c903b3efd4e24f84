"""A bench's report and its screen name a workflow's steps and agents in the
workflow's own words (issue 54): the checker, the test judge and the debugger
by the labels the workflow declares, the chart's steps by its stage_words; and
the screen writes intervals as the report does (issue 57)."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from qflow_tui.core.bench.report import load_bench, render_report, role_label
from qflow_tui.core.workflows import WORKFLOWS
from qflow_tui.core.workflows.base import Agent
from qflow_tui.ui.screens.bench import _interval
from qflow_tui.ui.widgets.bench_chart import pass_rows

FIXTURE = Path(__file__).parent / "data" / "finished-late-fix"


@pytest.fixture
def planflow() -> Iterator[str]:
    """QualityFlow's spec under another name, its agents relabelled and its
    stages worded its own way, as a plugin's workflow would declare them."""
    base = WORKFLOWS["qualityflow"]
    relabel = {"code_quality_checker": "Plan critic", "test_quality_checker": "Test vetter", "self_debugger": "Fixer"}
    agents = tuple(dataclasses.replace(a, label=relabel.get(a.role, a.label)) for a in base.agents)
    assert all(isinstance(a, Agent) for a in agents)
    words = {**base.stage_words, "self_debug": "mend", "program_generator": "draft"}
    WORKFLOWS.register("planflow", dataclasses.replace(base, name="planflow", agents=agents, stage_words=words))
    try:
        yield "planflow"
    finally:
        del WORKFLOWS.extra["planflow"]


def test_the_report_names_the_workflows_own_agents(planflow: str, tmp_path: Path) -> None:
    folder = tmp_path / "bench"
    shutil.copytree(FIXTURE, folder)
    data = load_bench(folder)
    data.spec["workflow"] = planflow
    report = render_report(data)
    assert "## Plan critic as a classifier (QualityFlow's Table 4)" in report
    assert "## Test vetter on synthesized tests (QualityFlow's Table 6)" in report
    assert "## Fixer: what its fixes did (QualityFlow's Table 7)" in report
    assert "Code Quality Checker" not in report and "CQC" not in report and "Self-debugging" not in report


def test_a_workflow_without_the_role_is_named_plainly() -> None:
    assert role_label({"workflow": "qualityflow"}, lambda w: w.checker, "x") == "Code quality checker"
    assert role_label({"workflow": "zeroshot"}, lambda w: w.checker, "the quality checker") == "The quality checker"
    assert role_label({"workflow": "not-installed"}, lambda w: w.debugger, "the debugger") == "The debugger"


def test_the_bench_chart_reads_the_workflows_stage_words(planflow: str) -> None:
    data = load_bench(FIXTURE)
    done = [r for r in data.records if r.get("status") == "done"]
    labels = [label for label, _passed, _n in pass_rows(done, planflow)]
    assert "draft" in labels and any(label.startswith("mend ") for label in labels)
    assert not any("self debug" in label or "program generator" in label for label in labels)


def test_the_screen_writes_intervals_as_the_report_does() -> None:
    assert _interval(10, 10) == "[72.2, 100.0]"
    assert _interval(0, 0) == "n/a"


def test_the_tqc_table_says_f1_as_a_percentage_like_its_neighbours() -> None:
    """Issue 57 (Low): F1 read "0.67" beside precision and recall in percent."""
    from qflow_tui.core.bench.data import table_tqc

    tests = [
        {"correct": False, "kept": False},
        {"correct": False, "kept": False},
        {"correct": True, "kept": False},
        {"correct": False, "kept": True},
        {"correct": True, "kept": True},
    ]
    rows = dict(table_tqc([{"id": "humaneval/0", "tests": tests}]))  # type: ignore[list-item]
    assert (rows["Precision"], rows["Recall"], rows["F1"]) == ("66.67", "66.67", "66.67")
