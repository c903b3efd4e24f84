"""One resolver for every way a problem comes in (core/resolve.py): a judge's
page is a stdin/stdout problem with its samples whether it is a file given to
`qflow solve`, to the app or to its Load field, or pasted; benchmark ids of any
dataset whose data ships, a plugin's too; one line for what makes no problem."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qflow_tui.core.bench import sources
from qflow_tui.core.problem import Problem
from qflow_tui.core.resolve import (
    Unresolved,
    form_texts,
    plain_markdown,
    problem_from_text,
    resolve_problem,
)
from tests.helpers import plugin_env, qflow, run_with

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "tests" / "data" / "judge" / "page.txt"
PAGE_MD = ROOT / "tests" / "data" / "judge" / "page.md"
TINYSET = ROOT / "tests" / "data" / "plugin" / "qflow-tinyset"
CODECONTESTS = ROOT / "tests" / "data" / "datasets" / "codecontests-mini.jsonl"
SAMPLES = [("1 2\n", "3\n"), ("10 -4\n", "6\n")]


def _pairs(problem: Problem | Unresolved) -> list[tuple[str | None, str | None]]:
    assert isinstance(problem, Problem), problem
    assert problem.is_io
    return [(t.input, t.output) for t in problem.tests]


def test_a_judges_page_is_one_stdin_stdout_problem_however_it_comes_in() -> None:
    from qflow_tui.commands.app import problem_texts
    from qflow_tui.commands.solve import load_problem

    text = PAGE.read_text(encoding="utf-8")
    from_file = resolve_problem(str(PAGE))
    assert _pairs(from_file) == SAMPLES
    assert isinstance(from_file, Problem)
    # The page's own Input and Output sections describe the format: they stay in the statement.
    assert "Input is given from Standard Input" in from_file.statement and "Sample" not in from_file.statement
    assert _pairs(problem_from_text(text, "")) == SAMPLES  # pasted, no test typed
    assert _pairs(problem_from_text(text, "", kind="io")) == SAMPLES
    assert _pairs(load_problem(str(PAGE), None, None)) == SAMPLES  # qflow solve --problem page.txt
    statement, tests, entry = problem_texts(str(PAGE), None)  # qflow --problem page.txt
    assert entry is None and statement == from_file.statement
    assert _pairs(problem_from_text(statement or "", tests or "")) == SAMPLES
    assert _pairs(resolve_problem(str(PAGE_MD))) == SAMPLES  # the same page in markdown


def test_a_page_whose_samples_do_not_read_says_so_in_one_line() -> None:
    found = problem_from_text("Print a + b.\nSample Input 1\n1 2\n", "")
    assert isinstance(found, Unresolved) and found.samples and found.where == "statement"
    assert "stdin/stdout" in found.message and "no Output block" in found.message and "\n" not in found.message


def test_benchmark_ids_files_and_json() -> None:
    humaneval = resolve_problem("humaneval/12")
    assert isinstance(humaneval, Problem) and humaneval.entry_point == "longest"
    mbpp = resolve_problem("mbpp/11")
    assert isinstance(mbpp, Problem) and mbpp.task_id == "mbpp/11"
    add_two = resolve_problem(str(ROOT / "docs" / "examples" / "add-two.json"))
    assert _pairs(add_two) == SAMPLES and isinstance(add_two, Problem) and add_two.time_limit == 2
    assert not add_two.statement.lstrip().startswith("{")  # the JSON is read, not shown as the statement
    from qflow_tui.commands.app import problem_texts

    statement, tests, _ = problem_texts(str(ROOT / "docs" / "examples" / "add-two.json"), None)  # qflow --problem
    assert statement == add_two.statement and tests is not None and tests.startswith("Input 1\n1 2\nOutput 1\n3")
    assert problem_texts("humaneval/12", None)[2] == "longest"
    local = resolve_problem("codecontests/0", dataset_file=CODECONTESTS)
    assert isinstance(local, Problem) and local.is_io
    not_shipped = resolve_problem("codecontests/0")
    assert isinstance(not_shipped, Unresolved) and "--dataset-file FILE" in not_shipped.message


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("nope.txt", "problem file nope.txt: no such file"),
        ("nope/1", "'nope' is not a dataset installed"),
        ("mbpp/99999", "mbpp/99999: no such problem"),
        (str(ROOT / "docs" / "examples" / "my-dataset.jsonl"), "holds 3 problems"),
        ("", "give a problem"),
    ],
)
def test_what_makes_no_problem_is_one_line(spec: str, words: str) -> None:
    found = resolve_problem(spec)
    assert isinstance(found, Unresolved) and words in found.message and "\n" not in found.message


def test_a_statement_without_tests_is_kept_for_the_form(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_text("Add two numbers.\n", encoding="utf-8")
    found = resolve_problem(str(path))
    assert isinstance(found, Unresolved) and found.statement.strip() == "Add two numbers." and found.where == "tests"


def test_markdown_and_form_texts(tmp_path: Path) -> None:
    assert plain_markdown("## Sample Input 1\n```\n1 2\n```\n**Output**") == "Sample Input 1\n1 2\nOutput"
    path = tmp_path / "add.md"
    path.write_text("# Add\n\nAdd two numbers.\n\n```python\nassert add(1, 2) == 3\n```\n", encoding="utf-8")
    found = resolve_problem(str(path))
    assert isinstance(found, Problem) and found.entry_point == "add" and found.test_sources == ["assert add(1, 2) == 3"]
    statement, tests, entry = form_texts(found)
    assert (statement, tests, entry) == ("Add\n\nAdd two numbers.", "assert add(1, 2) == 3\n", "add")
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps({"statement": "Echo.", "tests": [{"input": "x", "output": "x"}]}) + "\n")
    assert _pairs(resolve_problem(str(one))) == [("x", "x")]


def test_a_shipped_plugin_dataset_is_solved_by_id(tinyset: Path) -> None:
    from qflow_tui.commands.solve import load_problem

    assert "tinyset" in sources.SOURCES.plugin_names()
    leap = load_problem("tinyset/leap", None, None)
    assert leap.task_id == "tinyset/leap" and [(t.input, t.output) for t in leap.tests] == [
        ("2000\n", "yes\n"),
        ("1900\n", "no\n"),
    ]
    by_index = resolve_problem("tinyset/1")
    assert isinstance(by_index, Problem) and by_index.task_id == "tinyset/double"


def test_qflow_solve_takes_a_shipped_plugin_datasets_id(tinyset: Path, tmp_path: Path) -> None:
    env = plugin_env(tinyset, plugin_timeout="60")
    env["PYTHONPATH"] = f"{tinyset}:{TINYSET}:{ROOT}"
    out = run_with(
        env,
        "solve",
        "--problem",
        "tinyset/leap",
        "--model",
        "script/tests/scripts/mbpp11.py",
        "--session-dir",
        str(tmp_path / "sessions"),
        "--json",
    )
    assert "not shipped" not in out.stderr and "Traceback" not in out.stderr, out.stderr
    session = json.loads(out.stdout)["session"]
    header = json.loads(Path(session).read_text(encoding="utf-8").splitlines()[0])
    assert header["problem"]["task_id"] == "tinyset/leap" and header["problem"]["kind"] == "io"


def test_qflow_solve_with_a_judges_page_needs_no_tests(tmp_path: Path) -> None:
    out = qflow(
        "solve",
        "--problem",
        str(PAGE),
        "--model",
        "script/tests/scripts/mbpp11.py",
        "--session-dir",
        str(tmp_path),
        "--json",
    )
    assert "--tests" not in out.stderr and "Traceback" not in out.stderr, out.stderr
    header = json.loads(Path(json.loads(out.stdout)["session"]).read_text(encoding="utf-8").splitlines()[0])
    assert [(t["input"], t["output"]) for t in header["problem"]["tests"]] == SAMPLES
