"""The datasets registered as plugins (qflow.datasets) and the new readers:
CodeContests, APPS, HumanEval-ET, MBPP-ET and qflow's own JSONL, from small
fixtures (tests/data/datasets/README.md says where each comes from)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from qflow_tui.core.bench.evaluate import Evaluator
from qflow_tui.core.bench.sources import apps_examples, load_dataset, load_from_source, sources
from qflow_tui.core.plugins import entry_points
from qflow_tui.core.problem import ProblemError

DATA = Path(__file__).parent.parent / "data" / "datasets"


def test_builtins_come_through_the_entry_point_group() -> None:
    names = {e.name for e in entry_points("qflow.datasets")}
    assert {"humaneval", "mbpp", "humaneval-plus", "mbpp-plus", "codecontests", "apps"} <= names
    assert {"humaneval-et", "mbpp-et", "jsonl"} <= names
    assert set(sources()) >= names


def test_codecontests_visible_public_judged_all() -> None:
    bps = load_dataset("codecontests", path=DATA / "codecontests-mini.jsonl")
    assert [bp.id for bp in bps] == ["codecontests/0", "codecontests/1", "codecontests/2"]
    first = bps[0]
    assert first.problem.kind == "io" and [(t.input, t.output) for t in first.problem.tests] == [("1 2\n", "3\n")]
    assert first.io_tests is not None and len(first.io_tests) == 4  # public + private + generated
    assert first.problem.time_limit == 2.0 and first.problem.memory_mb == 256
    assert bps[1].problem.time_limit == 1.5
    assert bps[2].problem.time_limit is None and bps[2].problem.memory_mb is None
    # The 0-based index and the problem's name both pick it.
    by_name = load_dataset("codecontests", path=DATA / "codecontests-mini.jsonl", ids=["1000_B. Average"])
    assert by_name[0].id == "codecontests/1"


def test_apps_standard_input_and_call_based() -> None:
    bps = load_dataset("apps", path=DATA / "apps-mini.jsonl")
    std, call, comp = bps
    assert std.problem.kind == "io" and [(t.input, t.output) for t in std.problem.tests] == [
        ("2 3\n", "6\n"),
        ("0 5\n", "0\n"),
    ]
    assert std.compare == "apps" and std.io_tests is not None and len(std.io_tests) == 3
    assert call.problem.kind == "function" and call.problem.entry_point == "double" and not call.problem.tests
    assert call.call_tests == [([1], [2]), ([5], [10])]
    assert [(t.input, t.output) for t in comp.problem.tests] == [("3 1 2\n", "1\n2\n3\n")]
    assert [bp.id for bp in load_dataset("apps-interview", path=DATA / "apps-mini.jsonl")] == ["apps/4001"]
    assert apps_examples("no examples here") == []


def test_et_sets_show_the_original_tests_and_judge_the_extended() -> None:
    he = load_dataset("humaneval-et", path=DATA / "humaneval-et-mini.jsonl")
    assert [bp.id for bp in he] == ["humaneval-et/0", "humaneval-et/2"]
    assert not he[0].check_src and len(he[0].eval_tests) == 3
    assert "candidate(" not in " ".join(he[0].eval_tests)  # read as the function under test
    mb = load_dataset("mbpp-et", path=DATA / "mbpp-et-mini.jsonl")
    assert [bp.id for bp in mb] == ["mbpp-et/11", "mbpp-et/12"]
    assert len(mb[0].problem.tests) == 3 and len(mb[0].eval_tests) == 5


def test_own_jsonl_and_its_errors(tmp_path: Path) -> None:
    bps = load_dataset("jsonl", path=DATA / "jsonl-mini.jsonl")
    assert [bp.id for bp in bps] == ["jsonl/add", "jsonl/lines", "jsonl/square"]
    assert bps[1].compare == "exact" and bps[2].problem.kind == "function"
    bad = tmp_path / "bad.jsonl"
    for line, msg in [
        ('{"task_id": "x", "statement": "s", "hidden": []}', "non-empty"),
        ('{"task_id": "x", "statement": "s", "hidden": [{"input": 1}]}', "hidden test"),
        ('{"task_id": "a/b", "statement": "s", "hidden": [{"input": "", "output": ""}]}', "without '/'"),
        ("not json", "line 1: not JSON"),
    ]:
        bad.write_text(line + "\n")
        with pytest.raises(ProblemError, match=msg):
            load_dataset("jsonl", path=bad)
    with pytest.raises(ProblemError, match="no local copy given; CodeContests is published"):
        load_from_source("codecontests", None)
    with pytest.raises(ProblemError, match="no such file"):
        load_dataset("apps", path=tmp_path / "missing.jsonl")


CC_SOLUTIONS = {
    "codecontests/0": "print(sum(map(int, input().split())))\n",
    "codecontests/1": "n = int(input())\nxs = list(map(int, input().split()))\nprint(sum(xs) / n)\n",
    "codecontests/2": "print('yes' if int(input()) % 2 == 0 else 'no')\n",
}


def _judge(bps, programs):
    ev = Evaluator()

    async def go():
        return [await ev.evaluate(bp, programs[bp.id]) for bp in bps]

    return asyncio.run(go())


def test_judged_as_the_harnesses_judge() -> None:
    cc = load_dataset("codecontests", path=DATA / "codecontests-mini.jsonl")
    verdicts = _judge(cc, CC_SOLUTIONS)
    assert [v.status for v in verdicts] == ["pass", "pass", "pass"], [v.detail for v in verdicts]
    # Right on the public test, wrong on a hidden one: fails.
    wrong = dict(
        CC_SOLUTIONS, **{"codecontests/0": "a, b = map(int, input().split())\nprint(3 if a == 1 else a - b)\n"}
    )
    assert _judge(cc[:1], wrong)[0].status == "fail"
    apps = load_dataset("apps", path=DATA / "apps-mini.jsonl")
    good = {
        "apps/4000": "a, b = map(int, input().split())\nprint(a * b)\n",
        "apps/4001": "def double(x):\n    return 2 * x\n",
        "apps/4002": "for x in sorted(map(int, input().split())):\n    print(x)\n",
    }
    assert [v.status for v in _judge(apps, good)] == ["pass", "pass", "pass"]
    assert _judge(apps[1:2], {"apps/4001": "def double(x):\n    return x\n"})[0].status == "fail"
    et = load_dataset("mbpp-et", path=DATA / "mbpp-et-mini.jsonl")
    refs = {bp.id: bp.reference for bp in et}
    assert [v.status for v in _judge(et, refs)] == ["pass", "pass"]
    he = load_dataset("humaneval-et", path=DATA / "humaneval-et-mini.jsonl")
    assert [v.status for v in _judge(he, {bp.id: bp.reference for bp in he})] == ["pass", "pass"]
    own = load_dataset("jsonl", path=DATA / "jsonl-mini.jsonl")
    progs = {
        "jsonl/add": "print(sum(map(int, input().split())))\n",
        "jsonl/lines": "import sys\nprint(len(sys.stdin.readlines()))\n",
        "jsonl/square": "def square(x):\n    return x * x\n",
    }
    assert [v.status for v in _judge(own, progs)] == ["pass", "pass", "pass"]


def test_example_dataset_in_docs_matches_the_fixture() -> None:
    docs = Path(__file__).parent.parent.parent / "docs" / "examples" / "my-dataset.jsonl"
    assert [json.loads(x) for x in docs.read_text().splitlines()] == [
        json.loads(x) for x in (DATA / "jsonl-mini.jsonl").read_text().splitlines()
    ]
