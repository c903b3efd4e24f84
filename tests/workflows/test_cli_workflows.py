"""The command line of the workflows: ``--workflow`` for solve and the app,
every setting's flag generated from its definition, ``qflow workflows``, and
bad values as one line. ``solve --workflow X`` runs for every workflow with the
mbpp11 script model (the README's examples)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qflow_tui.cli import build_parser, main
from qflow_tui.core.workflows import WORKFLOWS
from qflow_tui.core.workflows.values import all_settings
from tests.helpers import qflow

SOLVE = [
    "solve",
    "--problem",
    "tests/data/mbpp11/problem.txt",
    "--tests",
    "tests/data/mbpp11/tests.py",
    "--model",
    "script/tests/scripts/mbpp11_workflows.py",
]


def test_every_setting_has_its_flag_on_solve_and_on_the_app():
    parser = build_parser()
    for setting in all_settings():
        value = "true" if setting.type is bool else (setting.choices[-1] if setting.choices else "2")
        flag = setting.flag if setting.type is not bool else "--no-" + setting.flag[2:]
        bare = parser.parse_args(["--workflow", "codetree", flag] + ([] if setting.type is bool else [value]))
        solve = parser.parse_args([*SOLVE, flag] + ([] if setting.type is bool else [value]))
        expected = False if setting.type is bool else value
        assert getattr(bare, setting.key) == expected and getattr(solve, setting.key) == expected, setting.key
        assert bare.workflow == "codetree"


def test_qflow_workflows_lists_each_with_its_settings_and_defaults(capsys):
    assert main(["workflows"]) == 0
    out = capsys.readouterr().out
    for name, spec in WORKFLOWS.items():
        assert f"{name}: {spec.summary}" in out
        for setting in spec.settings:
            assert setting.flag in out and setting.doc in out
    budget = next(line for line in out.splitlines() if line.startswith("    --budget "))
    assert budget.split() == ["--budget", "budget", "20", "1", "to", "200"]
    assert main(["workflows", "codetree", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (tree,) = data["workflows"]
    assert [s["key"] for s in tree["settings"]] == [
        "budget",
        "depth",
        "width",
        "search",
        "separate_scoring",
        "solution_verification",
        "node_abort",
        "node_scoring",
    ]
    assert tree["settings"][0]["default"] == 20
    assert tree["settings"][3]["choices"] == ["critic", "bfs", "dfs", "strategy_list"]
    assert [a["role"] for a in tree["agents"]] == ["thinker", "solver", "debugger", "critic"]


def test_qflow_workflows_aligns_each_settings_column(capsys):
    """Issue 57: a long key or default pushed its row's later columns right.
    Within a workflow, each setting's key, default and allowed values start at
    the same column as every other setting's (a flag too long for its column
    takes a line of its own)."""
    assert main(["workflows"]) == 0
    blocks = capsys.readouterr().out.split("\n\n")
    checked = 0
    for spec in WORKFLOWS.values():
        if not spec.settings:
            continue
        block = next(b for b in blocks if b.startswith(f"{spec.name}: "))
        rows = block.splitlines()
        starts: dict[str, set[int]] = {"key": set(), "default": set(), "allowed": set()}
        for setting in spec.settings:
            allowed = setting.allowed()
            row = next(r for r in rows if r.endswith(f"  {allowed}") and f" {setting.key} " in r + " ")
            key_at = row.index(f" {setting.key} ") + 1
            starts["key"].add(key_at)
            after_key = key_at + len(setting.key)
            starts["default"].add(after_key + len(row[after_key:]) - len(row[after_key:].lstrip()))
            starts["allowed"].add(len(row) - len(allowed))
            checked += 1
        for column, at in starts.items():
            assert len(at) == 1, f"{spec.name}: the {column} column starts at {sorted(at)}"
    assert checked > 20


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--workflow", "nope"], "unknown workflow 'nope': choose one of qualityflow"),
        (["--workflow", "codetree", "--budget", "x"], "--budget: budget must be a whole number, not 'x'"),
        (
            ["--workflow", "codetree", "--search", "wide"],
            "search 'wide': choose one of critic, bfs, dfs, strategy_list",
        ),
        (["--workflow", "codetree", "--depth", "0"], "depth 0: choose 1 to 10"),
        (["--workflow", "adacoder", "--iterations", "0"], "iterations 0: choose 1 to 50"),
    ],
)
def test_bad_workflow_values_are_one_line(tmp_path, extra, message):
    out = qflow(*SOLVE, "--session-dir", str(tmp_path), *extra)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines() == [f"qflow: {out.stderr.strip()[len('qflow: ') :]}"]
    assert message in out.stderr


def test_bare_qflow_with_a_bad_workflow_is_one_line(tmp_path):
    out = qflow("--workflow", "nope")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1 and "unknown workflow" in out.stderr


@pytest.mark.parametrize(
    "workflow,extra,outcome,accepted_at",
    [
        ("codetree", [], "accepted", "critic:2"),
        ("codetree", ["--search", "dfs"], "accepted", "debugger:2"),
        ("codetree", ["--search", "bfs", "--budget", "3"], "accepted", "solver:2"),
        ("adacoder", [], "accepted", "programming_assistant:1"),
        ("agentcoder", ["--iterations", "1"], "rejected", None),
        ("zeroshot", [], "unchecked", None),
        ("qualityflow", ["--prompts", "1"], "accepted", "self_debug:1"),
    ],
)
def test_solve_runs_every_workflow_with_the_mbpp11_script(tmp_path, capsys, workflow, extra, outcome, accepted_at):
    code = main([*SOLVE, "--workflow", workflow, *extra, "--json", "--session-dir", str(tmp_path)])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["outcome"], summary["accepted_at"]) == (outcome, accepted_at)
    if outcome == "accepted":
        assert "rfind" in summary["final_program"]
    session = [json.loads(line) for line in Path(summary["session"]).read_text(encoding="utf-8").splitlines()]
    started = next(e for e in session if e.get("kind") == "run_started")
    assert started["workflow"] == workflow and started["agents"] == [a.to_dict() for a in WORKFLOWS[workflow].agents]
