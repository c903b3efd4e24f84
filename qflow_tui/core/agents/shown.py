"""What every agent is shown of the problem besides its statement."""

from __future__ import annotations

from ..context import RunContext
from ..setup_code import shown_setup


def tests_text(ctx: RunContext) -> str:
    """The visible tests as every agent is shown them, after the test setup they
    run after (MBPP's ``test_setup_code``) when the problem has one."""
    tests = "\n".join(ctx.problem.test_sources)
    setup = shown_setup(ctx.problem)
    return f"# test setup, run before the tests:\n{setup}\n\n{tests}" if setup else tests
