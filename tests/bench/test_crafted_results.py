"""A crafted bench folder (results lines of the wrong shape, a bench.json of
the wrong types) never gives a traceback: each bad line is skipped and named
with its line number and the field that is wrong, and the rest is read, in
`qflow bench report`, `export`, `compare`, `table` and the readers behind the
bench screen. The shapes are declared once (core/bench/results.py); every field
the runner writes is declared there."""

from __future__ import annotations

import asyncio
import json
import shutil
import typing
from pathlib import Path

import pytest

from qflow_tui.core.bench.bench_runner import BenchError, BenchRunner, BenchSpec, read_results
from qflow_tui.core.bench.report import load_bench, render_report
from qflow_tui.core.bench.results import BenchSpecFile, ResultLine, read_lines
from qflow_tui.core.config import RunConfig
from tests.helpers import qflow

FIXTURE = Path(__file__).parent / "data" / "finished-late-fix"
SCRIPTS = Path(__file__).parent / "scripts"

#: (what is wrong, the line's change, the words that name it)
CRAFTED = [
    ("sample as text", {"sample": "1x"}, "sample is '1x' (a str), not a whole number"),
    ("id as a number", {"id": 7}, "id is 7 (an int), not text"),
    ("negative sample", {"sample": -1}, "sample is -1, below 0"),
    ("steps not a list", {"steps": 5}, "steps is 5 (an int), not a list"),
    ("a step without its name", {"steps": [{"passed": True, "accepted": True}]}, "steps[0].step is missing"),
    ("a verdict as text", {"steps": [{"step": "x", "passed": "yes", "accepted": True}]}, "steps[0].passed is 'yes'"),
    ("tokens as text", {"tokens": "many"}, "tokens is 'many' (a str), not a dict"),
    ("tokens per agent as text", {"tokens": {"pg": {"input": "9"}}}, "tokens['pg']['input'] is '9' (a str)"),
    ("a test row without its verdict", {"tests": [{"test": "assert 1", "kept": True}]}, "tests[0].correct is missing"),
    ("duration as text", {"duration": "slow"}, "duration is 'slow' (a str), not a number"),
    ("passed as a number", {"passed": 1}, "passed is 1 (an int), not true or false"),
    ("program as a list", {"program": ["x"]}, "program is a list, not text"),
]


@pytest.fixture
def crafted(tmp_path: Path) -> tuple[Path, list[str]]:
    folder = tmp_path / "bench"
    shutil.copytree(FIXTURE, folder)
    lines = (folder / "results.jsonl").read_text(encoding="utf-8").splitlines()
    good = json.loads(lines[0])
    extra = [json.dumps({**good, "id": f"humaneval/{900 + i}", **change}) for i, (_, change, _) in enumerate(CRAFTED)]
    extra.append("[" * 100_000 + "]" * 100_000)
    extra.append("not json at all")
    extra.append(json.dumps([1, 2, 3]))
    extra.append('{"id": "humaneval/999", "sample": 0, "status": "do')  # cut short by a kill, the last line
    (folder / "results.jsonl").write_text("\n".join([*lines, *extra]), encoding="utf-8")
    return folder, lines


def test_each_bad_line_is_skipped_and_named_and_the_rest_read(crafted):
    folder, lines = crafted
    read = read_lines(folder)
    assert len(read.records) == len(lines)
    said = dict(s.split(": ", 1) for s in read.skipped)
    first = len(lines) + 1
    for i, (what, _, words) in enumerate(CRAFTED):
        assert words in said[f"line {first + i}"], (what, said)
    n = first + len(CRAFTED)
    assert said[f"line {n}"] == "its JSON nests 100000 deep (at most 32 is read)"
    assert said[f"line {n + 1}"] == "is not JSON"
    assert said[f"line {n + 2}"] == "it is a list, not a dict"
    assert said[f"line {n + 3}"] == "is cut short (a run ended mid-write)"
    assert read_results(folder) == read.records


