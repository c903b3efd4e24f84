"""Code Quality Checker (QualityFlow 3.4): decides whether a program is accepted.

``imagined``: Imagined Execution on every visible test, all must pass (the
standard setting). ``python``: run the visible tests in the sandbox (the relaxed
setting). ``yesno``: the paper's baseline critic. ``none``: never accepts, so
every step runs (the ablation without the CQC)."""

from __future__ import annotations

from dataclasses import dataclass

from ...agents.shown import tests_text
from ...agents.test_executor import execute_tests, execution_feedback
from ...context import RunContext
from ...extract import extract_yes_no
from . import CHECKER
from .imagined import imagined_execution

AGENT = "code_quality_checker"


@dataclass
class CheckResult:
    accepted: bool
    feedback: str = ""
    """Why it was rejected, in words the clarifier can use."""
    steered: bool = False
    """A person decided the verdict at a stop; the checker was not asked."""


async def check_program(ctx: RunContext, program: str, *, progression: int, step: str) -> CheckResult:
    mode = CHECKER.of(ctx.config)
    if mode == "none":
        return CheckResult(False, "no quality checker (checker=none)")
    if mode == "python":
        return await _python_check(ctx, program, progression=progression, step=step)
    if mode == "yesno":
        return await _yesno_check(ctx, program, progression=progression, step=step)
    return await _imagined_check(ctx, program, progression=progression, step=step)


async def _imagined_check(ctx: RunContext, program: str, *, progression: int, step: str) -> CheckResult:
    results = await imagined_execution(ctx, program, ctx.problem.test_sources, step=step, progression=progression)
    failing = [r for r in results if not r.passed]
    feedback = "\n".join(
        f"{r.test}\n    imagined execution answered: {r.answer or '(no answer)'}"
        + (f" ({r.detail})" if r.detail else "")
        for r in failing
    )
    return CheckResult(not failing, feedback)


async def _python_check(ctx: RunContext, program: str, *, progression: int, step: str) -> CheckResult:
    report = await execute_tests(
        ctx,
        program,
        ctx.problem.test_sources,
        purpose="python_checker",
        agent=AGENT,
        step=step,
        progression=progression,
    )
    ok = report.load_error is None and report.total > 0 and report.passed == report.total
    return CheckResult(ok, "" if ok else execution_feedback(report, ctx.problem))


def yesno_prompt(ctx: RunContext, program: str) -> tuple[str, str]:
    return ctx.prompts.get("qualityflow/yesno_checker", "default").render(
        statement=ctx.problem.statement, tests=tests_text(ctx), program=program
    )


async def _yesno_check(ctx: RunContext, program: str, *, progression: int, step: str) -> CheckResult:
    rendered = yesno_prompt(ctx, program)
    text = await ctx.call(ctx.request("yesno_checker", rendered, progression=progression), step=step)
    verdict = extract_yes_no(text)
    return CheckResult(bool(verdict), "" if verdict else f"the critic answered: {text.strip()[:200]}")
