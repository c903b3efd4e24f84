"""CodeTree's Critic (Li et al., 3.2): scores a node (how well its outputs
match the visible tests' expected outputs, how faithfully it implements its
strategy), verifies a program that passes every visible test, and decides the
search's next move: refine, abort or accept.

Section 3.2 evaluates the two scores "separately", and Figure 10 gives a prompt
for each ("test cases scoring, solution scoring"): with ``separate_scoring`` (the
default) a failing node gets two calls, the test-output score and then the
solution score with the decision; off, one call gives both."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...context import RunContext
from ...events import CriticAction

AGENT = "critic"
PROMPTS = "codetree/critic"
ACTIONS = ("refine", "abort", "accept")


@dataclass
class Critique:
    action: CriticAction
    score: float
    """Score(F_cri) in [0, 1]: the mean of the test-output and strategy scores."""
    critique: str
    test_score: float | None = None
    """How well the outputs match the expected ones, 0-10, as the Critic said."""
    strategy_score: float | None = None
    """How faithfully the program implements its strategy, 0-10, as the Critic said."""


def critic_prompt(ctx: RunContext, strategy: str, program: str, feedback: str, *, verify: bool) -> tuple[str, str]:
    return ctx.prompts.get(PROMPTS, "verify" if verify else "score").render(
        statement=ctx.problem.statement, strategy=strategy, program=program, feedback=feedback
    )


def output_scoring_prompt(ctx: RunContext, program: str, feedback: str) -> tuple[str, str]:
    """Figure 10's test-case scoring: the outputs against the expected ones, nothing else."""
    return ctx.prompts.get(PROMPTS, "score_tests").render(
        statement=ctx.problem.statement, program=program, feedback=feedback
    )


def solution_scoring_prompt(ctx: RunContext, strategy: str, program: str, feedback: str) -> tuple[str, str]:
    """Figure 10's solution scoring: the program against its strategy, and the decision."""
    return ctx.prompts.get(PROMPTS, "score_solution").render(
        statement=ctx.problem.statement, strategy=strategy, program=program, feedback=feedback
    )


def parse_critique(text: str, *, verify: bool) -> Critique:
    """The Critic's tags, tolerantly: a missing action is read from the last
    action word; Score(F_cri) is the mean of the test-output and strategy
    scores (or a single ``<score>``), 0 when it gave none. Only a verified program (one that
    passes every visible test) can be accepted; before that, ``accept`` reads
    as ``refine``, and after it ``abort`` reads as ``refine`` (the paper's
    verification either accepts or suggests improvements)."""
    found = re.search(r"<action>\s*(\w+)", text, flags=re.I)
    said = found.group(1).lower() if found else ""
    if said not in ACTIONS:
        words = re.findall(r"\b(refine|abort|accept)\b", text, flags=re.I)
        said = words[-1].lower() if words else "refine"
    action: CriticAction = "abort" if said == "abort" else "accept" if said == "accept" else "refine"
    if verify and action == "abort":
        action = "refine"
    if not verify and action == "accept":
        action = "refine"
    test_score, strategy_score = _number(text, "test_score"), _number(text, "strategy_score")
    parts = [s for s in (test_score, strategy_score) if s is not None]
    if not parts:  # a single overall score is read too
        overall = _number(text, "score")
        parts = [overall] if overall is not None else []
    score = sum(parts) / len(parts) / 10.0 if parts else 0.0
    body = re.search(r"<critique>(.*?)(?:</critique>|$)", text, flags=re.S | re.I)
    critique = body.group(1).strip() if body else text.strip()
    return Critique(action, score, critique, test_score, strategy_score)


def _number(text: str, tag: str) -> float | None:
    """The 0-10 number in ``<tag>``, clamped; None when there is none."""
    found = re.search(rf"<{tag}>\s*(-?\d+(?:\.\d+)?)", text, flags=re.I)
    return min(10.0, max(0.0, float(found.group(1)))) if found else None


async def _ask(ctx: RunContext, rendered: tuple[str, str], *, step: str, node: str) -> str:
    request = ctx.request(AGENT, rendered, progression=0)
    request.node = node
    return await ctx.call(request, step=step)


async def criticise(
    ctx: RunContext,
    strategy: str,
    program: str,
    feedback: str,
    *,
    verify: bool,
    step: str,
    node: str,
    separate: bool = False,
) -> Critique:
    """The Critic's evaluation of a node: one call, or with ``separate`` (a
    failing node only; verification is one task) the test-output score and the
    solution score in two calls, the second deciding refine or abort."""
    if verify or not separate:
        text = await _ask(ctx, critic_prompt(ctx, strategy, program, feedback, verify=verify), step=step, node=node)
        return parse_critique(text, verify=verify)
    on_tests = await _ask(ctx, output_scoring_prompt(ctx, program, feedback), step=step, node=node)
    on_solution = await _ask(ctx, solution_scoring_prompt(ctx, strategy, program, feedback), step=step, node=node)
    decided = parse_critique(on_solution, verify=False)
    test_score = _number(on_tests, "test_score")
    parts = [x for x in (test_score, decided.strategy_score) if x is not None]
    score = sum(parts) / len(parts) / 10.0 if parts else 0.0
    outputs = parse_critique(on_tests, verify=False).critique
    critique = f"Outputs: {outputs}\nSolution: {decided.critique}"
    return Critique(decided.action, score, critique, test_score, decided.strategy_score)
