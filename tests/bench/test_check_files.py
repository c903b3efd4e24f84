"""The evaluator's check programs are files (core/bench/checks/): what it
sends the oracle is each file with the problem's values in its parameter
block, and a broken install says so in one line."""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

import pytest

from qflow_tui.core.bench import checks
from qflow_tui.core.bench.datasets import load_bench_problem
from qflow_tui.core.bench.evaluate import HUMANEVAL_TIMEOUT_MESSAGE, plus_check_source, timed_check_source
from qflow_tui.core.sandbox.codec import decode_value, strict_eq


def _assigned(src: str) -> dict[str, object]:
    """The module-level constants a check source assigns."""
    out: dict[str, object] = {}
    for node in ast.parse(src).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    return out


def test_the_plus_check_is_the_file_with_the_problems_values_in_place():
    bp = load_bench_problem("humaneval-plus/0")
    src = plus_check_source(bp, "base", 7.0)
    text = (checks._HERE / "plus.py").read_text(encoding="utf-8")
    head, _, rest = text.partition(checks.PARAMETERS_BEGIN + "\n")
    _, _, tail = rest.partition(checks.PARAMETERS_END + "\n")
    assert src.startswith(head) and src.endswith(tail)
    values = _assigned(src)
    assert values["_QF_ENTRY"] == bp.problem.entry_point
    assert values["_QF_TASK_CAP"] == 7.0
    assert values["_QF_REFERENCE"] == bp.reference
    assert checks.PARAMETERS_BEGIN not in src
    compile(src, "<check>", "exec")


def test_the_plus_checks_inputs_cross_in_the_sandboxs_value_encoding():
    # One encoder (the app's) and one decoder (the oracle's, __qf_decode__)
    # for the inputs, as for every value on the wire: the kinds JSON lacks
    # come back as they were, a frozenset as a frozenset, a dict's int keys as ints.
    bp = load_bench_problem("humaneval-plus/0")
    inputs = [[(1, 2.5), {3: "x"}], [frozenset({1}), {1, 2}], [1 + 2j, float("nan"), float("-inf"), b"\x00", None]]
    bp = dataclasses.replace(bp, base_inputs=inputs)
    encoded = _assigned(plus_check_source(bp, "base", 7.0))["_QF_INPUTS_JSON"]
    assert isinstance(encoded, str)
    decoded = [decode_value(x) for x in json.loads(encoded)]
    assert len(decoded) == len(inputs)
    for got, want in zip(decoded, inputs, strict=True):
        assert [type(v) for v in got] == [type(v) for v in want]
        assert repr(got) == repr(want)
        assert strict_eq(got[:1], want[:1])
    assert "__qf_decode__(_QF_INPUTS[i])" in plus_check_source(bp, "base", 7.0)


def test_the_timed_check_follows_the_datasets_check_with_its_limit():
    src = timed_check_source("def check(candidate):\n    assert candidate(1) == 1\n", 0.5)
    assert src.startswith("def check(candidate):\n    assert candidate(1) == 1\n\n")
    values = _assigned(src)
    assert values == {"_QF_LIMIT": 0.5, "_QF_MESSAGE": HUMANEVAL_TIMEOUT_MESSAGE}
    compile(src, "<check>", "exec")


def test_a_missing_or_broken_check_file_is_one_clear_line(tmp_path, monkeypatch):
    monkeypatch.setattr(checks, "_HERE", tmp_path)
    with pytest.raises(checks.CheckFileError, match=r"timed\.py cannot be read .*reinstall qflow"):
        checks.source("timed", _QF_LIMIT=1.0, _QF_MESSAGE="m")
    (tmp_path / "timed.py").write_text("x = 1\n")
    with pytest.raises(checks.CheckFileError, match="no parameter block"):
        checks.source("timed", _QF_LIMIT=1.0, _QF_MESSAGE="m")


def test_every_parameter_is_given_and_no_other():
    with pytest.raises(checks.CheckFileError, match="parameters"):
        checks.source("timed", _QF_LIMIT=1.0)
    with pytest.raises(checks.CheckFileError, match="parameters"):
        checks.source("timed", _QF_LIMIT=1.0, _QF_MESSAGE="m", _QF_OTHER=2)


def test_a_check_file_is_read_once_a_process(tmp_path, monkeypatch):
    """A bench judges every problem with the same file: one read, not 164."""
    monkeypatch.setattr(checks, "_HERE", tmp_path)
    real = (Path(checks.__file__).parent / "timed.py").read_text(encoding="utf-8")
    (tmp_path / "timed.py").write_text(real, encoding="utf-8")
    first = checks.source("timed", _QF_LIMIT=1.0, _QF_MESSAGE="m")
    (tmp_path / "timed.py").unlink()
    assert checks.source("timed", _QF_LIMIT=2.0, _QF_MESSAGE="m") == first.replace("_QF_LIMIT = 1.0", "_QF_LIMIT = 2.0")
