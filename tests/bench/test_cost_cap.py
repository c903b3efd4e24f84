"""Cost before and during a bench: ``--max-cost`` starts a problem only while
the spend (priced as the report prices it), what the running problems are
expected to cost still and what this one is expected to cost fit under the cap;
it keeps what finished, says the final spend in one line and exits 3; the same
command with a higher cap goes on. A server that reports no usage (or an
impossible one) is counted by estimate, said once. ``--estimate`` prices the
whole bench from a few runs."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

import pytest

from qflow_tui.cli import main
from qflow_tui.core.bench.bench_runner import BenchRunner, BenchSpec, latest_results, read_results
from qflow_tui.core.bench.estimate import estimate_from
from qflow_tui.core.config import RunConfig
from qflow_tui.core.llm.prices import Price

ROOT = Path(__file__).parents[2]
CANONICAL = ROOT / "bench" / "canonical_model.py"
sys.path.insert(0, str(ROOT / "tests" / "llm"))  # the stub model server
from stub_server import INPUT_TOKENS, OUTPUT_TOKENS, StubServer  # noqa: E402


def _argv(out: Path, *extra: str, limit: int = 6) -> list[str]:
    return [
        "bench",
        "--dataset",
        "humaneval",
        "--limit",
        str(limit),
        "--concurrency",
        "1",
        "--model",
        f"script/{CANONICAL}",
        "--workflow",
        "zeroshot",
        "--price-in",
        "3",
        "--price-out",
        "15",
        "--out",
        str(out),
        *extra,
    ]


def _line_cost(rec: dict) -> float:
    return sum((t["input"] * 3 + t["output"] * 15) / 1e6 for t in rec["tokens"].values())


def test_the_cap_stops_new_problems_keeps_the_finished_and_a_higher_cap_goes_on(tmp_path, capsys):
    out = tmp_path / "bench"
    assert main(_argv(out, "--max-cost", "0.004")) == 3
    err = capsys.readouterr().err
    (why,) = [line for line in err.splitlines() if line.startswith("qflow: the bench stopped")]
    assert "the cost cap was reached" in why and "of --max-cost $0.0040" in why and "higher --max-cost" in why
    done = [r for r in latest_results(read_results(out)).values() if r["status"] == "done"]
    # One at a time: a problem starts only while the spend is under the cap, so the
    # spend before the last one started was under it, and with it at or over it.
    costs = [_line_cost(r) for r in read_results(out)]
    assert 0 < len(done) < 6
    # One at a time: the spend stays under the cap, and one more problem at the mean would not.
    assert sum(costs) <= 0.004 < sum(costs) + sum(costs) / len(costs)
    assert f"${sum(costs):.4f} spent of --max-cost" in why
    # The same cap again: nothing more starts.
    lines = len(read_results(out))
    assert main(_argv(out, "--max-cost", "0.004")) == 3
    capsys.readouterr()
    assert len(read_results(out)) == lines
    # A higher cap resumes where it stopped and finishes.
    assert main(_argv(out, "--max-cost", "1")) == 0
    assert "6 of 6 runs finished" in capsys.readouterr().out
    assert len(read_results(out)) == 6


def test_a_cap_needs_a_price(tmp_path, capsys):
    argv = ["bench", "--dataset", "mbpp", "--limit", "1", "--model", "openai/no-such-model", "--out", str(tmp_path)]
    assert main([*argv, "--max-cost", "1"]) == 2
    err = capsys.readouterr().err
    assert "--max-cost needs openai/no-such-model's price" in err and err.count("\n") == 1
    assert main([*argv, "--max-cost", "0"]) == 2
    assert "--max-cost must be above 0" in capsys.readouterr().err
    # Not a number, or no limit at all: one line each, as 0 is.
    for cap in ("nan", "inf", "-1"):
        assert main([*argv, "--price-in", "1", "--price-out", "1", "--max-cost", cap]) == 2
        err = capsys.readouterr().err
        assert "--max-cost must be above 0" in err and err.count("\n") == 1
    for flag, price in (("--price-in", "-3"), ("--price-out", "nan"), ("--price-in", "inf")):
        assert main([*argv, flag, price, "--max-cost", "1"]) == 2
        err = capsys.readouterr().err
        assert f"{flag} must be a number of US dollars per million tokens, 0 or more" in err
        assert err.count("\n") == 1
    # A model that costs nothing can be capped: the cap is never reached.
    free = tmp_path / "free"
    assert main(["bench", "--dataset", "mbpp", "--ids", "11", "--model", f"script/{CANONICAL}", "--workflow",
                 "zeroshot", "--out", str(free), "--max-cost", "0.01"]) == 0  # fmt: skip


def test_with_nothing_to_go_by_the_first_problem_runs_alone_and_finishes_past_the_cap(tmp_path):
    """Two at once, a cap below one problem: the first starts (its prompt is all
    there is to go by), the second waits for what it cost, and does not start."""
    config = RunConfig(model=f"script/{CANONICAL}", workflow="zeroshot")
    spec = BenchSpec("humaneval", config, ids=["0", "1", "2", "3"], concurrency=2, price_in=3.0, price_out=15.0)
    runner = BenchRunner(spec, tmp_path / "b", max_cost=0.0001)
    asyncio.run(runner.run())
    done = [r for r in read_results(tmp_path / "b") if r["status"] == "done"]
    assert runner.capped and "cost cap" in str(runner.stopped)
    assert len(done) == 1  # kept, though it cost more than the cap
    assert runner.spent() == _line_cost(done[0]) >= 0.0001
    assert f"${runner.spent():.4f} spent" in str(runner.stopped)


# -- against a server on 127.0.0.1 ------------------------------------------------------------


@pytest.fixture
def stub():
    server = StubServer().start()
    yield server
    server.stop()


SLOW_OK = "busy-over-99"


def _stub_bench(stub, out: Path, model: str, *extra: str, limit: int = 10, concurrency: int = 4) -> list[str]:
    return [
        "bench", "--dataset", "humaneval", "--limit", str(limit), "--concurrency", str(concurrency),
        "--model", f"openai/{model}", "--base-url", stub.url + "/v1", "--workflow", "zeroshot",
        "--out", str(out), *extra,
    ]  # fmt: skip


def _report_cost(stdout: str) -> str:
    (line,) = [line for line in stdout.splitlines() if line.startswith("Tokens:")]
    found = re.search(r"cost \$(\d+\.\d{4})", line)
    assert found, line
    return found.group(1)


def _stop_spend(stderr: str) -> str:
    (why,) = [line for line in stderr.splitlines() if line.startswith("qflow: the bench stopped")]
    found = re.search(r"\$(\d+\.\d{4}) spent of --max-cost", why)
    assert found, why
    return found.group(1)


def test_budget_honest_four_at_once_the_stop_line_is_the_report_and_within_one_problem(stub, tmp_path, capsys):
    """4 problems at once, $0.05 a problem ($2000 and $4000 a million for the
    stub's 11 and 7 tokens), a $0.25 cap: five problems fit exactly, a sixth
    would not; the last line's spend is the report's cost."""
    out = tmp_path / "b"
    prices = ("--price-in", "2000", "--price-out", "4000", "--max-cost", "0.25")
    assert (INPUT_TOKENS * 2000 + OUTPUT_TOKENS * 4000) / 1e6 == 0.05
    # busy-over-99: ``ok`` streamed slowly, so problems are in flight when the next asks to start.
    assert main(_stub_bench(stub, out, SLOW_OK, *prices)) == 3
    captured = capsys.readouterr()
    assert _stop_spend(captured.err) == _report_cost(captured.out) == "0.2500"
    records = read_results(out)
    assert len(records) == 5 and all(r["status"] == "done" for r in records)
    assert stub.count(SLOW_OK) == 5  # no call past the cap was made
    assert "qflow: the bench stopped" in captured.err.strip().splitlines()[-1]
    assert "expected to cost $0.0500 (the mean of" in captured.err
    # The same folder, a cap one problem higher: exactly one more.
    assert main(_stub_bench(stub, out, SLOW_OK, *prices[:-1], "0.30")) == 3
    captured = capsys.readouterr()
    assert _stop_spend(captured.err) == _report_cost(captured.out) == "0.3000"
    assert len(read_results(out)) == 6


def test_a_server_that_reports_no_usage_is_counted_by_estimate_and_the_cap_binds(stub, tmp_path, capsys):
    """No usage from the server: before, 5 problems at about $0.40 each ran under a
    $0.50 cap and the report said "Tokens: 0; cost $0.0000". Now the tokens are
    estimated (said once on stderr, in the report, the results and the stop
    line) and the cap binds within one problem, 4 at once."""
    out = tmp_path / "b"
    prices = ("--price-in", "1700", "--price-out", "1700", "--max-cost", "0.50")
    assert main(_stub_bench(stub, out, "no-usage", *prices, limit=5)) == 3
    captured = capsys.readouterr()
    warnings = [line for line in captured.err.splitlines() if "reported no usable token counts" in line]
    assert len(warnings) == 1 and "estimated" in warnings[0] and "--max-cost count an estimate" in warnings[0]
    records = read_results(out)
    costs = [_line_cost_at(r, 1700, 1700) for r in records]
    assert all(0.3 < c < 0.5 for c in costs)  # about $0.40 a problem
    assert sum(costs) <= 0.50 + max(costs)  # within one problem of the cap
    assert len(records) < 5
    for rec in records:
        assert rec["tokens_unreported"] == 1 and rec["tokens"]["program_generator"]["estimated"] == 1
        assert rec["tokens_total"] > 0
    (tokens_line,) = [line for line in captured.out.splitlines() if line.startswith("Tokens:")]
    assert "estimated for" in tokens_line and "cost $0.0000" not in tokens_line
    assert _stop_spend(captured.err) == _report_cost(captured.out)
    assert "an estimate (the model reported no token counts" in captured.err


def test_an_impossible_usage_is_no_traceback_and_every_paid_call_is_recorded(stub, tmp_path, capsys):
    """10**400 prompt tokens: an OverflowError traceback lost the paid call's
    results line. Now the count is refused as impossible and estimated."""
    out = tmp_path / "b"
    argv = _stub_bench(stub, out, "absurd-usage", "--price-in", "3", "--price-out", "15", "--max-cost", "5", limit=3)
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "OverflowError" not in captured.err
    records = read_results(out)
    assert len(records) == 3 == stub.count("absurd-usage")
    for rec in records:
        tally = rec["tokens"]["program_generator"]
        assert tally["output"] == OUTPUT_TOKENS and 0 < tally["input"] < 10_000 and tally["estimated"] == 1
    assert "reported no usable token counts" in captured.err


def test_the_stop_line_says_apart_what_unfinished_attempts_spent(tmp_path):
    """The report's cost counts finished runs; the spend, every attempt: a
    failed attempt's tokens are said apart, so the two figures reconcile."""
    from qflow_tui.core.bench.bench_runner import RESULTS
    from qflow_tui.core.bench.results_writer import _append_line

    config = RunConfig(model=f"script/{CANONICAL}", workflow="zeroshot")
    spec = BenchSpec("humaneval", config, ids=["0", "1"], concurrency=1, price_in=1.0, price_out=1.0)
    BenchRunner(spec, tmp_path).prepare()
    million = {"program_generator": {"input": 1_000_000, "output": 0, "calls": 1}}
    _append_line(tmp_path / RESULTS, {"id": "humaneval/0", "sample": 0, "status": "done", "tokens": million})
    _append_line(tmp_path / RESULTS, {"id": "humaneval/1", "sample": 0, "status": "provider_error", "tokens": million})
    runner = BenchRunner(spec, tmp_path, max_cost=1.5)
    asyncio.run(runner.run())  # humaneval/1 is not retried: $2 spent of $1.50
    assert runner.capped and len(read_results(tmp_path)) == 2
    words = str(runner.stopped)
    assert "$2.0000 spent of --max-cost $1.5000" in words
    assert "the report's cost of finished runs is $1.0000" in words and "an estimate" not in words


def test_running_problems_are_expected_at_the_mean_once_one_has_finished(tmp_path):
    """With $0.05 spent, a $0.05 mean and a $0.25 cap, three problems running
    (no answer yet) leave room for one more, four do not."""
    from qflow_tui.core.bench.bench_runner import _Trace

    config = RunConfig(model=f"script/{CANONICAL}", workflow="zeroshot")
    spec = BenchSpec("humaneval", config, ids=["0", "1", "2", "3"], concurrency=4, price_in=30.0, price_out=100.0)
    runner = BenchRunner(spec, tmp_path, max_cost=0.25)
    runner.prepare()
    assert runner.expected_cost() == (0.0, "nothing has finished yet")
    runner._finished_costs, runner._spent_here = [0.05], 0.05  # one finished at $0.05
    for key in ("a", "b", "c"):
        runner._live[key] = _Trace()  # running, no answer yet
    assert runner.expected_cost() == (0.05, "the mean of 1 finished problem")
    assert runner._fits()  # 0.05 + 3 x 0.05 + 0.05 = 0.25
    runner._live["d"] = _Trace()
    assert not runner._fits()  # 0.05 + 4 x 0.05 + 0.05 = 0.30
    assert "expected to cost $0.0500 (the mean of 1 finished problem) and the running ones $0.2000" in runner._refused


def test_a_workflow_of_many_calls_does_not_overshoot_by_what_starts_together(tmp_path):
    """QualityFlow makes many calls a problem: a problem's prompt says little of
    its cost, so until one has finished only one runs. 4 at once under a cap of
    1.5 problems: one problem runs, not four."""
    scripts = ROOT / "tests" / "bench" / "scripts"
    config = RunConfig(model=f"script/{scripts / 'late_fix.py'}", workflow="qualityflow").replace(
        checker="python", prompts=1, epochs=1, clarify=0, test_rounds=1
    )
    ids = ["0", "1", "2", "3", "4", "5"]
    spec = BenchSpec("humaneval", config, ids=ids, concurrency=4, price_in=3.0, price_out=15.0)
    one = BenchRunner(spec, tmp_path / "one", max_cost=100.0)
    one.only = {"humaneval/0"}
    asyncio.run(one.run())
    per_problem = one.spent()
    calls = read_results(tmp_path / "one")[0]["llm_calls"]
    assert calls > 3 and per_problem > 0  # many calls, each at least its prompt
    runner = BenchRunner(spec, tmp_path / "cap", max_cost=1.5 * per_problem)
    asyncio.run(runner.run())
    records = read_results(tmp_path / "cap")
    assert runner.capped and len(records) == 1
    assert runner.spent() <= 1.5 * per_problem + per_problem  # within one problem of the cap


def _line_cost_at(rec: dict, price_in: float, price_out: float) -> float:
    return sum((t["input"] * price_in + t["output"] * price_out) / 1e6 for t in rec["tokens"].values())


def test_estimate_runs_the_first_problems_and_prices_the_whole_bench(tmp_path, capsys):
    out = tmp_path / "bench"
    assert main(_argv(out, "--estimate", "2", limit=10)) == 0
    text = capsys.readouterr().out
    records = read_results(out)
    assert sorted(r["id"] for r in records) == ["humaneval/0", "humaneval/1"]
    per_run = sum(_line_cost(r) for r in records) / 2
    assert "Estimate from 2 finished runs (the first 2 runs now, kept in the folder)" in text
    assert "The whole bench, 10 runs: about" in text and f"${per_run * 10:.2f}" in text
    assert "The 8 runs left: about" in text and "at --concurrency 1" in text
    # Again: the folder's finished runs, nothing run.
    assert main(_argv(out, "--estimate", limit=10)) == 0
    assert "(this bench folder's finished runs)" in capsys.readouterr().out
    assert len(read_results(out)) == 2
    # Another bench's tallies, at this bench's price (a model with no price: said).
    other = tmp_path / "other"
    argv = ["bench", "--dataset", "mbpp", "--model", "openai/unpriced", "--out", str(other)]
    assert main([*argv, "--estimate-from", str(out)]) == 0
    text = capsys.readouterr().out
    assert "The whole bench, 500 runs" in text and "cost unknown" in text and not other.exists()
    # A full run afterwards skips the estimate's runs.
    assert main(_argv(out, limit=10)) == 0
    capsys.readouterr()
    assert len(read_results(out)) == 10


def test_the_estimate_arithmetic():
    price = Price(2.0, 10.0, "2026-11-27")
    runs = [
        {"id": "a/1", "tokens": {"x": {"input": 1000, "output": 100}}, "duration": 12.0, "eval_duration": 2.0},
        {"id": "a/2", "tokens": {"x": {"input": 3000, "output": 300}}, "duration": 22.0, "eval_duration": 2.0},
    ]
    est = estimate_from(runs, runs=100, left=98, concurrency=4, price=price, priced=True, source="test")
    # $0.003 and $0.009 a run: $0.006 on average; 15 s of workflow a run, 98 of them 4 at a time, then 2 s judging.
    assert est.cost == 0.006 and (est.cost_low, est.cost_high) == (0.003, 0.009)
    assert est.wall_seconds == 98 * 15 / 4 + 2
    data = est.to_dict()
    assert data["whole_bench"]["cost"] == 0.6 and data["whole_bench"]["cost_range"] == [0.3, 0.9]
    assert data["runs_left"]["cost"] == 0.588
    json.dumps(data)
    free = estimate_from(runs, runs=10, left=0, concurrency=1, price=None, priced=True, source="t")
    assert free.cost == 0 and "costs nothing" in free.text() and "Every run has finished." in free.text()


def test_a_hand_edited_line_does_not_break_the_spend():
    from qflow_tui.core.bench.bench_runner import _line_cost

    price = Price(1.0, 1.0, "")
    assert _line_cost({"tokens": {"a": {"input": "lots"}, "b": {"input": 1_000_000}}}, price) == 1.0
    assert _line_cost({"tokens": "none"}, price) == 0.0
    assert _line_cost({"tokens": {"a": {"input": 5}}}, None) == 0.0
    # A count more than a float holds: not counted, no OverflowError (the spend and the estimate).
    huge = {"id": "a/1", "tokens": {"a": {"input": 10**400, "output": 2_000_000}}, "duration": 1.0}
    assert _line_cost(huge, price) == 2.0
    est = estimate_from([huge], runs=2, left=1, concurrency=1, price=price, priced=True, source="t")
    assert est.cost == 2.0 and est.tokens_in == 0
