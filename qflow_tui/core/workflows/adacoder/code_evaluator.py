"""AdaCoder's Code Evaluator (Zhu et al., IV-C, Algorithm 2): a script agent
that runs the sample tests in the sandbox and says what went wrong.

Algorithm 2 compiles the code, appends the sample tests and executes the
whole in a try-except block: its error information is the message of the
first exception raised (``err.message``), the compiler's or the first failing
test's, and nothing about the tests after it. That is the default here. The
setting ``per_test_feedback`` (off by default; not in the paper) gives instead
every failing test with the value the function returned and the pass count.
"""

from __future__ import annotations

from ...agents.test_executor import execute_tests, execution_feedback
from ...context import RunContext
from ...problem import Problem
from ...sandbox.report import SandboxReport
from ...steps import StepOutcome
from . import PER_TEST_FEEDBACK

AGENT = "code_evaluator"


def error_message(report: SandboxReport, problem: Problem | None = None) -> str:
    """Algorithm 2's error information: the message of the first exception the
    code followed by its sample tests would raise. A bare ``assert`` has an
    empty message, so the assert that failed is named, as its traceback would.
    On a stdin/stdout problem the first failing sample test is shown as its
    input, its expected output and what the program printed (or its error)."""
    if report.load_error:
        return report.load_error.splitlines()[0]
    if problem is not None and problem.is_io:
        first = next((r for r in report.results if r.status != "pass"), None)
        if first is None:
            return ""
        only = SandboxReport(results=[first], isolation=report.isolation)
        return execution_feedback(only, problem).rsplit("\n(", 1)[0].rstrip()
    for r in report.results:
        if r.status == "fail":
            return f"AssertionError (failed: {r.test})"
        if r.status == "timeout":
            return f"TimeoutError: the test did not finish in time ({r.test})"
        if r.status == "error":
            head = (r.error or "error").splitlines()[0]
            return f"{head} (in: {r.test})"
    return ""


async def evaluate(ctx: RunContext, code: str, s: StepOutcome) -> tuple[bool, str]:
    """Algorithm 2 on ``code``: success, or the error information."""
    report = await execute_tests(
        ctx, code, ctx.problem.test_sources, purpose="adacoder", agent=AGENT, step=s.name, progression=0
    )
    ok = report.load_error is None and report.total > 0 and report.passed == report.total
    s.outcome = "accepted" if ok else "rejected"
    s.detail = (s.detail + "; " if s.detail else "") + f"{report.passed}/{report.total} sample tests pass"
    if ok:
        return True, ""
    if PER_TEST_FEEDBACK.of(ctx.config):
        return False, execution_feedback(report, ctx.problem)
    return False, error_message(report, ctx.problem) or "no sample test ran"
