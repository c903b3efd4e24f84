"""Cost before and during a bench: ``--max-cost`` stops starting problems once
the spend (priced as the report prices it) reaches the cap, keeps what
finished, says why in one line and exits 3; the same command with a higher
cap goes on. ``--estimate`` prices the whole bench from a few runs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from qflow_tui.cli import main
from qflow_tui.core.bench.bench_runner import BenchRunner, BenchSpec, latest_results, read_results
from qflow_tui.core.bench.estimate import estimate_from
from qflow_tui.core.config import RunConfig
from qflow_tui.core.llm.prices import Price

ROOT = Path(__file__).parents[2]
CANONICAL = ROOT / "bench" / "canonical_model.py"


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
    assert sum(costs[:-1]) < 0.004 <= sum(costs)
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
    # A model that costs nothing can be capped: the cap is never reached.
    free = tmp_path / "free"
    assert main(["bench", "--dataset", "mbpp", "--ids", "11", "--model", f"script/{CANONICAL}", "--workflow",
                 "zeroshot", "--out", str(free), "--max-cost", "0.01"]) == 0  # fmt: skip


def test_a_running_problem_finishes_past_the_cap(tmp_path):
    """Two at once: both start under the cap; both finish and are kept, whatever they cost."""
    config = RunConfig(model=f"script/{CANONICAL}", workflow="zeroshot")
    spec = BenchSpec("humaneval", config, ids=["0", "1", "2", "3"], concurrency=2, price_in=3.0, price_out=15.0)
    runner = BenchRunner(spec, tmp_path / "b", max_cost=0.0001)
    asyncio.run(runner.run())
    done = [r for r in read_results(tmp_path / "b") if r["status"] == "done"]
    assert runner.capped and "cost cap" in str(runner.stopped)
    assert len(done) == 2  # the two that started together, both over the cap by the end
    assert runner.spent() >= 0.0001


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
