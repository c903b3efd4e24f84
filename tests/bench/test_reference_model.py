"""``--model reference`` (issue 54): a built-in model that answers a problem
with the reference solution its dataset declares, for the sets qflow ships,
a plugin's shipped set and a local copy, under every built-in workflow, for
function and stdin/stdout problems; a problem without one is one line."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from qflow_tui.core.bench import sources
from qflow_tui.core.bench.bench_runner import BenchRunner, BenchSpec
from qflow_tui.core.bench.datasets import load_bench_problem
from qflow_tui.core.bench.reference import reference_answer
from qflow_tui.core.config import RunConfig
from qflow_tui.core.llm import LLMError, make_client, split_model_name
from qflow_tui.core.llm.base import LLMRequest
from qflow_tui.core.llm.catalog import table_models
from qflow_tui.core.llm.prices import price_of
from qflow_tui.core.problem import make_problem
from qflow_tui.core.running import running_problem
from qflow_tui.core.workflow_run import RunError, run_workflow
from tests.helpers import ROOT, plugin_env, run_with

BUILT_IN_WORKFLOWS = ("zeroshot", "qualityflow", "agentcoder", "codetree", "adacoder")


def _solve(problem_id: str, workflow: str):
    bp = load_bench_problem(problem_id)
    config = RunConfig(model="reference", workflow=workflow)
    return bp, asyncio.run(run_workflow(bp.problem, config, record=False))


def test_reference_is_named_alone_listed_and_free() -> None:
    assert split_model_name("reference") == ("reference", "")
    assert "reference" in [k.name for k in table_models({})]
    price = price_of("reference", {})
    assert price is not None and price.input == price.output == 0
    with pytest.raises(LLMError, match="takes no name"):
        make_client("reference/humaneval")


def test_qflow_solve_on_humaneval_0_accepts_the_reference() -> None:
    bp, outcome = _solve("humaneval/0", "qualityflow")
    assert outcome.outcome == "accepted"
    assert "def has_close_elements" in outcome.final_program
    assert bp.reference.strip().splitlines()[-1].strip() in outcome.final_program


@pytest.mark.parametrize("workflow", BUILT_IN_WORKFLOWS)
def test_every_built_in_workflow_ends_with_the_reference(workflow: str) -> None:
    bp, outcome = _solve("mbpp/11", workflow)
    lines = [line.rstrip() for line in outcome.final_program.strip().splitlines()]
    assert lines == [line.rstrip() for line in bp.reference.strip().splitlines()]


def test_a_call_about_a_visible_test_is_answered_with_that_test() -> None:
    problem = load_bench_problem("humaneval/0").problem
    test = problem.test_sources[0]
    answer = reference_answer(problem, test)
    assert f"<test_case>\n{test}\n</test_case>" in answer


def test_a_problem_without_a_dataset_or_a_reference_is_one_line(tmp_path: Path) -> None:
    plain = make_problem("def f(x):\n    return x\n", "assert f(1) == 1")
    with pytest.raises(RunError) as caught:
        asyncio.run(run_workflow(plain, RunConfig(model="reference", workflow="zeroshot"), record=False))
    assert "names no dataset" in str(caught.value) and "\n" not in str(caught.value)
    copy = tmp_path / "mine.jsonl"
    copy.write_text(
        json.dumps({"task_id": "one", "statement": "Print 1.", "hidden": [{"input": "", "output": "1\n"}]}) + "\n"
    )
    (bp,) = sources.load_dataset("jsonl", path=copy)
    with pytest.raises(RunError) as caught:
        asyncio.run(run_workflow(bp.problem, RunConfig(model="reference", workflow="zeroshot"), record=False))
    message = str(caught.value)
    assert message.startswith("jsonl/one: its dataset declares no reference") and "\n" not in message


def test_a_local_copys_reference_answers_its_problems(tmp_path: Path) -> None:
    copy = tmp_path / "mine.jsonl"
    record = {
        "task_id": "hello",
        "statement": "Print hello.",
        "hidden": [{"input": "", "output": "hello\n"}],
        "reference": "print('hello')\n",
    }
    copy.write_text(json.dumps(record) + "\n")
    spec = BenchSpec("jsonl", RunConfig(model="reference", workflow="zeroshot"), dataset_file=str(copy))
    records = asyncio.run(BenchRunner(spec, tmp_path / "bench").run())
    assert [(r["id"], r["passed"]) for r in records] == [("jsonl/hello", True)]


def test_a_jsonl_reference_must_be_text(tmp_path: Path) -> None:
    copy = tmp_path / "mine.jsonl"
    copy.write_text(
        json.dumps({"task_id": "x", "statement": "s", "hidden": [{"input": "", "output": ""}], "reference": 3})
    )
    with pytest.raises(sources.ProblemError, match="'reference' must be the text"):
        sources.load_dataset("jsonl", path=copy)


def test_qflow_bench_passes_a_shipped_plugin_dataset_with_its_references(tinyset: Path) -> None:
    """The user's view: a five-problem plugin dataset (four stdin/stdout, one
    function) installed beside qflow, benched with ``--model reference``."""
    env = plugin_env(tinyset, plugin_timeout="60")
    env["PYTHONPATH"] = f"{tinyset}:{ROOT / 'tests' / 'data' / 'plugin' / 'qflow-tinyset'}:{ROOT}"
    out = tinyset.parent / "bench"
    done = run_with(env, "bench", "--dataset", "tinyset", "--model", "reference", "--out", str(out))
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]
    assert len(lines) == 5 and all(line["passed"] for line in lines)
    assert "final pass@1 100.00% (5/5)" in (out / "report.md").read_text()


def test_a_stdin_stdout_problem_of_a_plugin_set_is_accepted(tinyset: Path) -> None:
    (bp,) = sources.load_dataset("tinyset", ids=["leap"])
    assert bp.problem.is_io
    config = RunConfig(model="reference", workflow="qualityflow")
    outcome = asyncio.run(run_workflow(bp.problem, config, record=False))
    assert outcome.outcome == "accepted" and outcome.accepted_at == "program_generator"
    assert outcome.final_program.strip() == bp.reference.strip()


def test_a_bench_of_a_shipped_set_answers_from_the_problems_it_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bench loads its problems once; the reference model answers each from
    those, not by building the problem again (0.7 s of a HumanEval-164 bench
    under the profiler before)."""
    from qflow_tui.core.bench import datasets, reference

    loaded = sources.load_dataset("humaneval", ids=["humaneval/5", "humaneval/7"])

    def built_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("the reference model built a problem the bench had loaded")

    monkeypatch.setattr(datasets, "load_bench_problem", built_again)
    for bp in loaded:
        assert reference.reference_of(bp.problem) == bp.reference


def test_the_reference_answers_in_one_delta() -> None:
    """The answer at once, as one delta: a stream of pieces with nothing
    between them shows the same, at ten events an answer."""
    problem = load_bench_problem("humaneval/0").problem
    deltas: list[str] = []
    token = running_problem.set(problem)
    try:
        client = make_client("reference")
        done = asyncio.run(
            client.complete(LLMRequest(agent="program_generator", system="s", messages=[]), deltas.append)
        )
    finally:
        running_problem.reset(token)
    assert deltas == [done.text] and "def has_close_elements" in done.text
