"""A workflow from a package of its own, installed beside qflow, is found through
the ``qflow.workflows`` entry points and used everywhere a built-in one is:
``qflow workflows``, its flag and config table, a run, replay, a re-run, fork,
compare, the bench and the compose form, with no edit to qflow_tui.

The example package (tests/data/plugin/qflow-plainshot, the one
docs/guide/write-a-workflow.md builds) is laid out as pip installs it: its
package and a dist-info whose entry points importlib.metadata reads, in a
folder of its own. Everything runs in child processes that have that folder on
their path, so no other test (the suite runs under xdist) ever sees it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from qflow_tui.core.workflows import WORKFLOWS
from tests.helpers import ROOT

PLUGIN = ROOT / "tests" / "data" / "plugin" / "qflow-plainshot"
SCRIPT = ROOT / "tests" / "data" / "plugin" / "writer_script.py"
PROBLEM = ["--problem", "tests/data/mbpp11/problem.txt", "--tests", "tests/data/mbpp11/tests.py"]
MODEL = ["--model", f"script/{SCRIPT}"]


def _install(target: Path) -> None:
    """What ``pip install --no-deps --target`` leaves: the package and its
    dist-info, written from the package's own pyproject.toml."""
    project = tomllib.loads((PLUGIN / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    shutil.copytree(PLUGIN / "qflow_plainshot", target / "qflow_plainshot")
    info = target / f"qflow_plainshot-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n", encoding="utf-8"
    )
    groups = project["entry-points"]
    (info / "entry_points.txt").write_text(
        "".join(
            f"[{g}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()) + "\n" for g, entries in groups.items()
        ),
        encoding="utf-8",
    )


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    site = tmp_path_factory.mktemp("site")
    _install(site)
    home = tmp_path_factory.mktemp("home")
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]),
        "QFLOW_CONFIG_DIR": str(home / "config"),
        "QFLOW_DATA_DIR": str(home / "data"),
    }


def qflow(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "qflow_tui.cli", *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120
    )


def solve(env: dict[str, str], tmp_path: Path, *extra: str) -> dict[str, object]:
    out = qflow(
        env, "solve", *PROBLEM, *MODEL, "--workflow", "plainshot", "--json", "--session-dir", str(tmp_path), *extra
    )
    assert out.returncode == 0, out.stderr
    summary: dict[str, object] = json.loads(out.stdout)
    return summary


def test_this_process_does_not_see_the_plugin():
    # The isolation the tests below rely on: the package is on the children's path only.
    assert "plainshot" not in WORKFLOWS


def test_qflow_workflows_lists_it_with_its_setting(env):
    out = qflow(env, "workflows")
    assert out.returncode == 0, out.stderr
    assert "plainshot: Plain-shot: one program from one writer call, unchecked" in out.stdout
    assert "--show-tests/--no-show-tests" in out.stdout
    data = json.loads(qflow(env, "workflows", "plainshot", "--json").stdout)
    (spec,) = data["workflows"]
    assert spec["settings"][0] | {"doc": ""} == {
        "key": "show_tests",
        "flag": "--show-tests",
        "type": "bool",
        "default": True,
        "doc": "",
        "allowed": "true | false",
        "choices": [],
        "minimum": None,
        "maximum": None,
    }
    assert [a["role"] for a in spec["agents"]] == ["writer"]
    # Listed after the built-ins, which keep their order.
    assert [w["name"] for w in json.loads(qflow(env, "workflows", "--json").stdout)["workflows"]] == [
        *WORKFLOWS,
        "plainshot",
    ]


