"""``--model reference``: a model that answers every call of a run with the
reference solution its dataset declares (:attr:`BenchProblem.reference`), as
EvalPlus checks its ground truth: a user checks a dataset's own tests against
its references, and sees a bench or a run work end to end without a key.

It is a provider like any other (``qflow.providers``, pyproject.toml), kept in
the bench layer because the datasets are: the run tells it which problem a call
is about (:data:`~qflow_tui.core.running.running_problem`), and it finds
that problem's reference by its id (``humaneval/0``, ``tinyset/leap``) among
the problems this process read (a ``--dataset-file`` copy), the sets qflow
ships and the datasets plugins ship. Every call gets the reference in a
fenced block, whatever the agent: an agent that asks for a program takes it,
the others (a test designer, a checker) find in it nothing of what they asked
for and go on as after a poor answer. It costs nothing.
"""

from __future__ import annotations

import asyncio
import time

from ..llm.base import Completion, DeltaCallback, LLMError, LLMRequest, estimated_completion
from ..llm.registry import ClientOptions, Provider
from ..problem import Problem, ProblemError
from ..running import running_problem

NAME = "reference"


def reference_of(problem: Problem) -> str:
    """The reference solution the dataset of ``problem`` declares for it.
    Raises :class:`LLMError` (fatal: every call of the run would fail the same
    way) with one line saying why there is none."""
    task_id = (problem.task_id or "").strip()
    if not task_id or "/" not in task_id:
        raise LLMError(
            "the reference model answers a dataset's problems only (give --problem DATASET/ID, "
            "e.g. humaneval/0), and this problem names no dataset",
            fatal=True,
            resumable=False,  # the problem decides it: a resume fails the same way
        )
    # The datasets' readers load with the first call, not with the provider:
    # the app reads every provider's entry point as it starts (about 50 ms).
    from . import sources

    known = sources.read_reference(task_id)
    if known is None:
        known = _looked_up(task_id)
    if not known.strip():
        raise LLMError(
            f"{task_id}: its dataset declares no reference solution, so the reference model has no "
            "answer for it (a dataset declares one in each BenchProblem's reference)",
            fatal=True,
            resumable=False,  # the problem decides it: a resume fails the same way
        )
    return known


def _looked_up(task_id: str) -> str:
    """The reference of ``task_id`` from the sets qflow ships or a plugin
    dataset that ships its data; '' when the dataset is neither."""
    from . import sources
    from .datasets import DATASETS, load_bench_problem

    name = task_id.partition("/")[0]
    try:
        if name in DATASETS:
            return load_bench_problem(task_id).reference
        found = sources.sources().get(name)
        if found is None or not found.shipped:
            return ""
        picked = sources.load_from_source(name, None, ids=[task_id])
    except ProblemError as exc:
        raise LLMError(f"the reference model cannot read {task_id}'s dataset: {exc}", fatal=True) from None
    return picked[0].reference if picked else ""


def reference_answer(problem: Problem, test: str | None = None) -> str:
    """What the reference model answers a call about ``problem`` with: the
    reference in a fenced block; for a call about one visible test (the
    imagined execution of a Code Quality Checker), that test completed in
    ``<test_case>`` tags instead (the assert as written; a stdin/stdout
    test's input and expected output), which says the reference passes it,
    as a dataset's reference does its own visible tests."""
    reference = reference_of(problem)
    if test:
        case = next((t for t in problem.tests if t.source == test), None)
        if problem.is_io and case is not None and case.output is not None:
            # A stdin/stdout test: the run the reference makes, as the checker reads one.
            return f"<test_case>\nInput:\n{case.input or ''}\nOutput:\n{case.output}\n</test_case>\n"
        return f"<test_case>\n{test.strip()}\n</test_case>\n"
    return "```python\n" + reference.strip() + "\n```\n"


class ReferenceClient:
    """The client of ``--model reference`` (see the module's docstring)."""

    name = NAME

    async def complete(self, request: LLMRequest, on_delta: DeltaCallback) -> Completion:
        start = time.perf_counter()
        problem = running_problem.get()
        if problem is None:
            raise LLMError("the reference model answers only within a run of a dataset's problem", fatal=True)
        text = reference_answer(problem, request.test)
        # The whole answer in one delta: a stream of pieces with nothing
        # between them but a turn of the event loop shows the same (the
        # answer at once) and made a bench's main thread handle ten events an
        # answer where one does.
        on_delta(text)
        await asyncio.sleep(0)  # concurrent calls interleave as streams do
        return estimated_completion(request, text, start)

    async def aclose(self) -> None:
        return None


def _factory(rest: str, options: ClientOptions) -> ReferenceClient:
    if rest:
        raise LLMError(f"reference/{rest}: the reference model takes no name; give --model reference", fatal=True)
    return ReferenceClient()


PROVIDER = Provider(NAME, _factory, NAME, free=True, alone=True)
"""``--model reference``: registered in pyproject.toml's ``qflow.providers``."""
