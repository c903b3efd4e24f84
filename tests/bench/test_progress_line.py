"""The headless bench's progress line tells problems whose workflow runs from
those whose programs are being judged (the workflow's places do not bound the
judging: with an instant model most of a bench waits to be judged)."""

from __future__ import annotations

from qflow_tui.commands.bench import _Tally
from qflow_tui.core.bench.bench_runner import ProblemUpdate


def test_the_line_counts_running_and_judging_apart():
    tally = _Tally()
    for key in ("a", "b", "c"):
        tally.update(ProblemUpdate(key, "queued"))
    tally.update(ProblemUpdate("a", "running", tokens=10))
    tally.update(ProblemUpdate("b", "running", tokens=20))
    tally.update(ProblemUpdate("b", "evaluating", tokens=30))
    line = tally.line()
    assert "0/3 done" in line and "1 running  1 judging  40 tokens" in line
    tally.update(ProblemUpdate("b", "done", record={"id": "b", "passed": True, "tokens_total": 30}))
    tally.update(ProblemUpdate("a", "error", record={"id": "a", "tokens_total": 10}))
    line = tally.line()
    assert "1/3 done  pass 100.0%  0 running  40 tokens" in line and "judging" not in line
    assert line.endswith("1 not finished")