@pytest.mark.parametrize("command", [["report"], ["export"], ["table"], ["compare"]])
def test_the_bench_commands_read_the_rest_and_say_what_they_skipped(crafted, command):
    folder, lines = crafted
    args = [*command, str(folder)]
    if command == ["compare"]:
        args.append(str(FIXTURE))
    if command == ["export"]:
        args += ["--out", str(folder / "samples.jsonl")]
    out = qflow("bench", *args)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert f"results.jsonl line {len(lines) + 1}: sample is '1x' (a str), not a whole number: skipped" in out.stderr
    assert f"results.jsonl line {len(lines) + 2}: id is 7 (an int), not text: skipped" in out.stderr
    if command == ["export"]:
        samples = (folder / "samples.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(samples) == len(lines)


def test_past_twenty_skipped_lines_a_count(tmp_path):
    (tmp_path / "results.jsonl").write_text("oops\n" * 25, encoding="utf-8")
    said = read_lines(tmp_path).said(tmp_path / "results.jsonl")
    assert len(said) == 21 and said[-1].endswith("results.jsonl: 5 more lines skipped")


def test_a_crafted_spec_is_one_line(tmp_path):
    folder = tmp_path / "bench"
    shutil.copytree(FIXTURE, folder)
    spec = json.loads((folder / "bench.json").read_text(encoding="utf-8"))
    for change, words in (
        ({"samples": "x"}, "samples is 'x' (a str), not a whole number"),
        ({"problems": 5}, "problems is 5 (an int), not a list"),
        ({"settings": []}, "settings is a list, not a dict"),
        ({"samples": 0}, "samples is 0, below 1"),
        ({"extract": 5}, "extract is 5 (an int), not text"),
    ):
        (folder / "bench.json").write_text(json.dumps({**spec, **change}), encoding="utf-8")
        with pytest.raises(
            BenchError, match="is not a bench spec qflow wrote: " + words.replace("(", r"\(").replace(")", r"\)")
        ):
            load_bench(folder)
        out = qflow("bench", "report", str(folder))
        assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    (folder / "bench.json").write_text("[" * 50_000, encoding="utf-8")
    with pytest.raises(BenchError, match="is not a bench spec"):
        load_bench(folder)


def test_the_report_of_the_rest_is_the_report_of_the_good_lines(crafted):
    folder, _ = crafted
    clean = load_bench(FIXTURE)
    assert render_report(load_bench(folder)).replace(str(folder), "") == render_report(clean).replace(str(FIXTURE), "")


def _rows(value: object) -> set[str]:
    """Every key of the dict rows in a list value."""
    return {k for row in value for k in row} if isinstance(value, list) else set()


def test_every_field_the_runner_writes_is_declared(tmp_path):
    config = RunConfig(model=f"script/{SCRIPTS / 'late_fix.py'}", workflow="qualityflow").replace(
        checker="python", prompts=1, epochs=1, clarify=0, test_rounds=1
    )
    records = asyncio.run(BenchRunner(BenchSpec("humaneval", config, ids=["humaneval/0"]), tmp_path).run())
    (record,) = records
    hints = typing.get_type_hints(ResultLine)
    assert set(record) <= set(hints), sorted(set(record) - set(hints))
    for name, annotation in hints.items():
        args = typing.get_args(annotation)
        row = args[0] if typing.get_origin(annotation) is list and args else None
        if row is not None and typing.is_typeddict(row) and name in record:
            assert _rows(record[name]) <= set(typing.get_type_hints(row)), (name, _rows(record[name]))
    assert set(record["verdict"]) <= set(typing.get_type_hints(typing.get_type_hints(ResultLine)["verdict"]))
    assert read_lines(tmp_path).skipped == []
    # bench.json too: every field written is declared, so a reader can rely on its type.
    spec = json.loads((tmp_path / "bench.json").read_text(encoding="utf-8"))
    assert set(spec) <= set(typing.get_type_hints(BenchSpecFile)), sorted(
        set(spec) - set(BenchSpecFile.__annotations__)
    )
