"""The final program on the problem's visible tests, once the workflow has
decided: run in the sandbox (never in this process) and told in one line, so a
person sees how the program did on the samples whatever the checker was (the
imagined checker never runs them). Information only: it changes no verdict and
no workflow ever reads it."""

from __future__ import annotations

from .events import VisibleTestsRun
from .iojudge import NEVER_READ, PRINTED_NOTHING, io_config, judge_io
from .problem import Problem
from .pyparse import parse
from .safe_text import one_line
from .sandbox import Sandbox
from .sandbox.report import SandboxReport
from .setup_code import sandbox_setup


async def run_visible_tests(sandbox: Sandbox, problem: Problem, program: str) -> VisibleTestsRun | None:
    """Run ``program`` on ``problem``'s visible tests in ``sandbox`` (a
    stdin/stdout problem as its judge runs it, a function's asserts as the
    checkers do) and return the event that tells it; None when there is no
    program or no visible test."""
    if not program.strip() or not problem.tests:
        return None
    report: SandboxReport
    if problem.is_io:
        box = Sandbox(io_config(sandbox.config, problem.time_limit, problem.memory_mb))
        report = await judge_io(box, program, problem.tests)
    else:
        report = await sandbox.run_tests(
            program, problem.test_sources, entry_point=problem.entry_point, setup=sandbox_setup(problem)
        )
    failing = [r for r in report.results if r.status != "pass"]
    return VisibleTestsRun(
        program=program,
        problem_kind="io" if problem.is_io else "function",
        passed=report.passed,
        total=report.total,
        results=[r.to_dict() for r in report.results],
        load_error=report.load_error,
        never_read=sum(1 for r in failing if (r.error or "").endswith(NEVER_READ)),
        printed_nothing=sum(1 for r in failing if (r.error or "").startswith(PRINTED_NOTHING)),
        timed_out=sum(1 for r in failing if r.status == "timeout"),
        isolation=report.isolation,
    )


def why_it_failed(e: VisibleTestsRun) -> str:
    """What every failing visible test had in common, in a few words, or ""."""
    failing = e.total - e.passed
    if failing <= 0:
        return ""
    try:
        parse(e.program)
    except SyntaxError as exc:
        return f"it does not parse (line {exc.lineno}: {one_line(exc.msg or 'invalid syntax', 40)})"
    if e.load_error:
        return "it fails as it loads"
    if e.timed_out == failing:
        return "it ran out of time"
    if e.never_read == failing:
        return "it never read its input"
    if e.printed_nothing == failing:
        return "it printed nothing"
    return "wrong output" if e.problem_kind == "io" else ""


def visible_line(e: VisibleTestsRun) -> str:
    """The one line a screen shows for ``e``: ``stdin/stdout problem · 0/2
    visible tests pass: it never read its input``, ``2/3 visible tests pass``."""
    line = f"{e.passed}/{e.total} visible tests pass"
    if why := why_it_failed(e):
        line += f": {why}"
    return f"stdin/stdout problem · {line}" if e.problem_kind == "io" else line
