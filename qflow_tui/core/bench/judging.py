"""Judging a finished run of a bench: every distinct program it produced on
the hidden tests, the output after each step (what the run would have
returned had it stopped there), the checkers' verdicts against the truth, the
self-debugging deviation and the synthesized tests against the canonical
solution: the part of a results line that judging adds (:class:`JudgedRun`)."""

from __future__ import annotations

import asyncio
from typing import cast

from ..config import RunConfig
from ..pieces import SynthTests
from ..run_state import RunState
from ..workflow_run import RunOutcome
from ..workflows import get_workflow
from .datasets import BenchProblem
from .evaluate import Evaluator
from .results import CheckRow, DebugRow, JudgedRun, ProgramRow, StepRow, TestRow, VerdictRow


def output_after_each_step(
    run: RunState, final_program: str, accepted_at: str | None, first_program: str, reverts: bool
) -> list[tuple[str, str, bool]]:
    """(step, program, accepted) for each step that produced or judged a
    program: what the run would have returned had it stopped after that step
    (the accepted program once one is accepted; before that the first program
    when the workflow reverts, else the origin progression's latest)."""
    # A step that only judged (AgentCoder's test executor rejecting, a checker
    # in a step of its own) counts as much as one that wrote a program: left
    # out, a rejection showed as "not reached" (·) wherever another run's
    # acceptance at that step made it a column.
    judged = {c.step for c in run.checks} | {d.step for d in run.decisions if d.step}
    order = [
        s for s in run.steps_started if any(p.step == s for p in run.candidates) or s in judged or s == accepted_at
    ]
    origin = min((p.progression for p in run.candidates if p.progression is not None), default=None)
    latest = first_program
    out: list[tuple[str, str, bool]] = []
    accepted = False
    for step in order:
        for p in run.candidates:
            if p.step == step and p.progression == origin:
                latest = p.program
        if step == accepted_at:
            accepted = True
        if accepted:
            out.append((step, final_program, True))
        else:
            out.append((step, first_program if reverts else latest, False))
    return out


async def judge_run(
    evaluator: Evaluator, bp: BenchProblem, state: RunState, config: RunConfig, outcome: RunOutcome
) -> JudgedRun:
    """Judge every distinct program of the run, and the synthesized tests."""
    run = state
    distinct: dict[str, None] = {}
    wanted = [p.program for p in run.candidates] + [outcome.final_program, outcome.first_program]
    for program in wanted:
        if program not in distinct:
            distinct[program] = None
    verdicts = await asyncio.gather(*(evaluator.evaluate(bp, prog) for prog in distinct))
    by_program = dict(zip(distinct, verdicts, strict=True))

    def ok(program: str) -> bool:
        return bool(by_program[program].passed)

    final = by_program[outcome.final_program]
    reverts = get_workflow(config.workflow).reverts(config)
    steps: list[StepRow] = [
        {"step": step, "passed": ok(prog), "accepted": acc}
        for step, prog, acc in output_after_each_step(
            run, outcome.final_program, outcome.accepted_at, outcome.first_program, reverts
        )
    ]
    programs: list[ProgramRow] = []
    for p in run.candidates:
        row: ProgramRow = {
            "step": p.step,
            "progression": p.progression,
            "agent": p.agent,
            "passed": ok(p.program),
            "status": by_program[p.program].status,
            "detail": by_program[p.program].detail,
        }
        if by_program[p.program].base is not None:
            # EvalPlus's base verdict apart, for figures over several programs (pass@5).
            row["base"] = by_program[p.program].base
        programs.append(row)
    # The CQC's verdicts, each on the program its progression held at that step.
    held: dict[int | None, str] = {}
    checks: list[CheckRow] = []
    i = 0
    order = run.steps_started
    for d in run.checks:
        while i < len(run.candidates) and order.index(run.candidates[i].step or "") <= order.index(d.step):
            held[run.candidates[i].progression] = run.candidates[i].program
            i += 1
        prog = held.get(d.progression)
        if prog is not None:
            check: CheckRow = {"step": d.step, "progression": d.progression, "accepted": d.accepted, "passed": ok(prog)}
            if not bp.problem.test_sources:  # nothing to check against: counted apart in Table 4
                check["no_visible_test"] = True
            checks.append(check)
    # Self-debugging: each debugged program against the one it replaced.
    debug: list[DebugRow] = []
    before: dict[int | None, str] = {}
    debugger = get_workflow(config.workflow).debugger
    for p in run.candidates:
        if debugger and p.agent == debugger and p.progression in before:
            debug.append(
                {
                    "step": cast(str, p.step),  # a debugger's program is made in a step
                    "progression": p.progression,
                    "before": ok(before[p.progression]),
                    "after": ok(p.program),
                }
            )
        before[p.progression] = p.program
    # Synthesized tests: correct when the canonical solution passes them; triggered
    # when the first program fails them.
    tqc_rows: list[TestRow] = []
    tests = [t.test for t in run.piece(SynthTests).judged()] or run.piece(SynthTests).designed_tests()
    if tests and bp.reference:
        canon, first = await asyncio.gather(
            evaluator.run_tests(bp, bp.reference, tests), evaluator.run_tests(bp, outcome.first_program, tests)
        )
        kept = {t.test: t.verdict == "kept" for t in run.piece(SynthTests).judged()}
        for test, c, f in zip(tests, canon.results, first.results, strict=True):
            tqc_rows.append(
                {"test": test, "kept": kept.get(test), "correct": c.status == "pass", "triggered": f.status != "pass"}
            )
    return {
        "passed": final.passed,
        "verdict": cast(VerdictRow, final.to_dict()),
        "first_passed": ok(outcome.first_program),
        "steps": steps,
        "programs": programs,
        "checks": checks,
        "debug": debug,
        "tests": tqc_rows,
    }
