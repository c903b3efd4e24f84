"""MapCoder's run: recall, plan each recalled problem with a confidence, then
code the plans from the most confident down, debugging each program against
the sample tests at most t rounds before the next plan.

Every program is checked by the sample tester at the step that wrote it
(``coding:1``, ``debugging:3``): the sample tests run in qflow's sandbox,
never here. A person may stop the run before a step and give the program it
carries on with, or decide the sample tester's verdict; the run takes each
edit itself, once, where it applies (``steered_program``, ``steered_verdict``)."""

from __future__ import annotations

from dataclasses import dataclass

from qflow_tui.core.agents.test_executor import execute_tests, execution_feedback
from qflow_tui.core.context import RunContext
from qflow_tui.core.events import Record, RecordValue
from qflow_tui.core.steer import steered_program, steered_verdict
from qflow_tui.core.steps import step
from qflow_tui.core.workflows import WorkflowResult

from . import DEBUG_ROUNDS, EXEMPLARS, SPEC, debugging_round
from .agents import debug, make_plan, rate_plan, recall, write_code
from .parse import Recalled, one_line


@dataclass
class Plan:
    """A plan for the problem, made from one recalled problem: a row of the
    Plans pane, sent again (same key) each time it changes."""

    number: int
    """The recalled problem it was learnt from (``planning:N``)."""
    recalled: str
    """What that problem asks."""
    text: str = ""
    confidence: int | None = None
    """0 to 100, the planning agent's own; None before it is scored, or when its answer held no number."""
    tried: int | None = None
    """Its place in the order the plans are coded (``coding:N``); None: not coded."""
    outcome: str = ""

    def show(self, ctx: RunContext, step: str, agent: str) -> None:
        """This plan's row in the Plans pane (and a line of ``qflow solve``'s log)."""
        fields: dict[str, RecordValue] = {
            "plan": self.number,
            "recalled": one_line(self.recalled),
            "confidence": self.confidence,
            "tried": self.tried,
            "outcome": self.outcome,
        }
        ctx.event(Record(step=step, agent=agent, progression=0, record="plan", key=str(self.number), fields=fields))


