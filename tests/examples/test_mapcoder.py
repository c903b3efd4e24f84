"""The MapCoder example plugin (examples/mapcoder), installed by pip from its own
pyproject.toml (offline: no index, no build isolation) into a folder of its
own, and run by qflow as a user runs it, with the script model it ships: its
listing and ``qflow doctor``, a function problem and a stdin/stdout problem
solved headless, its settings (k and t) from flags and the environment, a
person's program and verdict at a fork, a replay, and the bench.

Everything runs in child processes that have that folder on their path, so no
other test ever sees the plugin (one xdist group: the package is installed
once)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from qflow_tui.core.workflows import WORKFLOWS
from tests.helpers import ROOT, pip_install_example, plugin_env, run_with, solved
from tests.helpers import of_kind as of
from tests.helpers import session_events as events

pytestmark = pytest.mark.xdist_group("mapcoder")

EXAMPLE = ROOT / "examples" / "mapcoder"
MODEL = ["--model", "script/qflow_mapcoder.script_model"]  # the installed module, as the docs name it
FUNCTION = ["--problem", str(EXAMPLE / "problems" / "remove-occ.json")]
IO = ["--problem", str(EXAMPLE / "problems" / "add-two.json")]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    site = pip_install_example(EXAMPLE, tmp_path_factory.mktemp("plugin"))
    # The prompts of both kinds are package data: a wheel without them could not run.
    assert (site / "qflow_mapcoder" / "prompts" / "planning" / "confidence.txt").is_file()
    assert (site / "qflow_mapcoder" / "prompts" / "debugging" / "io" / "debug.txt").is_file()
    return plugin_env(site, plugin_timeout="60")


def solve(env: dict[str, str], out: Path, *extra: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The run's --json summary and the events of the session it recorded."""
    return solved(env, out, *MODEL, "--workflow", "mapcoder", *extra)


def test_this_process_does_not_see_the_plugin():
    assert "mapcoder" not in WORKFLOWS


def test_it_is_listed_with_k_and_t_and_named_by_doctor(env):
    out = run_with(env, "workflows", "mapcoder")
    assert out.returncode == 0, out.stderr
    assert "--exemplars" in out.stdout and "--debug-rounds" in out.stdout
    (spec,) = json.loads(run_with(env, "workflows", "mapcoder", "--json").stdout)["workflows"]
    assert [a["role"] for a in spec["agents"]] == ["retrieval", "planning", "coding", "sample_tester", "debugging"]
    assert {s["key"]: s["default"] for s in spec["settings"]} == {"exemplars": 3, "debug_rounds": 5}
    steps = [s["step"] for s in spec["plan"]]
    assert steps[:6] == ["retrieval", "planning:1", "planning:2", "planning:3", "coding:1", "debugging:1"]
    assert steps[-1] == "debugging:15" and steps.index("coding:2") == 10
    doctor = run_with(env, "doctor")
    assert "workflow plugins: mapcoder" in doctor.stdout, doctor.stdout


