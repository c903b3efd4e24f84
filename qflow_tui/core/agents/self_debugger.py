"""Self-Debugger (QualityFlow 3.3): chain-of-thought debugging fed by running the
filtered synthesized tests in the sandbox (error messages and actual return
values; never the visible tests in the standard setting)."""

from __future__ import annotations

from ..context import RunContext
from ..events import ProgramCandidate, SandboxRun
from ..extract import extract_program

AGENT = "self_debugger"
#: Failing tests shown to the debugger at most, to keep prompts bounded.
MAX_FEEDBACK = 10


async def run_synthesized_tests(ctx: RunContext, program: str, tests: list[str], *, step: str, progression: int):
    report = await ctx.sandbox.run_tests(program, tests, entry_point=ctx.problem.entry_point, setup=ctx.problem.setup)
    ctx.event(
        SandboxRun(
            step=step,
            agent="test_executor",
            progression=progression,
            purpose="self_debug",
            program=program,
            results=[r.to_dict() for r in report.results],
            passed=report.passed,
            total=report.total,
            load_error=report.load_error,
            duration=report.duration,
            isolation=report.isolation,
        )
    )
    return report


def execution_feedback(report) -> str:
    """What the debugger is told: the load error, or each failing test with the
    actual value or the error."""
    if report.load_error:
        return f"The program fails to load: {report.load_error}"
    lines = []
    failing = [r for r in report.results if r.status != "pass"]
    for r in failing[:MAX_FEEDBACK]:
        if r.status == "fail":
            lines.append(f"{r.test}\n    -> failed: the function returned {r.actual}")
        elif r.status == "timeout":
            lines.append(f"{r.test}\n    -> timed out (the function did not return in time)")
        else:
            lines.append(f"{r.test}\n    -> raised {r.error}")
    if len(failing) > MAX_FEEDBACK:
        lines.append(f"... and {len(failing) - MAX_FEEDBACK} more failing tests")
    lines.append(f"({report.passed} of {report.total} tests pass)")
    return "\n".join(lines)


async def debug(ctx: RunContext, progression: int, epoch: int, program: str, feedback: str, *, step: str) -> str:
    variants = ctx.prompts.variants(AGENT)
    prompt = variants[(epoch - 1) % len(variants)]
    rendered = prompt.render(statement=ctx.problem.statement, program=program, feedback=feedback)
    text = await ctx.call(ctx.request(AGENT, rendered, progression=progression, epoch=epoch), step=step)
    fixed = extract_program(text, ctx.problem.entry_point)
    ctx.event(ProgramCandidate(step=step, agent=AGENT, progression=progression, program=fixed))
    return fixed
