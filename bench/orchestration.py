"""Orchestration: QualityFlow's wall time against the critical path of its winner rule.

The rule (Algorithm 1 with Diversified Prompting): the accepted program of the
earliest stage wins, lowest progression index first. A run can finish no sooner
than the rule allows: the winner must have been accepted, every lower-index
progression must have finished that stage without acceptance, and every
higher-index one the stage before (or, when nothing is accepted, every
progression must have run every step). This script computes that time from the
calls' latencies with a small independent model of the algorithm's
dependencies (calls of one step that may run at once do: the imagined-execution
checks of the visible tests, the test designer's rounds, the TQC checks), runs
the real workflow with a script model whose calls take exactly those latencies,
and prints wall / critical path. Beside it, the same run with one model call at
a time (the sum of the work).

Sandbox runs take a fixed SANDBOX seconds each (the bench's own programs are
judged in-process; the real sandbox's speed is bench/sandbox.py's business), so
that the critical path knows their length. The model-call cap is lifted (a cap
is the provider's business, not the rule's).

Scenarios (6 progressions, 3 visible tests, the paper's defaults otherwise):
  revert     no program is ever accepted: every progression runs every step
  late-win   progression 4 is accepted at self_debug:2; progression 1 at
             clarifier:1 (later, so it loses); the rest never
  early-win  progression 3 is accepted at program_generator, while the lower
             progressions are slow

Latencies: ``fixed`` (every call LATENCY seconds) and ``mixed`` (0.3x to 3x,
fixed per call place, progression 0 slowest).

Usage: python bench/orchestration.py [--latency 0.1] [--sandbox 0.15] [--no-sequential]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from qflow_tui.core.asserts import replace_call  # noqa: E402
from qflow_tui.core.config import RunConfig  # noqa: E402
from qflow_tui.core.llm.script import ScriptClient  # noqa: E402
from qflow_tui.core.problem import make_problem  # noqa: E402
from qflow_tui.core.sandbox.config import SandboxConfig  # noqa: E402
from qflow_tui.core.sandbox.report import SandboxReport, TestOutcome  # noqa: E402
from qflow_tui.core.workflow_run import run_workflow  # noqa: E402

PROMPTS, EPOCHS, CLARIFY, ROUNDS = 6, 3, 3, 5
VISIBLE = ["assert add_one(1) == 2", "assert add_one(5) == 6", "assert add_one(-3) == -2"]
PROBLEM = make_problem("Write a function add_one that returns x plus one.", "\n".join(VISIBLE))

#: Scenario -> {progression: the stage whose program is right}.
SCENARIOS: dict[str, dict[int, str]] = {
    "revert": {},
    "late-win": {4: "self_debug:2", 1: "clarifier:1"},
    "early-win": {3: "program_generator", 5: "program_generator"},
}


def stages() -> list[str]:
    return (["program_generator"] + [f"self_debug:{e}" for e in range(1, EPOCHS + 1)]) + [
        f"clarifier:{a}" for a in range(1, CLARIFY + 1)
    ]


def program(p: int, stage: str, right: dict[int, str]) -> str:
    # Every program text is unique, so no imagined-execution verdict is reused.
    body = "x + 1" if right.get(p) == stage else "x + 2"
    return f"def add_one(x):\n    # progression {p}, {stage}\n    return {body}\n"


def synthesized(round_no: int) -> list[str]:
    tests = [f"assert add_one({10 * round_no + k}) == {10 * round_no + k + 1}" for k in (1, 2)]
    if round_no == 1:
        tests.append("assert add_one(3) == 7")  # wrong: the TQC rejects it
    return tests


# -- latencies -------------------------------------------------------------------


def latency(profile: str, base: float, req: dict[str, Any]) -> float:
    if profile == "fixed":
        return base
    key = repr((req["agent"], req["progression"], req["epoch"], req["attempt"], req["turn"], req["test"]))
    spread = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF  # 0..1, fixed per place
    slow = 3.0 if req["progression"] == 0 else 1.0
    return base * (0.3 + 1.7 * spread) * slow


def req(agent: str, p: int | None = None, *, epoch=None, attempt=None, turn=1, test=None) -> dict[str, Any]:
    return {"agent": agent, "progression": p, "epoch": epoch, "attempt": attempt, "turn": turn, "test": test}


# -- the model -------------------------------------------------------------------


def make_model(profile: str, base: float, right: dict[int, str]):
    async def respond(request: dict) -> str:
        await asyncio.sleep(latency(profile, base, request))
        agent, p = request["agent"], request["progression"]
        if agent == "program_generator":
            stage = f"clarifier:{request['attempt']}" if request["attempt"] else "program_generator"
            return f"```python\n{program(p, stage, right)}```"
        if agent == "self_debugger":
            fixed = program(p, f"self_debug:{request['epoch']}", right)
            return f"Fixed:\n```python\n{fixed}```"
        if agent == "test_designer":
            return "```python\n" + "\n".join(synthesized(request["attempt"])) + "\n```"
        if agent == "clarifier":
            return "<clarified_problem>Return x plus one.</clarified_problem>"
        x = int(re.search(r"add_one\((-?\d+)\)", request["test"]).group(1))
        if agent == "test_quality_checker":
            return f"<test_case>assert add_one({x}) == {x + 1}</test_case>"
        # The code quality checker imagines the program it is shown, perfectly.
        shown = re.search(r"return (x \+ \d)", request["messages"][0]["content"]).group(1)
        value = x + int(shown[-1])
        return "..." if request["turn"] == 1 else f"<test_case>assert add_one({x}) == {value}</test_case>"

    return respond


@dataclass
class TimedSandbox:
    """Plays the sandbox for the bench's own programs (trusted: written above,
    never by a model), judging in-process; every run takes exactly ``seconds``.
    The real sandbox's speed has its own benchmark (bench/sandbox.py); here its
    time must be known for the critical path."""

    seconds: float
    isolation: str = "in-process (bench)"
    config: SandboxConfig = field(default_factory=SandboxConfig)

    async def run_tests(
        self,
        program: str,
        tests: list[str],
        entry_point: str | None = None,
        setup: str = "",
        *,
        trusted_tests: bool = False,
    ) -> SandboxReport:
        scope: dict[str, Any] = {}
        exec(program, scope)
        results = []
        for test in tests:
            x = int(re.search(r"add_one\((-?\d+)\)", test).group(1))
            actual = scope["add_one"](x)
            ok = eval(test.removeprefix("assert "), dict(scope))
            results.append(TestOutcome(test, "pass" if ok else "fail", actual=repr(actual)))
        await asyncio.sleep(self.seconds)
        return SandboxReport(results=results, isolation=self.isolation)

    async def check_values(
        self, items: list[tuple[str, str]], entry_point: str | None = None, setup: str = ""
    ) -> SandboxReport:
        results = []
        for test, value in items:
            ok = eval(replace_call(test, value, "add_one").removeprefix("assert "), {})
            results.append(TestOutcome(test, "pass" if ok else "fail", actual=value))
        await asyncio.sleep(self.seconds)
        return SandboxReport(results=results, isolation=self.isolation)


# -- the rule's critical path ----------------------------------------------------------


def critical_path(profile: str, base: float, sandbox: float, right: dict[int, str]) -> tuple[float, tuple | None]:
    """When the rule lets the run end, with unlimited concurrency, and its winner
    ``(stage index, progression)`` (None: nothing accepted, revert)."""

    def lat(r: dict[str, Any]) -> float:
        return latency(profile, base, r)

    def check(p: int) -> float:
        # One two-turn conversation per visible test, all at once; one sandbox run for the verdicts.
        return (
            max(
                lat(req("code_quality_checker", p, turn=1, test=t))
                + lat(req("code_quality_checker", p, turn=2, test=t))
                for t in VISIBLE
            )
            + sandbox
        )

    names = stages()
    gen_done = {p: lat(req("program_generator", p)) + check(p) for p in range(PROMPTS)}
    first_reject = min(gen_done[p] for p in range(PROMPTS) if right.get(p) != "program_generator")
    tests = [t for r in range(1, ROUNDS + 1) for t in synthesized(r)]
    tests_ready = (
        first_reject
        + max(lat(req("test_designer", attempt=r)) for r in range(1, ROUNDS + 1))
        + max(lat(req("test_quality_checker", attempt=i + 1, test=t)) for i, t in enumerate(tests))
        + sandbox
    )
    done: dict[int, list[float]] = {}  # progression -> time each stage ended
    accepted: dict[int, int] = {}
    for p in range(PROMPTS):
        t = gen_done[p]
        ends = [t]
        if right.get(p) == names[0]:
            accepted[p] = 0
        for e in range(1, EPOCHS + 1):
            if p in accepted:
                break
            t = max(t, tests_ready) + (sandbox if e == 1 else 0.0)  # the kept tests on the generated program
            t += lat(req("self_debugger", p, epoch=e)) + sandbox + check(p)
            ends.append(t)
            if right.get(p) == f"self_debug:{e}":
                accepted[p] = e
        for a in range(1, CLARIFY + 1):
            if p in accepted:
                break
            t += lat(req("clarifier", p, attempt=a)) + lat(req("program_generator", p, attempt=a)) + check(p)
            ends.append(t)
            if right.get(p) == f"clarifier:{a}":
                accepted[p] = EPOCHS + a
        done[p] = ends
    if not accepted:
        return max(ends[-1] for ends in done.values()), None
    stage, winner = min((s, p) for p, s in accepted.items())
    need = [done[winner][stage]]
    for j in range(PROMPTS):
        if j != winner:
            upto = stage if j < winner else stage - 1
            if upto >= 0:
                need.append(done[j][min(upto, len(done[j]) - 1)])
    return max(need), (stage, winner)


# -- running -------------------------------------------------------------------------


async def run(profile: str, base: float, sandbox_s: float, scenario: str, concurrency: int) -> tuple[float, Any]:
    right = SCENARIOS[scenario]
    sandbox = TimedSandbox(sandbox_s)
    config = RunConfig(model="script/bench", concurrency=concurrency).replace(
        prompts=PROMPTS, epochs=EPOCHS, clarify=CLARIFY
    )
    with tempfile.TemporaryDirectory() as folder:
        t0 = time.monotonic()
        outcome = await run_workflow(
            PROBLEM,
            config,
            client=ScriptClient.from_function(make_model(profile, base, right)),
            sandbox=sandbox,
            session_dir=Path(folder),
        )
        wall = time.monotonic() - t0
    return wall, outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", type=float, default=0.1, help="seconds per model call (fixed profile)")
    parser.add_argument("--sandbox", type=float, default=0.05, help="seconds per sandbox run")
    parser.add_argument("--no-sequential", action="store_true", help="skip the one-call-at-a-time runs")
    args = parser.parse_args()
    print(
        f"{PROMPTS} progressions, {len(VISIBLE)} visible tests, {EPOCHS} epochs, {CLARIFY} clarifier attempts, "
        f"model call {args.latency}s (mixed: 0.3-3x), sandbox run {args.sandbox}s"
    )
    header = (
        f"{'latencies':9} {'scenario':10} {'critical path':>13} {'wall':>7} {'ratio':>6} "
        f"{'sequential':>10} {'calls':>5}  result"
    )
    print(header)
    print("-" * len(header))
    worst = 0.0
    for profile in ("fixed", "mixed"):
        for scenario, right in SCENARIOS.items():
            cp, decided = critical_path(profile, args.latency, args.sandbox, right)
            wall, outcome = asyncio.run(run(profile, args.latency, args.sandbox, scenario, 10_000))
            expected = "reverted" if decided is None else f"{stages()[decided[0]]} p{decided[1]}"
            got = "reverted" if outcome.outcome == "reverted" else f"{outcome.accepted_at} p{outcome.progression}"
            if got != expected:
                raise SystemExit(f"{profile}/{scenario}: the run gave {got}, the rule says {expected}")
            seq = ""
            if not args.no_sequential:
                seq_wall, _ = asyncio.run(run(profile, args.latency, args.sandbox, scenario, 1))
                seq = f"{seq_wall:9.2f}s"
            ratio = wall / cp
            worst = max(worst, ratio)
            print(
                f"{profile:9} {scenario:10} {cp:12.2f}s {wall:6.2f}s {ratio:6.2f} {seq:>10} "
                f"{outcome.llm_calls:5}  {got}"
            )
    print(f"worst wall / critical path: {worst:.2f} (target at most 1.10)")


if __name__ == "__main__":
    main()
