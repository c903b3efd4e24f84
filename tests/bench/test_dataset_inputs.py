"""Datasets from outside are checked as they come in (issue 51): what a
reader returns is validated as a plugin's spec is, two problems under one id
are refused with one line (never run and judged as one), and an id of any
length gives its session a file name the file system takes."""

from __future__ import annotations

import json
import sys

import pytest

from qflow_tui.cli import main
from qflow_tui.core.bench import sources
from qflow_tui.core.bench.bench_runner import SESSION_STEM_MAX, session_stem
from qflow_tui.core.plugins import EntryPoint
from qflow_tui.core.problem import ProblemError

PLUGIN = """
from qflow_tui.core.bench.sources import DatasetSource, jsonl_problem, read_records
from qflow_tui.core.bench.datasets import BenchProblem

def _good(path):
    return [jsonl_problem(rec, n, "junkset") for n, rec in enumerate(read_records(path))]

def _none(path):
    return None

def _junk(path):
    return [*_good(path), "not a problem"]

def _no_problem(path):
    return [BenchProblem(None, [])]

def _bad_tests(path):
    (bp,) = _good(path)
    bp.io_tests = "x"
    return [bp]

def _twice(path):
    return _good(path) * 2

def _exits(path):
    raise SystemExit(3)

def _bad_compare(path):
    (bp,) = _good(path)
    bp.compare = "vibes"
    return [bp]

def _bad_entry(path):
    (bp,) = _good(path)
    bp.problem.kind = "function"
    bp.problem.entry_point = None
    return [bp]

NONE = DatasetSource("ds-none", "returns None", _none)
JUNK = DatasetSource("ds-junk", "returns a string among its problems", _junk)
NO_PROBLEM = DatasetSource("ds-noproblem", "a BenchProblem without a Problem", _no_problem)
BAD_TESTS = DatasetSource("ds-badtests", "io_tests of the wrong type", _bad_tests)
TWICE = DatasetSource("ds-twice", "every problem twice", _twice)
EXITS = DatasetSource("ds-exits", "calls exit", _exits)
BAD_COMPARE = DatasetSource("ds-badcompare", "an unknown comparison", _bad_compare)
BAD_ENTRY = DatasetSource("ds-badentry", "a function problem without an entry point", _bad_entry)
"""

READERS = {
    "ds-none": "its reader returned None, not a list of problems",
    "ds-junk": "problem 1 of its reader is a str, not a BenchProblem",
    "ds-noproblem": "holds None where its Problem goes",
    "ds-badtests": "has io_tests that are not a list of (input, output) text pairs",
    "ds-twice": "the id 'junkset/a' is given to problems 0 and 1",
    "ds-exits": "its reader called exit (3)",
    "ds-badcompare": "compares outputs by 'vibes', not one of",
    "ds-badentry": "has an entry point None that is not a Python name",
}


