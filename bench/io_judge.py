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

With ``--apps-harness`` (APPS's ``eval/testing_util.py`` from a fetched copy
of hendrycks/apps) and ``--mapcoder`` (a fetched Md-Ashraful-Pramanik/MapCoder,
its git directory), it also judges real programs on APPS's stdin problems
(``apps_reference.py``) with APPS's harness as its eval runs it and with
qflow's APPS mode at the same isolation level, prints both wall-clock times
and their ratio (over every program, and over the programs that finish every
test within the limits on both sides, where the judges' own cost shows), and
qflow's CodeContests mode beside them. ``--hogs N`` runs it with N CPU hogs
per core (started and ended here, by PID).

    python bench/io_judge.py --apps-harness /tmp/apps/testing_util.py \
        --mapcoder /work/.mirror/Md-Ashraful-Pramanik+MapCoder/repo [--count 104] [--hogs 4]

``--numpy-zygote`` adds APPS mode as it ran before numpy was loaded only for
the programs that name it; ``--before``, as it ran before APPS's modules were
preloaded at all.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from apps_reference import APPS_TEST_TIMEOUT, Hogs, apps_harness, apps_passed, mapcoder_programs

from qflow_tui.core.iojudge import APPS_PRELUDE, io_config, io_parallel, judge_io_sync
from qflow_tui.core.sandbox import Sandbox, SandboxConfig
from qflow_tui.core.sandbox.stdio import call_source, program_source

PROGRAM = "print(sum(map(int, input().split())))\n"


def _verdicts(report) -> list[tuple[str, str]]:
    return [(r.test, r.status) for r in report.results]


def real_programs(args: argparse.Namespace) -> None:
    """APPS's harness against qflow's APPS mode (and CodeContests mode) on real programs."""
    programs = mapcoder_programs(args.mapcoder)[: args.count]
    sb = Sandbox(io_config(SandboxConfig(timeout=APPS_TEST_TIMEOUT, isolation=args.level)))
    for apps in (True, False):  # warm up: the pool, the harness and each kind's zygote
        judge_io_sync(sb, "print(1)\n", [("", "1")] * 4, "apps" if apps else "tokens", apps=apps)
    ref_each: list[float] = []
    reference, t_ref = apps_harness(args.apps_harness, programs, ref_each)
    qflow, q_each = [], []
    t0 = time.monotonic()
    for p in programs:
        t1 = time.monotonic()
        qflow.append(judge_io_sync(sb, p.program, p.tests, "apps", apps=True))
        q_each.append(time.monotonic() - t1)
    t_q = time.monotonic() - t0
    t0 = time.monotonic()
    for p in programs:
        judge_io_sync(sb, p.program, p.tests, "tokens")
    t_cc = time.monotonic() - t0
    t_numpy = None
    if args.numpy_zygote:
        # As the judge ran APPS mode last: every program's tests forked from
        # a zygote holding numpy, whether the program names it or not.
        with _numpy_for_all():
            judge_io_sync(sb, "print(1)\n", [("", "1")] * 4, "apps", apps=True)  # warm up its zygote
            t0 = time.monotonic()
            for p in programs:
                judge_io_sync(sb, p.program, p.tests, "apps", apps=True)
        t_numpy = time.monotonic() - t0
    t_before = None
    if args.before:
        # As the judge ran APPS's problems before: the prelude put in front
        # of the program, imported in every test's process, nothing preloaded.
        t0 = time.monotonic()
        for p in programs:
            judge_io_sync(sb, APPS_PRELUDE + p.program, p.tests, "apps")
        t_before = time.monotonic() - t0
    finish = [
        i
        for i, (p, r, q) in enumerate(zip(programs, reference, qflow, strict=True))
        if len(r) == len(p.inputs)
        and all(x is True or x is False for x in r)
        and all(o.status in ("pass", "fail") for o in q.results)
    ]
    same = sum(
        apps_passed(r, len(p.inputs)) == [o.status == "pass" for o in q.results]
        for p, r, q in zip(programs, reference, qflow, strict=True)
    )
    tests = sum(len(p.inputs) for p in programs)
    f_ref, f_q = sum(ref_each[i] for i in finish), sum(q_each[i] for i in finish)
    print(
        f"\nreal programs: {len(programs)} on APPS's stdin problems ({tests} tests), isolation {sb.isolation}, "
        f"load {os.getloadavg()[0]:.1f}"
    )
    print(f"APPS's harness (fork per program, tests in it):  {t_ref:.2f} s")
    print(f"qflow APPS mode (fresh process per test):       {t_q:.2f} s   ratio {t_q / t_ref:.2f}")
    print(f"qflow CodeContests mode, same programs:         {t_cc:.2f} s   ratio {t_cc / t_ref:.2f}")
    if t_numpy is not None:
        print(f"qflow APPS mode, numpy in every test's zygote:   {t_numpy:.2f} s   ratio {t_numpy / t_ref:.2f}")
    if t_before is not None:
        print(f"qflow APPS mode as before (prelude per test):    {t_before:.2f} s   ratio {t_before / t_ref:.2f}")
    print(
        f"the {len(finish)} programs that finish every test in time on both sides: "
        f"APPS {f_ref:.2f} s, qflow APPS mode {f_q:.2f} s, ratio {f_q / max(f_ref, 1e-9):.2f}"
    )
    print(f"programs with the same verdict on every test: {same} of {len(programs)}")


@contextmanager
def _numpy_for_all() -> Iterator[None]:
    """APPS mode with numpy preloaded for every program (as before it was
    loaded only for those that name it)."""
    from qflow_tui.core import iojudge

    chosen = iojudge.apps_prelude
    iojudge.apps_prelude = lambda program: (iojudge.APPS_PRELUDE, iojudge.APPS_MODULES)
    try:
        yield
    finally:
        iojudge.apps_prelude = chosen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tests", type=int, default=40)
    ap.add_argument("--level", default="auto")
    ap.add_argument(
        "--rounds", type=int, default=3, help="each way is timed this many times, in turn; the best is kept"
    )
    ap.add_argument("--apps-harness", type=Path, help="APPS's eval/testing_util.py, from a fetched copy")
    ap.add_argument("--mapcoder", type=Path, help="a fetched MapCoder repository's git directory")
    ap.add_argument("--count", type=int, default=104, help="real programs to judge (104: all of the default files)")
    ap.add_argument("--hogs", type=int, default=0, help="CPU hogs per core while it runs")
    ap.add_argument("--real-only", action="store_true", help="skip the synthetic program")
    ap.add_argument("--before", action="store_true", help="also judge APPS's problems as the judge did before")
    ap.add_argument(
        "--numpy-zygote", action="store_true", help="also judge them in APPS mode with numpy loaded for every program"
    )
    args = ap.parse_args()
    with Hogs(args.hogs * (os.cpu_count() or 1)):
        if not args.real_only:
            synthetic(args)
        if args.apps_harness is not None:
            if args.mapcoder is None:
                ap.error("--apps-harness needs --mapcoder (the real programs)")
            real_programs(args)


def synthetic(args: argparse.Namespace) -> None:
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
