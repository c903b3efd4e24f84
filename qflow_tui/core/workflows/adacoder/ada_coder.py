"""AdaCoder (Zhu et al., section IV, Algorithms 1-3): adaptive planning.

Phase 1: the Programming Assistant writes the program from the task alone (no
plan) and the Code Evaluator (a script: here the sandbox) runs the sample
tests, i.e. the visible tests. Phase 2, only when Phase 1 fails, repeated up to
t times (5 by default): Step 1, the rule-based Debug Specialist fixes
superficial errors with no model call and the Code Evaluator runs the tests
again; Step 2, the Prompt Engineer writes a plan from the error feedback and
the Programming Assistant writes the program again, following the plan. As in
Algorithm 1, the last regenerated program gets the Debug Specialist too, and
when nothing passes the last debugged program is returned (line 22). The plan
Algorithm 1 would make after the last iteration is skipped: no program would
follow it.

Table XI's ablations remove an agent from Algorithm 1 and change nothing else:
- ``prompt_engineer`` off ("w/o Prompt"): line 20 goes, so the plan stays None
  and each Phase 2 iteration the Programming Assistant writes the program again
  from the task alone (line 7);
- ``debug_specialist`` off ("w/o Debug"): lines 15-19 go, so the Prompt
  Engineer plans from the Code Evaluator's error on the program as written
  (EvalResult1), and when nothing passes the last program written is returned.
With both off, Phase 2 is t more programs written from the task alone.
"""

from __future__ import annotations

from ...context import RunContext
from ...events import Decision, ProgramCandidate
from ...steps import step
from ..base import WorkflowResult
from ..settings import ITERATIONS
from . import DEBUG_SPECIALIST, PROMPT_ENGINEER, debug_specialist
from .code_evaluator import evaluate
from .programming_assistant import write_code
from .prompt_engineer import make_plan


def _decide(ctx: RunContext, step_name: str, ok: bool, reason: str) -> None:
    ctx.event(
        Decision(
            step=step_name,
            agent="code_evaluator",
            progression=0,
            decision="accept" if ok else "continue",
            reason="every sample test passes" if ok else reason,
        )
    )


async def _debug_step(ctx: RunContext, iteration: int, code: str, info: str) -> tuple[str, bool, str]:
    """Phase 2, Step 1: the Debug Specialist (no model call), then the Code Evaluator."""
    async with step(ctx, "debug_specialist", "debug_specialist", attempt=iteration, progression=0) as s:
        fixed = debug_specialist.debug(code, info)
        s.detail = ", ".join(fixed.rules) if fixed.rules else "no rule applied"
        if fixed.rules:
            ctx.event(ProgramCandidate(step=s.name, agent="debug_specialist", progression=0, program=fixed.code))
            ok, info = await evaluate(ctx, fixed.code, s)
        else:
            # Nothing changed: evaluating the same program again would say the same.
            ok, s.outcome = False, "rejected"
    return fixed.code, ok, info


async def run_adacoder(ctx: RunContext) -> WorkflowResult:
    t = ITERATIONS.of(ctx.config)
    with_debug = DEBUG_SPECIALIST.of(ctx.config)
    with_plan = PROMPT_ENGINEER.of(ctx.config)
    next_stage = "on to planning" if with_plan else "on to writing it again"
    # Phase 1: initial code generation without planning.
    async with step(ctx, "programming_assistant", "programming_assistant", progression=0) as s:
        code = first = await write_code(ctx, None, step=s.name)
        ok, info = await evaluate(ctx, code, s)
    phase_2 = "debug specialist" if with_debug else "no debug specialist"
    _decide(ctx, s.name, ok, f"Phase 1 failed: on to Phase 2 ({phase_2}, {'planning' if with_plan else 'no plan'})")
    if ok:
        return WorkflowResult(code, "accepted", s.name, 0, first)

    # Phase 2: iterative code generation with planning.
    for iteration in range(1, t + 2):
        last = iteration == t + 1
        if with_debug:
            code, ok, debug_info = await _debug_step(ctx, iteration, code, info)
            info = debug_info or info
            name = f"debug_specialist:{iteration}"
            _decide(ctx, name, ok, "the last debugged program stands" if last else f"logic errors remain: {next_stage}")
            if ok:
                return WorkflowResult(code, "accepted", name, 0, first)
        if last:
            return WorkflowResult(code, "rejected", None, 0, first)
        plan = None
        if with_plan:
            async with step(ctx, "prompt_engineer", "prompt_engineer", attempt=iteration, progression=0) as s:
                plan = await make_plan(ctx, info, step=s.name, iteration=iteration)
        async with step(ctx, "programming_assistant", "programming_assistant", attempt=iteration, progression=0) as s:
            code = await write_code(ctx, plan, step=s.name, iteration=iteration)
            ok, info = await evaluate(ctx, code, s)
        if iteration == t and not with_debug:
            reason = "the last program written stands"
        else:
            reason = "the program fails: " + ("back to the debug specialist" if with_debug else next_stage)
        _decide(ctx, s.name, ok, reason)
        if ok:
            return WorkflowResult(code, "accepted", s.name, 0, first)
    raise AssertionError("unreachable: the loop returns")