def test_a_function_problem_goes_to_the_next_plan_and_is_accepted(env, tmp_path):
    summary, recorded = solve(env, tmp_path, *FUNCTION)
    assert summary["outcome"] == "accepted" and summary["accepted_at"] == "coding:2"
    assert "rfind" in summary["final_program"]
    started = of("run_started", recorded)[0]
    assert started["workflow"] == "mapcoder" and started["checker"] == "sample_tester"
    assert started["config"]["workflow_settings"] == {"exemplars": 3, "debug_rounds": 5}
    # k recalled problems, a plan and a confidence from each: 1 + 3 * 2 calls before any code.
    calls = [(c["agent"], c["step"]) for c in of("llm_call_started", recorded)]
    assert calls[:7] == [("retrieval", "retrieval")] + [("planning", f"planning:{n}") for n in (1, 1, 2, 2, 3, 3)]
    planned = [e["detail"] for e in of("step_finished", recorded) if e["agent"] == "planning"]
    assert planned == ["confidence 90", "confidence 35", "confidence 80"]
    # The most confident plan (1) first, t = 5 debugging rounds, then the next (3, at 80), never plan 2.
    coded = [e["detail"] for e in of("step_finished", recorded) if e["agent"] == "coding"]
    assert coded == ["plan 1, confidence 90", "plan 3, confidence 80"]
    runs = of("sandbox_run", recorded)
    assert [(r["step"], r["passed"], r["total"]) for r in runs] == [
        ("coding:1", 0, 3),
        *((f"debugging:{n}", 0, 3) for n in range(1, 6)),
        ("coding:2", 3, 3),
    ]
    assert {(r["agent"], r["purpose"]) for r in runs} == {("sample_tester", "samples")}
    # MapCoder's own decision words, each mapped onto the core's continue.
    decisions = [(d["step"], d["word"], d["decision"]) for d in of("decision", recorded)]
    rounds = [(f"debugging:{n}", "debug", "continue") for n in range(1, 5)]
    assert decisions == [
        ("coding:1", "debug", "continue"),
        *rounds,
        ("debugging:5", "next plan", "continue"),
        ("coding:2", "", "accept"),
    ]
    assert of("decision", recorded)[-2]["reason"] == "0/3 samples pass after 5 debugging rounds: plan 3 is next"


def test_its_plans_pane_gets_a_row_per_recalled_problem_with_its_confidence(env, tmp_path):
    _, recorded = solve(env, tmp_path, *FUNCTION)
    (pane,) = of("run_started", recorded)[0]["panes"]
    assert (pane["id"], pane["title"], pane["record"]) == ("plans", "Plans", "plan")
    assert [c["field"] for c in pane["columns"]] == ["plan", "recalled", "confidence", "tried", "outcome"]
    # Each plan's row is sent again (same key) as it is scored and tried; its last state:
    last: dict[str, dict[str, Any]] = {}
    for record in of("record", recorded):
        assert record["record"] == "plan" and record["progression"] == 0
        last[record["key"]] = record["fields"]
    assert [(f["plan"], f["confidence"], f["tried"], f["outcome"]) for f in last.values()] == [
        (1, 90, 1, "failed: 0/3 after 5 rounds"),
        (2, 35, None, "planned"),
        (3, 80, 2, "accepted at coding:2"),
    ]
    assert last["2"]["recalled"] == "Reverse the order of the words in a sentence."
    # Before any plan, the recalled problems alone (the pane fills as the run goes).
    first_rows = of("record", recorded)[:3]
    assert [(r["step"], r["fields"]["confidence"], r["fields"]["outcome"]) for r in first_rows] == [
        ("retrieval", None, "to plan")
    ] * 3


