"""Benchmark problems (HumanEval, MBPP and their EvalPlus versions) as
:class:`Problem` objects, read from the gzip files shipped with the package
(``qflow_tui/data/benchmarks``, copied from the project's shared data with
their sources and licenses)."""

from __future__ import annotations

import ast
import gzip
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ...locations import package_data_dir
from ..problem import Problem, ProblemError, make_problem

#: Benchmark name -> (file, format).
DATASETS = {
    "humaneval": ("humaneval.jsonl.gz", "humaneval"),
    "humaneval-plus": ("humaneval-plus.jsonl.gz", "humaneval"),
    "mbpp": ("mbpp.jsonl.gz", "mbpp"),
    "mbpp-sanitized": ("mbpp-sanitized.json.gz", "mbpp-sanitized"),
    "mbpp-plus": ("mbpp-plus.jsonl.gz", "mbpp-plus"),
}

#: MBPP's standard test split (task ids 11-510).
MBPP_TEST_SPLIT = range(11, 511)


@dataclass
class BenchProblem:
    """A problem plus what is needed to evaluate a program against it."""

    problem: Problem
    eval_tests: list[str]
    """Evaluation asserts (HumanEval: the check function's asserts)."""
    eval_setup: str = ""
    reference: str = ""
    """The canonical solution (for checking the harness, never shown to agents)."""


def data_dir() -> Path:
    return package_data_dir() / "benchmarks"


@cache
def _records(name: str) -> tuple[dict[str, Any], ...]:
    file, _fmt = DATASETS[name]
    path = data_dir() / file
    if not path.exists():
        raise ProblemError(f"benchmark data {path} is missing; reinstall qflow-tui")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        if file.endswith(".json.gz"):
            return tuple(json.load(fh))
        return tuple(json.loads(line) for line in fh if line.strip())


_DOCTEST_RE = re.compile(r"^\s*>>>\s?(.*)$")


def _docstring_examples(prompt: str, entry_point: str) -> list[str]:
    """Asserts from ``>>> f(x)`` / expected-output pairs in a HumanEval prompt."""
    lines = prompt.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _DOCTEST_RE.match(lines[i])
        if m and entry_point + "(" in m.group(1):
            call = m.group(1).strip()
            expected_lines = []
            j = i + 1
            while j < len(lines) and not _DOCTEST_RE.match(lines[j]) and lines[j].strip() and '"""' not in lines[j]:
                expected_lines.append(lines[j].strip())
                j += 1
            expected = " ".join(expected_lines) or "None"
            test = f"assert {call} == {expected}"
            try:
                ast.parse(test)
                out.append(test)
            except SyntaxError:
                pass
            i = j
        else:
            i += 1
    return out


def _check_asserts(test_code: str, entry_point: str) -> list[str]:
    """The asserts of HumanEval's ``check(candidate)``, calling the entry point."""
    try:
        tree = ast.parse(test_code)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "check":
            for stmt in node.body:
                if isinstance(stmt, ast.Assert):
                    src = ast.unparse(stmt)
                    if "candidate(" in src:
                        out.append(src.replace("candidate(", f"{entry_point}("))
    return out


def _humaneval(rec: dict[str, Any]) -> BenchProblem:
    entry = rec["entry_point"]
    evals = _check_asserts(rec["test"], entry)
    visible = _docstring_examples(rec["prompt"], entry)
    if not visible and not evals:
        raise ProblemError(
            "its tests are randomized round trips with no fixed assert to show as a visible test; not supported"
        )
    if not visible:
        # No doctest examples: show the first evaluation assert, as is common
        # practice for HumanEval's "visible test".
        visible = evals[:1]
    problem = make_problem(rec["prompt"], "\n".join(visible), entry_point=entry, task_id=rec["task_id"])
    return BenchProblem(problem, evals, reference=rec["prompt"] + rec["canonical_solution"])


def _defined_entry(code: str, tests: list[str]) -> str | None:
    """The function the tests call among those the reference solution defines
    (MBPP names some functions after builtins, e.g. ``sum``, which detection skips)."""
    try:
        names = [n.name for n in ast.walk(ast.parse(code)) if isinstance(n, ast.FunctionDef)]
    except SyntaxError:
        return None
    for name in names[::-1]:
        if any(re.search(rf"\b{re.escape(name)}\s*\(", t) for t in tests):
            return name
    return None


def _mbpp(rec: dict[str, Any]) -> BenchProblem:
    tests = rec["test_list"]
    problem = make_problem(
        rec["text"],
        "\n".join(tests),
        entry_point=_defined_entry(rec["code"], tests),
        task_id=f"mbpp/{rec['task_id']}",
        setup=rec.get("test_setup_code") or "",
    )
    return BenchProblem(problem, list(tests), eval_setup=problem.setup, reference=rec["code"])


def _mbpp_sanitized(rec: dict[str, Any]) -> BenchProblem:
    tests = rec["test_list"]
    setup = "\n".join(rec.get("test_imports") or [])
    problem = make_problem(
        rec["prompt"],
        "\n".join(tests),
        entry_point=_defined_entry(rec["code"], tests),
        task_id=f"mbpp-sanitized/{rec['task_id']}",
        setup=setup,
    )
    return BenchProblem(problem, list(tests), eval_setup=problem.setup, reference=rec["code"])


def _mbpp_plus(rec: dict[str, Any]) -> BenchProblem:
    prompt = rec["prompt"]
    # The prompt ends with the original visible assert inside a docstring.
    visible = [line.strip() for line in prompt.splitlines() if line.strip().startswith("assert ")]
    statement = "\n".join(
        line for line in prompt.strip().strip('"').splitlines() if not line.strip().startswith("assert ")
    ).strip()
    problem = make_problem(
        statement or prompt, "\n".join(visible), entry_point=rec["entry_point"], task_id=rec["task_id"]
    )
    return BenchProblem(problem, list(visible), reference=rec["canonical_solution"])


_BUILDERS = {"humaneval": _humaneval, "mbpp": _mbpp, "mbpp-sanitized": _mbpp_sanitized, "mbpp-plus": _mbpp_plus}


def _key(rec: dict[str, Any]) -> str:
    tid = str(rec["task_id"])
    return tid.split("/")[-1]


def load_bench_problem(spec: str) -> BenchProblem:
    """``mbpp/11``, ``humaneval/12``, ``mbpp-plus/2``, ``humaneval-plus/0``."""
    name, sep, ident = spec.strip().partition("/")
    name = name.lower()
    if not sep or name not in DATASETS:
        raise ProblemError(f"unknown benchmark problem {spec!r}: use one of {', '.join(n + '/<id>' for n in DATASETS)}")
    for rec in _records(name):
        if _key(rec) == ident.strip():
            try:
                return _BUILDERS[DATASETS[name][1]](rec)
            except ProblemError as exc:
                raise ProblemError(f"{spec}: {exc}") from None
    raise ProblemError(f"{spec}: no such problem in {name}")


def load_benchmark_problem(spec: str) -> Problem:
    return load_bench_problem(spec).problem


def list_problem_ids(name: str, *, split: str = "test") -> list[str]:
    if name not in DATASETS:
        raise ProblemError(f"unknown benchmark {name!r}: choose one of {', '.join(DATASETS)}")
    ids = []
    for rec in _records(name):
        key = _key(rec)
        if name == "mbpp" and split == "test" and int(key) not in MBPP_TEST_SPLIT:
            continue
        ids.append(f"{name}/{key}")
    return ids
