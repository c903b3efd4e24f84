"""``qflow solve`` and ``qflow bench`` on stdin/stdout problems, end to end
through the CLI with a script model (tests/bench/scripts/io_answers.py)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import qflow

ROOT = Path(__file__).parent.parent
MODEL = ROOT / "bench" / "scripts" / "io_answers.py"
DATA = ROOT / "data" / "datasets"
DOCS = ROOT.parent / "docs" / "examples"

ANSWERS = {
    "print a + b": "```python\nprint(sum(map(int, input().split())))\n```",
    "Print their average": "```python\nn = int(input())\nprint(sum(map(int, input().split())) / n)\n```",
    "print YES if it is even": "```python\nprint('NO')\n```",
}


def _env(tmp_path: Path) -> dict[str, str]:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(ANSWERS), encoding="utf-8")
    return {"QFLOW_TEST_ANSWERS": str(answers)}


def _solve(tmp_path: Path, *args: str):
    return qflow(
        "solve", *args, "--model", f"script/{MODEL}", "--workflow", "zeroshot", "--json",
        "--session-dir", str(tmp_path / "s"), env=_env(tmp_path),
    )  # fmt: skip


def test_solve_a_problem_file(tmp_path: Path) -> None:
    done = _solve(tmp_path, "--problem", str(DOCS / "add-two.json"))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert "print(sum(map(int, input().split())))" in json.dumps(out)


def test_solve_a_pasted_statement_and_io_tests(tmp_path: Path) -> None:
    (tmp_path / "p.txt").write_text("Read a and b and print a + b.\n")
    (tmp_path / "t.txt").write_text("Input\n1 2\nOutput\n3\n")
    done = _solve(tmp_path, "--problem", str(tmp_path / "p.txt"), "--tests", str(tmp_path / "t.txt"))
    assert done.returncode == 0, done.stderr


def test_solve_a_dataset_problem_by_index_and_name(tmp_path: Path) -> None:
    for spec in ("codecontests/1", "codecontests/1000_B. Average"):
        done = _solve(tmp_path, "--problem", spec, "--dataset-file", str(DATA / "codecontests-mini.jsonl"))
        assert done.returncode == 0, done.stderr
        assert "sum(map(int, input().split())) / n" in done.stdout


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    cases = [
        (["--problem", "codecontests/7", "--dataset-file", str(DATA / "codecontests-mini.jsonl")], "no such problem"),
        (["--problem", "codecontests/0"], "--dataset-file"),
        (["--problem", "codecontests/0", "--dataset-file", str(tmp_path / "none.jsonl")], "no such file"),
    ]
    bad = tmp_path / "bad.json"
    bad.write_text('{"statement": "x", "tests": [{"input": "1"}]}')
    cases.append((["--problem", str(bad)], "test 1 must be an object"))
    for args, words in cases:
        done = _solve(tmp_path, *args)
        assert done.returncode != 0
        assert words in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_bench_codecontests_from_a_file(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    done = qflow(
        "bench", "--dataset", "codecontests", "--dataset-file", str(DATA / "codecontests-mini.jsonl"),
        "--model", f"script/{MODEL}", "--workflow", "zeroshot", "--out", str(out), env=_env(tmp_path), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert {r["id"]: r["passed"] for r in lines} == {
        "codecontests/0": True,
        "codecontests/1": True,
        "codecontests/2": False,  # prints NO whatever the input: fails the even case
    }
    table = qflow("bench", "table", str(out))
    assert table.returncode == 0, table.stderr
    header = next(line for line in table.stdout.splitlines() if line.startswith("| workflow"))
    assert header.endswith("| HumanEval+ plus | CodeContests |")  # CodeTree Table 2's column, where a bench ran it
    assert "**66.67** [20.8, 93.9] (3)" in table.stdout
    report = qflow("bench", "report", str(out))
    assert "Judged on: CodeContests's public, private and generated tests" in report.stdout
    unknown = qflow("bench", "--dataset", "nope", "--model", f"script/{MODEL}")
    assert unknown.returncode != 0 and "unknown dataset 'nope'" in unknown.stderr
