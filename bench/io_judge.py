"""What judging a stdin/stdout program costs, per test.

Runs one honest program (reads two numbers, prints their sum) on N tests in
one process and in the same run, as the I/O judge does it (a fresh program
process per test, so a program cannot carry anything from one test to the
next), and as it would with one shared process (what the judge does NOT do:
a hostile program could then replace the runner it shares a process with).
Prints the wall-clock seconds of each, per test, and the ratio.

    python bench/io_judge.py [--tests 40] [--level auto]
"""

from __future__ import annotations

import argparse
import time

from qflow_tui.core.iojudge import judge_io_sync
from qflow_tui.core.sandbox import Sandbox, SandboxConfig
from qflow_tui.core.sandbox.stdio import call_source, program_source

PROGRAM = "print(sum(map(int, input().split())))\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tests", type=int, default=40)
    ap.add_argument("--level", default="auto")
    args = ap.parse_args()
    sb = Sandbox(SandboxConfig(timeout=3.0, isolation=args.level))
    tests = [(f"{i} {i + 1}\n", f"{2 * i + 1}\n") for i in range(args.tests)]
    judge_io_sync(sb, PROGRAM, tests[:2])  # warm up: the pool and the harness
    t0 = time.monotonic()
    report = judge_io_sync(sb, PROGRAM, tests)
    fresh = time.monotonic() - t0
    assert report.passed == len(tests), report.to_dict()
    t0 = time.monotonic()
    shared_results = sb.call_values_sync(program_source(PROGRAM), [call_source(i) for i, _ in tests])
    shared = time.monotonic() - t0
    assert all(r.status == "ok" for r in shared_results)
    n = len(tests)
    print(f"isolation {sb.isolation}, {n} tests")
    print(f"fresh process per test (the judge): {fresh:.2f} s, {1000 * fresh / n:.1f} ms a test")
    print(f"one shared process (not used):      {shared:.2f} s, {1000 * shared / n:.1f} ms a test")
    print(f"ratio fresh/shared: {fresh / shared:.1f}")


if __name__ == "__main__":
    main()
