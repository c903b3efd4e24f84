"""What every agent is shown of the problem besides its statement."""

from __future__ import annotations

from ..context import RunContext
from ..problem import TestCase
from ..setup_code import shown_setup


def tests_text(ctx: RunContext) -> str:
    """The visible tests as every agent is shown them, after the test setup they
    run after (MBPP's ``test_setup_code``) when the problem has one."""
    if ctx.problem.is_io:
        return io_tests_text(ctx.problem.tests)
    tests = "\n".join(ctx.problem.test_sources)
    setup = shown_setup(ctx.problem)
    return f"# test setup, run before the tests:\n{setup}\n\n{tests}" if setup else tests


#: The most of one I/O test's input or output shown to an agent (characters).
IO_SHOWN_CHARS = 4000


def io_tests_text(tests: list[TestCase]) -> str:
    """A stdin/stdout problem's tests as agents see them: each an ``Input``
    block and an ``Output`` block (the paste format), long ones cut short."""
    if not tests:
        return "(no sample tests are given: the statement's examples are all there is)"

    def block(text: str | None) -> str:
        text = text or ""
        return text[:IO_SHOWN_CHARS].rstrip("\n") + ("\n[... cut]" if len(text) > IO_SHOWN_CHARS else "")

    return "\n\n".join(f"Input {n}\n{block(t.input)}\nOutput {n}\n{block(t.output)}" for n, t in enumerate(tests, 1))
