"""``qflow bench export`` of stdin/stdout benches, in the files the datasets'
own tools read: APPS's all_codes.json (eval/test_one_solution.py) and
CodeContests's problem name + ContestProblem.Solution lines; and the refusal,
in one line, of any format whose tool would judge the programs on other tests
than the bench did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import qflow

ROOT = Path(__file__).parent.parent
MODEL = ROOT / "bench" / "scripts" / "io_answers.py"
DATA = ROOT / "data" / "datasets"

CC = {
    "print a + b": "```python\nprint(sum(map(int, input().split())))\n```",
    "Print their average": "```python\nn = int(input())\nprint(sum(map(int, input().split())) / n)\n```",
    "print YES if it is even": "```python\nprint('NO')\n```",
}
APPS = {
    "Print their product": "```python\na, b = map(int, input().split())\nprint(a * b)\n```",
    "double(x)": "```python\ndef double(x):\n    return 2 * x\n```",
    "print them sorted": "```python\ninput()\nprint(*sorted(map(int, input().split())), sep='\\n')\n```",
}


def _bench(tmp_path: Path, dataset: str, answers: dict[str, str]) -> Path:
    (tmp_path / f"{dataset}.json").write_text(json.dumps(answers), encoding="utf-8")
    out = tmp_path / dataset
    done = qflow(
        "bench", "--dataset", dataset, "--dataset-file", str(DATA / f"{dataset}-mini.jsonl"),
        "--model", f"script/{MODEL}", "--workflow", "zeroshot", "--out", str(out),
        env={"QFLOW_TEST_ANSWERS": str(tmp_path / f"{dataset}.json")}, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def benches(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("io-exports")
    return {"codecontests": _bench(tmp, "codecontests", CC), "apps": _bench(tmp, "apps", APPS)}


def _one_line_refusal(done, words: str) -> None:
    assert done.returncode != 0
    assert words in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_apps_export_is_what_its_eval_reads(benches) -> None:
    folder = benches["apps"]
    done = qflow("bench", "export", str(folder), "--format", "apps")
    assert done.returncode == 0, done.stderr
    dest = Path(done.stdout.strip())
    assert dest == folder / "all_codes.json"
    codes = json.loads(dest.read_text())
    # test_one_solution.py: codes[str(index)], a program or a list of programs per problem.
    assert sorted(codes) == ["4000", "4001", "4002"]
    assert all(isinstance(v, list) and len(v) == 1 and isinstance(v[0], str) for v in codes.values())
    assert "print(a * b)" in codes["4000"][0] and "def double" in codes["4001"][0]
    assert "test_one_solution.py --save" in done.stderr


def test_codecontests_export_names_each_problem(benches, tmp_path) -> None:
    dest = tmp_path / "cc.jsonl"
    done = qflow("bench", "export", str(benches["codecontests"]), "--format", "codecontests", "--out", str(dest))
    assert done.returncode == 0, done.stderr
    lines = [json.loads(x) for x in dest.read_text().splitlines()]
    names = [json.loads(x)["name"] for x in (DATA / "codecontests-mini.jsonl").read_text().splitlines()]
    assert [x["name"] for x in lines] == names
    assert all(x["solution"]["language"] == "PYTHON3" for x in lines)
    assert "sum(map(int, input().split())) / n" in lines[1]["solution"]["solution"]


def test_formats_that_would_judge_differently_are_refused(benches) -> None:
    cc, apps = benches["codecontests"], benches["apps"]
    _one_line_refusal(qflow("bench", "export", str(cc), "--format", "apps"), "use --format codecontests")
    _one_line_refusal(qflow("bench", "export", str(apps), "--format", "codecontests"), "use --format apps")
    # evalplus would write Mbpp ids for these problems and judge them on MBPP's tests.
    _one_line_refusal(qflow("bench", "export", str(cc), "--format", "evalplus"), "use --format codecontests")
    _one_line_refusal(qflow("bench", "export", str(apps), "--format", "human-eval"), "use --format apps")
    _one_line_refusal(
        qflow("bench", "export", str(apps), "--format", "apps", "--convention", "solution"), "--convention"
    )


def test_no_reference_tool_judges_the_et_sets(tmp_path) -> None:
    from qflow_tui.core.bench.export import ExportError, refuse_other_tests
    from qflow_tui.core.bench.report import BenchData

    for dataset in ("humaneval-et", "mbpp-et", "jsonl"):
        data = BenchData(tmp_path, {"dataset": dataset}, [])
        for fmt in ("evalplus", "human-eval", "apps", "codecontests"):
            with pytest.raises(ExportError, match="no reference tool judges"):
                refuse_other_tests(data, fmt)
    refuse_other_tests(BenchData(tmp_path, {"dataset": "humaneval-plus"}, []), "evalplus")
    refuse_other_tests(BenchData(tmp_path, {"dataset": "apps-interview"}, []), "apps")