async def run_mapcoder(ctx: RunContext) -> WorkflowResult:
    k, t = EXEMPLARS.of(ctx.config), DEBUG_ROUNDS.of(ctx.config)
    async with step(ctx, "retrieval", "retrieval", progression=0) as s:
        recollection = await recall(ctx, k, step=s.name)
        s.detail = f"{len(recollection.problems)} of {k} problems recalled"
        recalled = recollection.problems or (
            # Nothing recalled in the asked form: one plan from the problem alone.
            Recalled(1, "(none recalled in the form asked: a plan from the problem alone)", "", ""),
        )
        plans = [Plan(problem.number, problem.description, outcome="to plan") for problem in recalled]
        for plan in plans:
            plan.show(ctx, s.name, "retrieval")
    algorithm = recollection.algorithm

    for plan, problem in zip(plans, recalled, strict=True):
        async with step(ctx, "planning", "planning", epoch=plan.number, progression=0) as s:
            plan.text = await make_plan(ctx, problem, algorithm, step=s.name)
            plan.confidence = await rate_plan(ctx, plan.text, number=plan.number, step=s.name)
            s.detail = f"confidence {plan.confidence}" if plan.confidence is not None else "no confidence given: 0"
            plan.outcome = "planned"
            plan.show(ctx, s.name, "planning")

    # The most confident first (no number counts as 0); equal confidences in the order recalled.
    ordered = sorted(plans, key=lambda p: -(p.confidence or 0))
    first = program = ""
    for tried, plan in enumerate(ordered, 1):
        async with step(ctx, "coding", "coding", epoch=tried, progression=0) as s:
            # A person's program for this step stands in for the coding agent's answer.
            program = steered_program(ctx, s.name, 0, "", "coding") or await write_code(
                ctx, plan.text, algorithm, tried=tried, step=s.name
            )
            s.detail = f"plan {plan.number}, confidence {plan.confidence or 0}"
            plan.tried, plan.outcome = tried, "coded"
            plan.show(ctx, s.name, "coding")
        first = first or program
        if not ctx.problem.test_sources:
            # No sample test to run: MapCoder has nothing to check the program against.
            return WorkflowResult(program, "unchecked", None, 0, first, detail="the problem has no sample tests")
        at, producer, plan_text = s.name, "coding", plan.text
        for round in range(t + 1):
            check = await _check(ctx, at, producer, program)
            program = check.program
            if check.passed:
                plan.outcome = f"accepted at {at}"
                plan.show(ctx, at, "sample_tester")
                _decide(ctx, at, "accept", f"{check.detail}: plan {plan.number} stands")
                return WorkflowResult(program, "accepted", at, 0, first)
            if round == t:
                break
            _decide(ctx, at, "debug", f"{check.detail}: debugging round {round + 1} of {t} (plan {plan.number})")
            number = debugging_round(tried, round + 1, ctx.config)
            async with step(ctx, "debugging", "debugging", epoch=number, progression=0) as s:
                edited = steered_program(ctx, s.name, 0, program, "debugging")
                if edited is None:
                    plan_text, edited = await debug(
                        ctx, plan_text, program, check.feedback, algorithm, number=number, step=s.name
                    )
                program = edited
                s.detail = f"plan {plan.number}, round {round + 1} of {t}"
            at, producer = s.name, "debugging"
        rounds = f"{t} round" + ("s" if t > 1 else "")
        spent = f"{check.detail} after {t} debugging {rounds.split()[1]}" if t else check.detail
        plan.outcome = f"failed: {check.score}" + (f" after {rounds}" if t else "")
        plan.show(ctx, at, "sample_tester")
        if tried < len(ordered):
            _decide(ctx, at, "next plan", f"{spent}: plan {ordered[tried].number} is next")
        else:
            _decide(ctx, at, "plans spent", f"{spent}, and no plan is left: the last program stands")
    return WorkflowResult(program, "rejected", None, 0, first)


@dataclass(frozen=True)
class Check:
    """The sample tester's check of one program."""

    passed: bool
    program: str
    """The program checked: the step's, or a person's given at the check's stop."""
    feedback: str
    """What the debugging agent is told when it failed."""
    detail: str
    """In words: ``1/3 samples pass``."""
    score: str
    """In a few characters, for the Plans pane: ``1/3``, or ``a person's no``."""


async def _check(ctx: RunContext, at: str, producer: str, program: str) -> Check:
    """The sample tester's check of the program step ``at`` wrote. A person's
    program or verdict given at this stop is taken here."""
    async with step(ctx, at, "sample_tester", progression=0, check=True) as s:
        program = steered_program(ctx, s.name, 0, program, producer) or program
        verdict = steered_verdict(ctx, s.name, 0, "sample_tester")
        if verdict is not None:
            s.detail = "a person " + ("accepted it" if verdict else "rejected it")
            s.outcome = "accepted" if verdict else "rejected"
            feedback = "A reviewer rejected the program: read the statement again and fix it."
            return Check(verdict, program, feedback, s.detail, "a person's " + ("yes" if verdict else "no"))
        report = await execute_tests(
            ctx, program, ctx.problem.test_sources, purpose="samples", agent="sample_tester", step=s.name, progression=0
        )
        s.detail = f"{report.passed}/{report.total} samples pass"
        s.outcome = "accepted" if report.all_passed else "rejected"
        feedback = execution_feedback(report, ctx.problem)
        return Check(report.all_passed, program, feedback, s.detail, f"{report.passed}/{report.total}")


def _decide(ctx: RunContext, at: str, word: str, reason: str) -> None:
    """The sample tester's decision after its check, in MapCoder's words
    (``debug``, ``next plan``, ``plans spent``; the spec maps each onto the
    core's ``continue``) or the core's ``accept``."""
    ctx.event(SPEC.decision(word, reason, step=at, agent="sample_tester", progression=0))