@pytest.mark.parametrize("name", sorted(READERS))
def test_what_a_plugin_reader_returns_is_checked(tmp_path, monkeypatch, name, capsys):
    (tmp_path / "qf_test_dsjunk.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    from qflow_tui.core import plugins

    entries = [EntryPoint(sources.GROUP, n, f"qf_test_dsjunk:{attr}") for n, attr in _ATTRS.items()]
    loaded = plugins.load_group(sources.GROUP, sources._check, lambda s: s.name, entries=entries, kind="dataset")
    monkeypatch.setattr(sources.SOURCES, "_found", dict(loaded.found))
    data = tmp_path / "set.jsonl"
    data.write_text('{"task_id": "a", "statement": "Echo.", "hidden": [{"input": "x\\n", "output": "x\\n"}]}\n')
    with pytest.raises(ProblemError) as err:
        sources.load_from_source(name, data)
    assert READERS[name] in str(err.value) and "\n" not in str(err.value)
    # Through the bench: one line, no traceback, a failing status.
    code = main(
        ["bench", "--dataset", name, "--dataset-file", str(data), "--model", "m/x", "--out", str(tmp_path / "b")]
    )
    captured = capsys.readouterr()
    assert code != 0 and READERS[name] in captured.err and "Traceback" not in captured.err + captured.out
    sys.modules.pop("qf_test_dsjunk", None)


_ATTRS = {
    "ds-none": "NONE",
    "ds-junk": "JUNK",
    "ds-noproblem": "NO_PROBLEM",
    "ds-badtests": "BAD_TESTS",
    "ds-twice": "TWICE",
    "ds-exits": "EXITS",
    "ds-badcompare": "BAD_COMPARE",
    "ds-badentry": "BAD_ENTRY",
}


def _apps_record(pid, letter: str) -> dict:
    io = json.dumps({"inputs": ["\n"], "outputs": [letter + "\n"]})
    return {"problem_id": pid, "question": f"Print {letter}.\n", "input_output": io, "difficulty": "introductory"}


def test_two_apps_problems_with_one_id_are_refused_in_one_line(tmp_path, capsys):
    data = tmp_path / "apps.jsonl"
    data.write_text("".join(json.dumps(_apps_record(7, c)) + "\n" for c in "AB"))
    with pytest.raises(ProblemError, match="the id 'apps/7' is given to problems 0 and 1"):
        sources.load_from_source("apps", data)
    code = main(
        ["bench", "--dataset", "apps", "--dataset-file", str(data), "--model", "m/x", "--out", str(tmp_path / "b")]
    )
    captured = capsys.readouterr()
    assert code != 0 and "apps/7" in captured.err and "Traceback" not in captured.err
    assert not (tmp_path / "b" / "results.jsonl").exists()


def test_a_300_character_problem_id_runs_to_its_report(tmp_path, capsys):
    model = tmp_path / "print_a.py"
    model.write_text("def respond(request):\n    return '```python\\nprint(\"A\")\\n```'\n")
    data = tmp_path / "apps.jsonl"
    long_a, long_b = "p" * 300, "p" * 299 + "q"  # alike in their first 299 characters
    data.write_text(json.dumps(_apps_record(long_a, "A")) + "\n" + json.dumps(_apps_record(long_b, "B")) + "\n")
    out = tmp_path / "bench"
    argv = ["bench", "--dataset", "apps", "--dataset-file", str(data), "--model", f"script/{model}"]
    assert main([*argv, "--workflow", "zeroshot", "--out", str(out)]) == 0
    assert "final pass@1 50.00% (1/2)" in capsys.readouterr().out
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(rec["id"] for rec in lines) == [f"apps/{long_a}", f"apps/{long_b}"]
    sessions = sorted(p.name for p in (out / "sessions").iterdir())
    assert len(sessions) == 2 and all(len(name) <= SESSION_STEM_MAX + len(".jsonl") for name in sessions)
    assert {rec["session"] for rec in lines} == {f"sessions/{name}" for name in sessions}


def test_session_stems_stay_short_and_apart():
    assert session_stem("humaneval/0") == "humaneval-0" and session_stem("mbpp/11#2") == "mbpp-11-s2"
    a, b = session_stem("x/" + "p" * 300), session_stem("x/" + "p" * 299 + "q")
    assert a != b and len(a) <= SESSION_STEM_MAX and len(b) <= SESSION_STEM_MAX
    assert session_stem("x/\u00e9\u00e9") != session_stem("x/\u00e8\u00e8") and session_stem("..")


def test_one_problem_named_twice_in_ids_runs_once(tmp_path, capsys):
    from pathlib import Path

    canonical = f"script/{Path(__file__).resolve().parents[2] / 'bench' / 'canonical_model.py'}"
    out = tmp_path / "bench"
    argv = ["bench", "--dataset", "humaneval", "--ids", "0", "0", "humaneval/0", "--model", canonical]
    assert main([*argv, "--workflow", "zeroshot", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "1 of 1 runs finished" in said and "unfinished" not in said
    assert [json.loads(line)["id"] for line in (out / "results.jsonl").read_text().splitlines()] == ["humaneval/0"]
    # A file's problems too.
    data = tmp_path / "apps.jsonl"
    data.write_text("".join(json.dumps(_apps_record(n, c)) + "\n" for n, c in enumerate("AB")))
    picked = sources.load_from_source("apps", data, ids=["1", "apps/1", "0"])
    assert [bp.id for bp in picked] == ["apps/1", "apps/0"]


def test_apps_records_without_a_problem_id_are_named_by_their_place(tmp_path):
    data = tmp_path / "apps.jsonl"
    data.write_text("".join(json.dumps(_apps_record(pid, c)) + "\n" for pid, c in [(None, "A"), ("", "B"), (9, "C")]))
    assert [bp.id for bp in sources.load_from_source("apps", data)] == ["apps/0", "apps/1", "apps/9"]