def test_the_headless_log_says_its_words_and_its_rows(env, tmp_path):
    done = run_with(env, "solve", *FUNCTION, *MODEL, "--workflow", "mapcoder", "--session-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    log = done.stdout + done.stderr
    assert "debugging:5: NEXT PLAN - 0/3 samples pass after 5 debugging rounds: plan 3 is next" in log
    assert "coding:1: DEBUG - 0/3 samples pass: debugging round 1 of 5 (plan 1)" in log
    assert "planning:3 plan: plan=3 recalled=Remove the last occurrence" in log
    assert "confidence=80 tried= outcome=planned" in log


def test_a_stdin_problem_is_debugged_against_its_samples(env, tmp_path):
    # The script raises when an agent gets a function prompt, or the debugging
    # agent is not shown the input, the expected output and what was printed.
    summary, recorded = solve(env, tmp_path, *IO)
    assert summary["outcome"] == "accepted" and summary["accepted_at"] == "debugging:1"
    assert summary["final_program"] == "a, b = map(int, input().split())\nprint(a + b)"
    runs = of("sandbox_run", recorded)
    assert [(r["step"], r["passed"], r["total"]) for r in runs] == [("coding:1", 0, 2), ("debugging:1", 2, 2)]
    debug_prompt = next(c for c in of("llm_call_started", recorded) if c["agent"] == "debugging")
    shown = debug_prompt["messages"][-1]["content"]
    assert "Expected output" in shown and "ValueError" in shown
    # The whole program is kept: its prints are the answer, not a demo to strip.
    assert of("program_candidate", recorded)[0]["program"].endswith("print(a + b)")

    # Its session exports as a Markdown transcript, in MapCoder's words.
    out = tmp_path / "transcript.md"
    export = run_with(env, "sessions", "export", str(summary["session"]), "--format", "md", "--output", str(out))
    assert export.returncode == 0, export.stderr
    transcript = out.read_text(encoding="utf-8")
    assert "**Decision (p0): DEBUG** — 0/2 samples pass: debugging round 1 of 5 (plan 1)" in transcript
    assert "**ACCEPTED** at `debugging:1`." in transcript


def test_k_and_t_from_flags_and_the_environment(env, tmp_path):
    summary, recorded = solve(env, tmp_path / "flags", *FUNCTION, "--exemplars", "1", "--debug-rounds", "0")
    # One recalled problem, its plan fails, no debugging round: the last program stands.
    assert summary["outcome"] == "rejected" and "rfind" not in summary["final_program"]
    assert of("run_started", recorded)[0]["config"]["workflow_settings"] == {"exemplars": 1, "debug_rounds": 0}
    assert [c["agent"] for c in of("llm_call_started", recorded)] == ["retrieval", "planning", "planning", "coding"]
    assert of("decision", recorded)[-1]["word"] == "plans spent"
    assert "no plan is left" in of("decision", recorded)[-1]["reason"]

    summary, recorded = solve(env | {"QFLOW_DEBUG_ROUNDS": "1"}, tmp_path / "env", *FUNCTION)
    assert summary["accepted_at"] == "coding:2"
    assert of("run_started", recorded)[0]["config"]["workflow_settings"] == {"exemplars": 3, "debug_rounds": 1}
    assert [r["step"] for r in of("sandbox_run", recorded)] == ["coding:1", "debugging:1", "coding:2"]
    assert of("decision", recorded)[1]["reason"] == "0/3 samples pass after 1 debugging round: plan 3 is next"
    first_plan = [r["fields"]["outcome"] for r in of("record", recorded) if r["key"] == "1"]
    assert first_plan[-1] == "failed: 0/3 after 1 round"

    # The config file's [workflow.mapcoder] table; a flag wins over it.
    config = tmp_path / "config"
    config.mkdir()
    (config / "config.toml").write_text("[workflow.mapcoder]\nexemplars = 2\ndebug_rounds = 0\n", encoding="utf-8")
    filed = env | {"QFLOW_CONFIG_DIR": str(config)}
    summary, recorded = solve(filed, tmp_path / "file", *FUNCTION, "--debug-rounds", "2")
    assert of("run_started", recorded)[0]["config"]["workflow_settings"] == {"exemplars": 2, "debug_rounds": 2}
    # Two recalled problems (plans at 90 and 35): both fail, the last program stands.
    assert summary["outcome"] == "rejected" and [r["step"] for r in of("sandbox_run", recorded)] == [
        "coding:1", "debugging:1", "debugging:2", "coding:2", "debugging:3", "debugging:4",
    ]  # fmt: skip

    bad = run_with(env, "solve", *FUNCTION, *MODEL, "--workflow", "mapcoder", "--exemplars", "10")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr, bad.stderr
    assert "exemplars 10" in bad.stderr and "1 to 9" in bad.stderr


def test_a_persons_program_and_verdict_at_a_fork(env, tmp_path):
    first, _ = solve(env, tmp_path / "first", *FUNCTION)
    program = tmp_path / "mine.py"
    program.write_text(
        "def remove_Occ(s, ch):\n    return s.replace(ch, '', 1)[::-1].replace(ch, '', 1)[::-1]\n", encoding="utf-8"
    )
    common = [*MODEL, "--json"]
    fork = run_with(
        env, "fork", str(first["session"]), "--at", "coding:1", "--program-file", str(program), *common,
        "--session-dir", str(tmp_path / "fork"),
    )  # fmt: skip
    assert fork.returncode == 0, fork.stderr
    forked = json.loads(fork.stdout)
    # The person's program stood in for the coding agent's and passed the samples.
    assert forked["outcome"] == "accepted" and forked["accepted_at"] == "coding:1"
    recorded = events(forked)
    assert [(s["what"], s["step"], s["agent"]) for s in of("steered", recorded)] == [("program", "coding:1", "coding")]
    # Everything before the branch came from the recording, nothing after it asked the coding agent.
    assert [c for c in of("llm_call_started", recorded) if c["agent"] == "coding"] == []

    verdict = run_with(
        env, "fork", str(first["session"]), "--at", "coding:1", "--accept", *common,
        "--session-dir", str(tmp_path / "verdict"),
    )  # fmt: skip
    assert verdict.returncode == 0, verdict.stderr
    accepted = json.loads(verdict.stdout)
    assert accepted["outcome"] == "accepted" and "rfind" not in accepted["final_program"]
    assert [s["what"] for s in of("steered", events(accepted))] == ["verdict"]
    assert not of("sandbox_run", events(accepted))


def test_a_replay_and_a_rerun_from_the_recording(env, tmp_path):
    first, recorded = solve(env, tmp_path / "first", *IO)
    shown = run_with(env, "replay", str(first["session"]), "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["outcome"] == "accepted"
    # A re-run answers every call from the recording: no script model needed.
    rerun = run_with(
        env, "replay", str(first["session"]), "--rerun", "--json", "--session-dir", str(tmp_path / "rerun")
    )
    assert rerun.returncode == 0, rerun.stderr
    again = json.loads(rerun.stdout)
    assert again["outcome"] == "accepted" and again["final_program"] == first["final_program"]
    assert len(of("llm_call_finished", events(again))) == len(of("llm_call_finished", recorded))


def test_the_bench_runs_it_and_labels_it_relaxed(env, tmp_path):
    out = run_with(
        env, "bench", "--dataset", "mbpp", "--ids", "11", *MODEL, "--workflow", "mapcoder", "--out", str(tmp_path)
    )
    assert out.returncode == 0, out.stderr
    assert "RELAXED" in out.stdout, out.stdout
    assert "1/1" in out.stdout or "100.0" in out.stdout, out.stdout


def test_its_docs_page_says_what_its_spec_says(env):
    """docs/workflows/mapcoder.md's description and settings are what docs/gen.py
    writes for any workflow, here from the installed plugin's spec."""
    write = "import sys; sys.path.insert(0, 'docs'); import gen; print(gen.workflow_page('mapcoder')())"
    out = subprocess.run([sys.executable, "-c", write], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    page = (ROOT / "docs" / "workflows" / "mapcoder.md").read_text(encoding="utf-8")
    region = page.split("<!-- plugin: workflow-mapcoder -->\n", 1)[1].split("<!-- end -->", 1)[0]
    assert region == out.stdout, (
        "docs/workflows/mapcoder.md is out of step with the plugin's spec: paste\n" + out.stdout
    )


def app(env: dict[str, str], mode: str, problem: list[str]) -> dict[str, Any]:
    """What tests/examples/mapcoder_app.py saw of the app on a MapCoder run."""
    driver = ROOT / "tests" / "examples" / "mapcoder_app.py"
    out = subprocess.run(
        [sys.executable, str(driver), mode, problem[1]], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300
    )
    assert out.returncode == 0, out.stderr
    seen: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return seen


def test_the_app_runs_it_with_its_pane_and_words(env):
    seen = app(env, "free", FUNCTION)
    assert (seen["outcome"], seen["accepted_at"]) == ("accepted", "coding:2")
    assert seen["panes"] == ["plans"]
    assert [(p["plan"], p["confidence"], p["tried"]) for p in seen["plans"]] == [(1, 90, 1), (2, 35, None), (3, 80, 2)]
    assert ["debugging:5", "continue", "next plan"] in seen["decisions"]
    # Its Plans tab, numbered after the built-in ones, at 80x24: a row per
    # recalled problem with its plan's confidence, order tried and outcome.
    assert seen["tabs"] == ["Timeline", "Agents", "Tests", "Program", "Plans"]
    assert seen["active"] == "pane-plans"
    lines = seen["screen"].splitlines()
    assert lines[2].split() == ["Timeline", "Agents", "Tests", "Program", "Plans"]
    assert lines[4].split() == ["#", "recalled", "problem", "conf", "tried", "outcome"]
    assert lines[5].split()[:2] == ["1", "Remove"]
    assert lines[5].split()[-7:] == ["90", "1", "failed:", "0/3", "after", "5", "rounds"]
    assert lines[6].split()[-2:] == ["35", "planned"]
    assert lines[7].split()[-5:] == ["80", "2", "accepted", "at", "coding:2"]
    # The timeline says MapCoder's steps and decisions in its words.
    assert (
        "debug 5 of the 1st plan: next plan  0/3 samples pass after 5 debugging rounds: plan 3 is next"
        in (seen["timeline"])
    )
    assert "code the 2nd plan: ACCEPT  3/3 samples pass: plan 3 stands" in seen["timeline"]

    io = app(env, "free", IO)
    assert (io["outcome"], io["accepted_at"]) == ("accepted", "debugging:1")
    assert io["decisions"] == [["coding:1", "continue", "debug"], ["debugging:1", "accept", ""]]


def test_step_mode_stops_before_each_of_its_steps_and_checks(env):
    seen = app(env, "step", FUNCTION)
    rounds = [stop for n in range(1, 6) for stop in (f"debugging:{n}", f"check:debugging:{n}")]
    assert seen["stops"] == [
        "retrieval",
        *(f"planning:{n}" for n in (1, 2, 3)),
        "coding:1",
        "check:coding:1",
        *rounds,
        "coding:2",
        "check:coding:2",
    ]
    # Held before the retrieval agent: no model call yet.
    assert seen["calls_at_first_stop"] == 0
    assert (seen["outcome"], seen["accepted_at"]) == ("accepted", "coding:2")


async def test_a_replay_shows_its_plans_tab_where_the_plugin_is_not_installed(env, tmp_path):
    # Recorded where the plugin is installed, replayed in this process, which has
    # never seen it: the session carries the pane's declaration and its records.
    from qflow_tui.core.config import RunConfig
    from qflow_tui.ui.app import create_app
    from qflow_tui.ui.widgets.records_table import RecordsTable
    from qflow_tui.ui.widgets.run_view import RunView

    summary, _ = solve(env, tmp_path, *IO)
    assert "mapcoder" not in WORKFLOWS
    app = create_app(RunConfig(), replay_path=summary["session"], remember_theme=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.screen.query_one(RunView)
        assert [title for _, title in view.numbered()][-1] == "Plans"
        await pilot.press(str(len(view.numbered())))
        await pilot.pause()
        assert view.query_one("#run-tabs").active == "pane-plans"
        rows = view.query_one("#records-plans", RecordsTable).shown
        assert [(r.value("plan"), r.value("confidence"), r.value("outcome")) for r in rows] == [
            (1, 85, "accepted at debugging:1"),
            (2, 70, "planned"),
            (3, 20, "planned"),
        ]


def test_the_compose_form_has_k_and_t_in_the_papers_letters(env):
    seen = app(env, "compose", FUNCTION)
    assert seen["fields"] == {"exemplars": ["k: recalled problems", 3], "debug_rounds": ["t: debugging rounds", 5]}
