"""What judging a stdin/stdout program costs, per test.

Runs one honest program (reads two numbers, prints their sum) on N tests in
one process and in the same run, as the I/O judge does it (a fresh program
process per test, so a program cannot carry anything from one test to the
next): one test after another, and as many at once as the sandbox's slots
let runs hold (the judge's default, ``iojudge.io_parallel``); and as it would
with one shared process (what the judge does NOT do: a hostile program could
then replace the runner it shares a process with). Prints the wall-clock
seconds of each, per test, and the ratios, and checks that both ways give the
same verdicts in the same order.

    python bench/io_judge.py [--tests 40] [--level auto] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import time

from qflow_tui.core.iojudge import io_parallel, judge_io_sync
from qflow_tui.core.sandbox import Sandbox, SandboxConfig
from qflow_tui.core.sandbox.stdio import call_source, program_source

PROGRAM = "print(sum(map(int, input().split())))\n"


def _verdicts(report) -> list[tuple[str, str]]:
    return [(r.test, r.status) for r in report.results]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tests", type=int, default=40)
    ap.add_argument("--level", default="auto")
    ap.add_argument(
        "--rounds", type=int, default=3, help="each way is timed this many times, in turn; the best is kept"
    )
    args = ap.parse_args()
    sb = Sandbox(SandboxConfig(timeout=3.0, isolation=args.level))
    tests = [(f"{i} {i + 1}\n", f"{2 * i + 1}\n") for i in range(args.tests)]
    # Every fifth expected output is wrong: the verdicts must come back the same, in order.
    tests = [(i, o if n % 5 else "0\n") for n, (i, o) in enumerate(tests)]
    judge_io_sync(sb, PROGRAM, tests[:2])  # warm up: the pool and the harness
    width = io_parallel(sb)
    one, many, shared = [], [], []
    for _ in range(args.rounds):
        t0 = time.monotonic()
        serial = judge_io_sync(sb, PROGRAM, tests, parallel=1)
        one.append(time.monotonic() - t0)
        t0 = time.monotonic()
        par = judge_io_sync(sb, PROGRAM, tests)
        many.append(time.monotonic() - t0)
        assert _verdicts(serial) == _verdicts(par), "parallel judging changed a verdict"
        assert serial.passed == par.passed == len(tests) - len(tests[::5]), serial.to_dict()
        t0 = time.monotonic()
        shared_results = sb.call_values_sync(program_source(PROGRAM), [call_source(i) for i, _ in tests])
        shared.append(time.monotonic() - t0)
        assert all(r.status == "ok" for r in shared_results)
    n = len(tests)
    a, b, c = min(one), min(many), min(shared)
    print(
        f"isolation {sb.isolation}, {n} tests, {os.cpu_count()} cores, "
        f"load {os.getloadavg()[0]:.1f}, best of {args.rounds}"
    )
    print(f"fresh process per test, one at a time:   {a:.2f} s, {1000 * a / n:.1f} ms a test")
    print(f"fresh process per test, {width} at a time:     {b:.2f} s, {1000 * b / n:.1f} ms a test")
    print(f"one shared process (not used):           {c:.2f} s, {1000 * c / n:.1f} ms a test")
    print(f"ratio one-at-a-time/parallel: {a / b:.2f}; parallel/shared: {b / c:.1f}")
    print("verdicts: identical, in the same order, both ways")


if __name__ == "__main__":
    main()
