"""The test executor: runs a program against tests in the sandbox and reports
the run as an event (AgentCoder's name for it; in QualityFlow it feeds the
self-debugger, and the relaxed ``python`` checker)."""

from __future__ import annotations

import ast

from ..context import RunContext
from ..events import SandboxRun
from ..iojudge import io_config, judge_io, parse_io_source, resolve_io_tests
from ..problem import Problem, TestCase
from ..safe_text import clean
from ..sandbox import Sandbox
from ..sandbox.report import SandboxReport, TestOutcome
from ..setup_code import sandbox_setup

#: Failing tests shown to the debugger at most, to keep prompts bounded.
MAX_FEEDBACK = 10


async def execute_tests(
    ctx: RunContext, program: str, tests: list[str], *, purpose: str, agent: str, step: str, progression: int | None
) -> SandboxReport:
    """Run ``program`` against ``tests`` (assert statements calling the
    problem's entry point, e.g. ``ctx.problem.test_sources``) in the sandbox,
    after the problem's own imports and test setup; the program never runs in
    this process. Every test is judged, a failing one included.

    The keywords are required and say where the run sits, as the ``sandbox_run``
    event it emits records them: ``purpose`` (why the tests ran, in a word of
    the workflow's own: ``visible``; QualityFlow's ``self_debug`` and
    ``after_debug`` mark runs before and after its debugger), ``agent`` (the role
    that runs the tests), ``step`` (the name of the step it runs in,
    ``s.name``) and ``progression`` (None for a step of the whole run).

    Returns the :class:`SandboxReport`: ``passed``, ``total``, ``all_passed``,
    ``load_error`` (the program could not load; every test then fails) and one
    :class:`TestOutcome` per test in ``results``; :func:`execution_feedback`
    puts the failures in words for a debugger's prompt."""
    report: SandboxReport
    if ctx.problem.is_io:
        # A stdin/stdout problem: each test is an input/output pair, run on
        # the whole program and compared in the app (core/iojudge.py).
        box = Sandbox(io_config(ctx.sandbox.config, ctx.problem.time_limit, ctx.problem.memory_mb))
        report = await judge_io(box, program, resolve_io_tests(ctx.problem, tests))
    else:
        # The statement's own imports come first, as in the reference evaluators.
        setup = sandbox_setup(ctx.problem)
        report = await ctx.sandbox.run_tests(program, tests, entry_point=ctx.problem.entry_point, setup=setup)
    ctx.event(
        SandboxRun(
            step=step,
            agent=agent,
            progression=progression,
            purpose=purpose,
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


#: The most of one I/O test's input, expected or printed output a debugger is shown (characters).
IO_FEEDBACK_CHARS = 1000


def execution_feedback(report: SandboxReport, problem: Problem | None = None) -> str:
    """What a debugger is told: the load error, or each failing test with the
    actual value or the error. An I/O test (given ``problem``, its own tests
    are found by their labels; a designed one reads back from its label) is
    shown as its input, its expected output and what the program printed."""
    if report.load_error:
        return f"The program fails to load: {report.load_error}"
    lines = []
    failing = [r for r in report.results if r.status != "pass"]
    known = {t.source: t for t in problem.tests} if problem is not None and problem.is_io else {}
    for r in failing[:MAX_FEEDBACK]:
        pair = _io_pair(r.test, known)
        if pair is not None:
            lines.append(_io_failure(r, *pair))
        elif r.status == "fail" and r.test.startswith("input "):
            lines.append(f"{r.test}\n    -> failed: the program printed {r.actual} ({r.error})")
        elif r.status == "fail":
            lines.append(f"{r.test}\n    -> failed: the function returned {r.actual}")
        elif r.status == "timeout":
            lines.append(f"{r.test}\n    -> timed out (the function did not return in time)")
        else:
            lines.append(f"{r.test}\n    -> raised {r.error}")
    if len(failing) > MAX_FEEDBACK:
        lines.append(f"... and {len(failing) - MAX_FEEDBACK} more failing tests")
    lines.append(f"({report.passed} of {report.total} tests pass)")
    return "\n".join(lines)


def _io_pair(label: str, known: dict[str, TestCase]) -> tuple[str, str] | None:
    if not label.startswith("input "):
        return None
    test = known.get(label)
    if test is not None and test.input is not None and test.output is not None:
        return test.input, test.output
    return parse_io_source(label)


def _block(text: str) -> str:
    """One part of a failing test as a debugger reads it: the text as it is,
    or, when it holds control characters (a program's or a file's: they
    must not reach a terminal that shows the feedback), its Python literal,
    which names each one."""
    cut = text[:IO_FEEDBACK_CHARS]
    if clean(cut) != cut:
        body = f"(as a Python string, it holds control characters) {cut!r}"
    else:
        body = cut.rstrip("\n") if cut.strip() else "(nothing)"
    return body + ("\n[... cut]" if len(text) > IO_FEEDBACK_CHARS else "")


def _printed(actual: str | None) -> str | None:
    """What the program printed, from the outcome's ``actual`` (its repr, maybe cut short)."""
    if actual is None:
        return None

    cut = actual.endswith("…")
    # A repr cut short lacks its closing quote (and may end inside an escape).
    tries = [actual[:-1] + actual[:1], actual[:-2] + actual[:1], actual[:-4] + actual[:1]] if cut else [actual]
    for literal in tries:
        try:
            text = ast.literal_eval(literal)
            break
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
    else:
        return actual
    if not isinstance(text, str):
        return actual
    return text + ("\n[... cut]" if cut else "")


def _io_failure(r: TestOutcome, stdin: str, expected: str) -> str:
    head = f"Input:\n{_block(stdin)}\nExpected output:\n{_block(expected)}\n"
    printed = _printed(r.actual)
    if r.status == "fail":
        why = f" ({r.error})" if r.error and r.error != "wrong output" else ""
        return head + f"The program printed{why}:\n{_block(printed or '')}\n"
    if r.status == "timeout":
        return head + "The program did not finish in time.\n"
    return head + f"The program failed: {r.error or 'error'}\n"