def test_a_run_its_flag_and_its_config_table(env, tmp_path):
    summary = solve(env, tmp_path / "a")
    assert summary["outcome"] == "unchecked" and "rfind" in str(summary["final_program"])
    events = [json.loads(line) for line in Path(str(summary["session"])).read_text(encoding="utf-8").splitlines()]
    started = next(e for e in events if e.get("kind") == "run_started")
    assert started["workflow"] == "plainshot" and started["agents"] == [
        {"role": "writer", "label": "Writer", "short": "WR"}
    ]
    # The session records every setting of the workflow, resolved (a reader never
    # depends on today's default).
    assert started["config"]["workflow_settings"] == {"show_tests": True}

    hidden = solve(env, tmp_path / "b", "--no-show-tests")
    assert "rfind" not in str(hidden["final_program"])
    events = [json.loads(line) for line in Path(str(hidden["session"])).read_text(encoding="utf-8").splitlines()]
    assert next(e for e in events if e.get("kind") == "run_started")["config"]["workflow_settings"] == {
        "show_tests": False
    }

    config = Path(env["QFLOW_CONFIG_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[run]\nprompts = 2\n\n[workflow.plainshot]\nshow_tests = false\n", encoding="utf-8")
    try:
        assert "rfind" not in str(solve(env, tmp_path / "c")["final_program"])
        config.write_text("[workflow.plainshot]\nshow_test = false\n", encoding="utf-8")
        bad = qflow(env, "solve", *PROBLEM, *MODEL, "--workflow", "plainshot", "--session-dir", str(tmp_path / "d"))
        assert bad.returncode == 2 and "Traceback" not in bad.stderr
        assert "plainshot has no setting 'show_test'; its settings: show_tests" in bad.stderr
    finally:
        config.unlink()


def test_replay_rerun_fork_and_compare(env, tmp_path):
    first = Path(str(solve(env, tmp_path / "a", "--no-show-tests")["session"]))
    replay = qflow(env, "replay", str(first), "--json")
    assert replay.returncode == 0, replay.stderr
    replayed = json.loads(replay.stdout)
    assert replayed["outcome"] == "unchecked" and list(replayed["cost"]["per_agent"]) == ["writer"]

    rerun = qflow(env, "replay", str(first), "--rerun", "--json", "--session-dir", str(tmp_path / "rerun"))
    assert rerun.returncode == 0, rerun.stderr
    assert "rfind" not in json.loads(rerun.stdout)["final_program"]  # the recorded setting, replayed

    fork = qflow(
        env,
        "fork",
        str(first),
        "--at",
        "writer",
        *MODEL,
        "--show-tests",
        "--json",
        "--session-dir",
        str(tmp_path / "fork"),
    )
    assert fork.returncode == 0, fork.stderr
    forked = json.loads(fork.stdout)
    assert "rfind" in forked["final_program"]

    compare = qflow(env, "compare", str(first), str(forked["session"]), "--json")
    assert compare.returncode == 0, compare.stderr
    assert "writer" in compare.stdout


def test_the_bench(env, tmp_path):
    out = qflow(
        env, "bench", "--dataset", "mbpp", "--ids", "11", *MODEL, "--workflow", "plainshot", "--out", str(tmp_path)
    )
    assert out.returncode == 0, out.stderr
    assert "plainshot" in out.stdout
    results = list(tmp_path.rglob("results.jsonl"))
    assert results, sorted(p.name for p in tmp_path.rglob("*"))
    (row,) = [json.loads(line) for line in results[0].read_text(encoding="utf-8").splitlines()]
    assert row["passed"] is True


def test_the_compose_form_offers_it_with_its_setting(env, tmp_path):
    code = (
        "import asyncio\n"
        "from textual.widgets import Checkbox, Select\n"
        "from qflow_tui.core.config import RunConfig\n"
        "from qflow_tui.core.workflows import WORKFLOWS\n"
        "from qflow_tui.ui.app import create_app\n"
        "async def main():\n"
        "    app = create_app(RunConfig(workflow='plainshot'), remember_theme=False)\n"
        "    async with app.run_test(size=(120, 50)) as pilot:\n"
        "        await pilot.pause()\n"
        "        options = [str(v) for _, v in app.screen_stack[0].query_one('#workflow', Select)._options]\n"
        "        box = app.screen_stack[0].query_one('#set-show_tests', Checkbox)\n"
        "        box.value = False\n"
        "        await pilot.pause()\n"
        "        cfg = app.screen_stack[0].read_config()\n"
        "        print(options[-1], cfg.workflow, WORKFLOWS['plainshot'].settings[0].of(cfg))\n"
        "asyncio.run(main())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["plainshot", "plainshot", "False"]


def test_the_guide_shows_the_package_as_it_is():
    """docs/guide/write-a-workflow.md builds this package, then the example
    in examples/qflow-debugloop: each of its code blocks is in the file it
    shows, word for word."""
    import re

    guide = (ROOT / "docs" / "guide" / "write-a-workflow.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```(python|toml)\n(.*?)```", guide, re.S)
    example = ROOT / "examples" / "qflow-debugloop" / "qflow_debugloop"
    files = {
        "toml": [PLUGIN / "pyproject.toml"],
        "python": [
            PLUGIN / "qflow_plainshot" / "__init__.py",
            PLUGIN / "qflow_plainshot" / "run.py",
            example / "__init__.py",
            example / "run.py",
        ],
    }
    assert len(blocks) == 6
    for language, code in blocks:
        assert any(code in path.read_text(encoding="utf-8") for path in files[language]), code[:60]


def test_a_broken_plugin_is_said_and_the_others_still_run(tmp_path):
    site = tmp_path / "site"
    info = site / "qflow_broken-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: qflow-broken\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[qflow.workflows]\nbroken = qflow_broken:SPEC\n", encoding="utf-8")
    (site / "qflow_broken.py").write_text("raise ImportError('needs a newer numpy')\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    out = qflow(env, "workflows")
    assert out.returncode == 0 and "zeroshot:" in out.stdout
    assert "a workflow could not be loaded: broken (qflow_broken:SPEC): ImportError: needs a newer numpy" in out.stderr


def test_the_registry_reads_the_entry_points_importlib_metadata_reads(env):
    # qflow reads entry_points.txt itself (importlib.metadata costs the launch
    # about 35 ms); with the plugin installed, both see the same entries.
    code = (
        "from importlib.metadata import entry_points\n"
        "from qflow_tui.core.workflows import GROUP, entry_points as ours\n"
        "theirs = sorted((e.name, e.value) for e in entry_points(group=GROUP))\n"
        "assert sorted(ours(GROUP)) == theirs, (ours(GROUP), theirs)\n"
        "print(len(theirs))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(len(WORKFLOWS) + 1)
