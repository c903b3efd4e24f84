"""What the stdin/stdout judge holds of a program's output: a verdict needs
only a bounded part, so a program printing megabytes a test does not make
the app hold every test's output until the last; and stderr is bounded by
one rule wherever a program is judged."""

from __future__ import annotations

import tracemalloc

from sbhelpers import make

from qflow_tui.core.iojudge import ACTUAL_CHARS, IO_OUTPUT_KB, STDERR_CHARS, io_config, judge_io_sync
from qflow_tui.core.sandbox import Sandbox, SandboxConfig

MB = 1 << 20


def test_the_judge_does_not_hold_every_tests_output() -> None:
    # 2 MB printed a test, 12 tests one after another: holding them all
    # would peak past 24 MB; judging each as it ends holds about one.
    sb = Sandbox(io_config(make("auto", timeout=10.0).config))
    program = "import sys\nn = int(input())\nsys.stdout.write('x' * n)\n"
    size = 2 * MB
    tests = [(f"{size}\n", "y")] * 12
    judge_io_sync(sb, program, tests[:1], parallel=1)  # warm: the pool and the harness
    tracemalloc.start()
    try:
        report = judge_io_sync(sb, program, tests, parallel=1)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [o.status for o in report.results] == ["fail"] * 12, report.to_dict()
    assert all(len(o.actual or "") <= ACTUAL_CHARS + 10 for o in report.results)
    assert peak < 8 * size, f"peak {peak / MB:.1f} MB while judging 12 tests of {size / MB:.0f} MB"


def test_stderr_has_one_rule_where_a_program_is_judged() -> None:
    # A right program writing 350 KB of debugging to stderr: the workflow's
    # test executor judges in io_config(the run's sandbox config), whose own
    # output cap is 256 KB by default; the bench judges in io_config too.
    base = make("auto", timeout=5.0).config
    assert base.max_output_kb < 350
    for config in (io_config(base), io_config(SandboxConfig(timeout=5.0, max_output_kb=16 * 1024))):
        assert config.max_output_kb == IO_OUTPUT_KB
    program = "import sys\nsys.stderr.write('d' * 350 * 1024)\nprint(sum(map(int, input().split())))\n"
    report = judge_io_sync(Sandbox(io_config(base)), program, [("1 2\n", "3\n"), ("2 2\n", "4\n")])
    assert report.passed == 2, report.to_dict()
    assert 0 < len(report.stderr) <= STDERR_CHARS
