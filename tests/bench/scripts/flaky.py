"""A script model for the bench tests: the canonical solution, except that the
problems named in the file given by QFLOW_TEST_FAIL_FILE fail as a provider
would (a "529 overloaded"), and those in QFLOW_TEST_HANG_FILE hang until
cancelled. Both are read at every call, so a test can change them between a
run and its resume."""

import asyncio
import os
from pathlib import Path

from qflow_tui.core.bench.datasets import find_problem_in
from qflow_tui.core.llm import LLMError


def _named(var):
    path = os.environ.get(var)
    if not path or not Path(path).exists():
        return set()
    return set(Path(path).read_text().split())


async def respond(request):
    text = "\n".join(m["content"] for m in request["messages"])
    bp = find_problem_in(text)
    pid = bp.id
    if pid in _named("QFLOW_TEST_FAIL_FILE"):
        raise LLMError("the provider is overloaded (529); try again later", status=529, retryable=True)
    if pid in _named("QFLOW_TEST_HANG_FILE"):
        await asyncio.sleep(3600)
    return "```python\n" + bp.reference.strip() + "\n```"
