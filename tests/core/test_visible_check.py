"""The final program on the visible tests, after the workflow decided (issue 57):
run in the sandbox, told in one line, recorded as a typed event, and never
changing the run's outcome."""

from __future__ import annotations

import pytest

from qflow_tui.core.config import RunConfig
from qflow_tui.core.events import RunFinished, VisibleTestsRun
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.problem import make_io_problem, make_problem
from qflow_tui.core.visible_check import run_visible_tests, visible_line
from qflow_tui.core.workflow_run import run_workflow
from qflow_tui.data.demo import responder
from tests.helpers import TestSandbox

SUM = make_io_problem("Print the sum of two integers.", [("1 2\n", "3\n"), ("10 -4\n", "6\n")])
NEVER_READS = "def add(a, b):\n    return a + b\n"


async def line_for(program: str, problem=SUM) -> str:
    event = await run_visible_tests(TestSandbox(), problem, program)  # type: ignore[arg-type]
    assert event is not None
    return visible_line(event)


@pytest.mark.parametrize(
    ("program", "line"),
    [
        (NEVER_READS, "stdin/stdout problem · 0/2 visible tests pass: it never read its input"),
        ("a, b = map(int, input().split())\nprint(a - b)\n", "stdin/stdout problem · 0/2 visible tests pass: wrong output"),
        ("print(sum(map(int, input().split()))\n", "stdin/stdout problem · 0/2 visible tests pass: it does not parse"),
        ("print(sum(map(int, input().split())))\n", "stdin/stdout problem · 2/2 visible tests pass"),
        ("a, b = map(int, input().split())\nprint(a + b if a < 5 else 0)\n", "stdin/stdout problem · 1/2 visible tests pass: wrong output"),
    ],
)  # fmt: skip
async def test_a_stdin_stdout_program_is_told_how_it_did_on_the_samples(program: str, line: str) -> None:
    assert (await line_for(program)).startswith(line)


async def test_a_function_problem_counts_its_asserts() -> None:
    problem = make_problem("Add two numbers.", "assert add(1, 2) == 3\nassert add(2, 2) == 4\nassert add(0, 0) == 1\n")
    assert await line_for(NEVER_READS, problem) == "2/3 visible tests pass"


async def test_no_program_no_line() -> None:
    assert await run_visible_tests(TestSandbox(), SUM, "  \n") is None  # type: ignore[arg-type]


@pytest.mark.parametrize("workflow", ["qualityflow", "zeroshot"])
async def test_the_run_records_it_before_its_end_and_its_outcome_stands(tmp_path, workflow: str) -> None:
    """The demo model writes MBPP 11's function whatever the problem: on a
    stdin/stdout problem it never reads its input. The workflow's outcome is
    the same with the visible run as without it."""
    config = RunConfig(model="script/demo", workflow=workflow)
    outcomes = []
    for visible in (False, True):
        events: list = []
        client = ScriptClient.from_function(responder.respond, name="demo")
        outcome = await run_workflow(
            SUM,
            config,
            client=client,
            sandbox=TestSandbox(),  # type: ignore[arg-type]
            sinks=[events.append],
            session_dir=tmp_path,
            visible_run=visible,
        )
        outcomes.append((outcome.outcome, outcome.final_program))
        runs = [e for e in events if isinstance(e, VisibleTestsRun)]
        if not visible:
            assert runs == []
            continue
        assert [type(e) for e in events[-2:]] == [VisibleTestsRun, RunFinished]
        (run,) = runs
        assert (run.problem_kind, run.passed, run.total, run.never_read) == ("io", 0, 2, 2)
        assert run.program == outcome.final_program
        assert visible_line(run) == "stdin/stdout problem · 0/2 visible tests pass: it never read its input"
    assert outcomes[0] == outcomes[1]


#: Each built-in workflow's final program with tests/scripts/sum_io.py, on its three samples.
SUM_IO_PASSED = {"qualityflow": 3, "agentcoder": 3, "codetree": 3, "adacoder": 3, "zeroshot": 2}


@pytest.mark.parametrize("workflow", list(SUM_IO_PASSED))
async def test_every_workflow_tells_its_final_program_on_the_samples(tmp_path, workflow: str) -> None:
    import importlib.util
    from pathlib import Path

    from qflow_tui.core.problem import parse_io_tests

    path = Path(__file__).parents[1] / "scripts" / "sum_io.py"
    spec = importlib.util.spec_from_file_location("sum_io_visible", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    problem = make_io_problem(module.STATEMENT, parse_io_tests(module.SAMPLES))
    config = RunConfig(model="script/sum_io", workflow=workflow)
    events: list = []
    await run_workflow(
        problem,
        config.replace(prompts=2) if workflow == "qualityflow" else config,
        client=ScriptClient.from_function(module.respond, name="sum_io"),
        sandbox=TestSandbox(),  # type: ignore[arg-type]
        sinks=[events.append],
        session_dir=tmp_path,
        visible_run=True,
    )
    (run,) = [e for e in events if isinstance(e, VisibleTestsRun)]
    passed = SUM_IO_PASSED[workflow]
    want = f"stdin/stdout problem · {passed}/3 visible tests pass" + ("" if passed == 3 else ": wrong output")
    assert visible_line(run) == want
