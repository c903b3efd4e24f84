"""Benchmark data: ids, visible tests from HumanEval's docstrings and MBPP's
test_list, and the canonical solutions passing their own visible tests."""

from __future__ import annotations

import ast
import asyncio

import pytest

from qflow_tui.core.bench.datasets import (
    MBPP_TEST_SPLIT,
    _check_asserts,
    _statements,
    load_bench_problem,
)
from qflow_tui.core.bench.sources import load_dataset
from qflow_tui.core.problem import ProblemError
from qflow_tui.core.sandbox import Sandbox, SandboxConfig


def test_dataset_sizes_and_ids():
    he = load_dataset("humaneval")
    assert [bp.id for bp in he] == [f"humaneval/{i}" for i in range(164)]
    mbpp = load_dataset("mbpp")
    assert [bp.id for bp in mbpp] == [f"mbpp/{i}" for i in MBPP_TEST_SPLIT]
    assert len(mbpp) == 500
    assert load_dataset("humaneval-plus", limit=2)[1].id == "humaneval-plus/1"
    assert load_dataset("mbpp-plus", limit=1)[0].id == "mbpp-plus/2"
    assert [bp.id for bp in load_dataset("mbpp", ids=["12", "mbpp/600"])] == ["mbpp/12", "mbpp/600"]
    with pytest.raises(ProblemError, match="not a mbpp problem"):
        load_dataset("mbpp", ids=["humaneval/1"])
    with pytest.raises(ProblemError, match="no such problem"):
        load_dataset("humaneval", ids=["999"])


# A ">>> f(x) == y" example with no output line used to become "assert f(x) == y == None".
DOCTEST_ONE_LINERS = {
    108: ["assert count_nums([]) == 0", "assert count_nums([-1, 11, -11]) == 1", "assert count_nums([1, 1, 2]) == 3"],
    128: ["assert prod_signs([1, 2, 2, -4]) == -9", "assert prod_signs([0, 1]) == 0", "assert prod_signs([]) == None"],
    145: ["assert order_by_points([1, 11, -1, -11, -12]) == [-1, -11, 1, -12, 11]", "assert order_by_points([]) == []"],
    156: [
        "assert int_to_mini_roman(19) == 'xix'",
        "assert int_to_mini_roman(152) == 'clii'",
        "assert int_to_mini_roman(426) == 'cdxxvi'",
    ],
    162: ["assert string_to_md5('Hello world') == '3e25960a79dbc69b674cd4ec67a72c62'"],
}


@pytest.mark.parametrize("number", sorted(DOCTEST_ONE_LINERS))
def test_one_line_doctest_examples(number):
    bp = load_bench_problem(f"humaneval/{number}")
    assert bp.visible_source == "docstring"
    assert bp.problem.test_sources == DOCTEST_ONE_LINERS[number]


def test_prose_examples_become_tests():
    assert (
        load_bench_problem("humaneval/151").problem.test_sources[0]
        == "assert double_the_difference([1, 3, 2, 0]) == 10"
    )
    assert (
        load_bench_problem("humaneval/112").problem.test_sources[0]
        == "assert reverse_delete('abcde', 'ae') == ('bcd', False)"
    )
    assert (
        load_bench_problem("humaneval/120").problem.test_sources[0] == "assert maximum([-3, -4, 5], 3) == [-4, -3, 5]"
    )
    assert load_bench_problem("humaneval/32").problem.test_sources[0] == "assert round(find_zero([1, 2]), 2) == -0.5"
    assert load_bench_problem("humaneval/76").problem.test_sources[0] == "assert is_simple_power(1, 4) == True"
    # A recurrence written with names is no test.
    assert all("n" not in t.split("==")[0] for t in load_bench_problem("humaneval/46").problem.test_sources)


def test_mbpp_visible_tests_are_test_list_with_setup():
    bp = load_bench_problem("mbpp/11")
    assert bp.problem.test_sources == bp.eval_tests
    assert len(bp.eval_tests) == 3
    with_setup = [bp for bp in load_dataset("mbpp") if bp.eval_setup]
    assert with_setup, "MBPP's test split has problems with test_setup_code"
    assert all(bp.problem.setup.startswith(bp.eval_setup) for bp in with_setup)


def test_every_humaneval_canonical_solution_passes_its_visible_tests():
    sandbox = Sandbox(SandboxConfig(timeout=10))
    problems = [bp for bp in load_dataset("humaneval") if bp.problem.tests]

    async def run_all():
        sem = asyncio.Semaphore(4)

        async def one(bp):
            async with sem:
                report = await sandbox.run_tests(
                    bp.reference, bp.problem.test_sources, entry_point=bp.problem.entry_point, setup=bp.problem.setup
                )
                return bp.id, report

        return await asyncio.gather(*(one(bp) for bp in problems))

    failures = {
        pid: [(r.test, r.status, r.actual, r.error) for r in report.results if r.status != "pass"]
        for pid, report in asyncio.run(run_all())
        if not report.all_passed
    }
    # The statements' own slips, shown as written (choosing visible tests with
    # the canonical solution's help would use the answer).
    assert set(failures) == {"humaneval/47", "humaneval/116", "humaneval/130", "humaneval/148"}
    assert [t for t, *_ in failures["humaneval/47"]] == ["assert median([-10, 4, 6, 1000, 10, 20]) == 15.0"]
    assert len(failures["humaneval/116"]) == 3
    assert [t for t, *_ in failures["humaneval/148"]] == ["assert bf('Earth', 'Mercury') == 'Venus'"]


def test_one_rule_decides_what_is_a_benchmark_id(tmp_path, monkeypatch):
    from qflow_tui.core.bench.datasets import is_benchmark_id

    assert is_benchmark_id("mbpp/11") and is_benchmark_id("HumanEval/0") and is_benchmark_id("mbpp-plus/2")
    assert not is_benchmark_id("mbpp/") and not is_benchmark_id("notes/11") and not is_benchmark_id("mbpp11")
    # A file of that name wins over the benchmark.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mbpp").mkdir()
    (tmp_path / "mbpp" / "11").write_text("a problem", encoding="utf-8")
    assert not is_benchmark_id("mbpp/11")


def test_the_statement_walk_finds_every_definition_where_ast_walk_does():
    """``_check_asserts`` looks for ``check`` among the statements alone; it must
    find the definitions ``ast.walk`` finds, in its order, however deep."""
    source = (
        "def check(candidate):\n    assert candidate(1) == 2\n    def check(c):\n        assert c(0) == 1\n"
        "if True:\n    def check(candidate):\n        assert candidate(5) == 6\n"
        "try:\n    pass\nexcept ValueError:\n    def check(candidate):\n        assert candidate(7) == 8\n"
        "match 1:\n    case 1:\n        def check(candidate):\n            assert candidate(9) == 10\n"
        "class K:\n    def check(self):\n        assert [x for x in (lambda: 1,)]\n"
        "x = [lambda: 0 for _ in range(2)]\n"
    )
    tree = ast.parse(source)
    walked = [n for n in ast.walk(tree) if isinstance(n, ast.stmt | ast.excepthandler | ast.match_case)]
    assert [n for n in _statements(tree) if n is not tree] == walked
    assert _check_asserts(source, "f") == [
        "assert f(1) == 2",
        "assert f(5) == 6",
        "assert f(7) == 8",
        "assert f(9) == 10",
    ]
