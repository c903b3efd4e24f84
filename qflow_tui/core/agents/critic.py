"""CodeTree's Critic (Li et al., 3.2): scores a node (how well its outputs
match the visible tests' expected outputs, how faithfully it implements its
strategy), verifies a program that passes every visible test, and decides the
search's next move: refine, abort or accept."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..context import RunContext

AGENT = "critic"
ACTIONS = ("refine", "abort", "accept")


@dataclass
class Critique:
    action: str
    """``refine``, ``abort`` or ``accept``."""
    score: float
    """Score(F_cri) in [0, 1]."""
    critique: str


def critic_prompt(ctx: RunContext, strategy: str, program: str, feedback: str, *, verify: bool) -> tuple[str, str]:
    return ctx.prompts.get(AGENT, "verify" if verify else "score").render(
        statement=ctx.problem.statement, strategy=strategy, program=program, feedback=feedback
    )


def parse_critique(text: str, *, verify: bool) -> Critique:
    """The Critic's tags, tolerantly: a missing action is read from the last
    action word; a missing score counts 0. Only a verified program (one that
    passes every visible test) can be accepted; before that, ``accept`` reads
    as ``refine``, and after it ``abort`` reads as ``refine`` (the paper's
    verification either accepts or suggests improvements)."""
    found = re.search(r"<action>\s*(\w+)", text, flags=re.I)
    action = found.group(1).lower() if found else ""
    if action not in ACTIONS:
        words = re.findall(r"\b(refine|abort|accept)\b", text, flags=re.I)
        action = words[-1].lower() if words else "refine"
    if verify and action == "abort":
        action = "refine"
    if not verify and action == "accept":
        action = "refine"
    score = 0.0
    number = re.search(r"<score>\s*(-?\d+(?:\.\d+)?)", text, flags=re.I)
    if number:
        score = min(10.0, max(0.0, float(number.group(1)))) / 10.0
    body = re.search(r"<critique>(.*?)(?:</critique>|$)", text, flags=re.S | re.I)
    critique = body.group(1).strip() if body else text.strip()
    return Critique(action, score, critique)


async def criticise(
    ctx: RunContext, strategy: str, program: str, feedback: str, *, verify: bool, step: str, node: str
) -> Critique:
    request = ctx.request(AGENT, critic_prompt(ctx, strategy, program, feedback, verify=verify), progression=0)
    request.node = node
    text = await ctx.call(request, step=step)
    return parse_critique(text, verify=verify)
