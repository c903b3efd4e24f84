"""How many distinct tests QualityFlow's Test Designer yields per problem
(Appendix A: 5 rounds of 10, at most 50; Table 6 implies about 49 per covered
MBPP problem). Prints, per problem, the distinct tests after each round, for
both readings of Appendix A side by side: the rounds in sequence, each told the
tests designed so far (qflow's default), and ``independent_test_rounds`` (five
copies of the first query, sent at once).

Two models: ``prompt-only`` (the default), a script model whose answer depends
only on its prompt, as a low-temperature model's mostly does: it writes the 10
tests it "likes best" for the statement, leaving out any input the prompt
already shows; and any real model (``local/smollm2``). Only the steps up to the
test design run that matter: one progression, no checker, one self-debug epoch,
no Test Quality Checker, no clarifier.

Usage: ``.venv/bin/python bench/distinct_tests.py [--model local/smollm2]
[--problem mbpp/11 ...] [--max-tokens N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import re
import tempfile
import time
from pathlib import Path

from qflow_tui.commands.solve import load_problem
from qflow_tui.core.config import RunConfig
from qflow_tui.core.events import Event, Notice, TestsDesigned
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.workflow_run import RunError, run_workflow
from qflow_tui.core.workflows.qualityflow import TEST_ROUNDS, TESTS_PER_ROUND


def prompt_only(request: dict) -> str:
    """A deterministic model: the same prompt always gets the same answer."""
    text = request["messages"][-1]["content"]
    entry = re.search(r"The function is `(\w+)`", text) if request["agent"] == "test_designer" else None
    if entry is None:
        return "```python\ndef placeholder():\n    return None\n```"
    name = entry.group(1)
    count = int(re.search(r"Design (\d+)", text).group(1))
    # Its preferred inputs depend on the statement alone; those the prompt shows are left out.
    statement = text.split("The function is", 1)[0]
    key = hashlib.sha256(statement.encode()).digest()
    order = sorted(range(200), key=lambda i: hashlib.sha256(key + i.to_bytes(2, "big")).digest())
    shown = set(re.findall(rf"{name}\((\d+)\)", text))
    picked = [i for i in order if str(i) not in shown][:count]
    return "```python\n" + "\n".join(f"assert {name}({i}) == {i * 2}" for i in picked) + "\n```"


class Rounds:
    def __init__(self) -> None:
        self.totals: list[int] = []
        self.failed = 0

    def __call__(self, event: Event) -> None:
        if isinstance(event, TestsDesigned):
            self.totals.append(event.total)
        elif isinstance(event, Notice) and event.message.startswith("test design round"):
            self.failed += 1


async def measure(problem_id: str, model: str, max_tokens: int, call_timeout: float, independent: bool) -> None:
    problem = load_problem(problem_id, None, None)
    config = RunConfig(
        model=model if model != "prompt-only" else "script/prompt-only",
        max_tokens=max_tokens,
        call_timeout=call_timeout,
    ).replace(prompts=1, checker="none", epochs=1, clarify=0, tqc=False, independent_test_rounds=independent)
    client = ScriptClient.from_function(prompt_only) if model == "prompt-only" else None
    rounds = Rounds()
    with tempfile.TemporaryDirectory() as folder:
        t0 = time.monotonic()
        try:
            await run_workflow(problem, config, client=client, sinks=[rounds], session_dir=Path(folder))
        except RunError as exc:
            print(f"{problem_id}: failed: {exc}")
            return
    asked = TEST_ROUNDS.of(config) * TESTS_PER_ROUND.of(config)
    reading = "independent" if independent else "sequential "
    after = ", ".join(str(t) for t in rounds.totals)
    final = rounds.totals[-1] if rounds.totals else 0
    print(
        f"{problem_id} {model} {reading}: {final} distinct of {asked} asked (after each round: {after}) "
        f"{rounds.failed} rounds failed, in {time.monotonic() - t0:.0f} s",
        flush=True,
    )


async def main(args: argparse.Namespace) -> None:
    for problem_id in args.problem or ["mbpp/11"]:
        for independent in (False, True):
            await measure(problem_id, args.model, args.max_tokens, args.call_timeout, independent)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="prompt-only")
    parser.add_argument("--problem", action="append")
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--call-timeout", type=float, default=600.0)
    asyncio.run(main(parser.parse_args()))
