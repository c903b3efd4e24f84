"""Counts a run cannot have are refused where results are read (issue 51): a
results line holding ``Infinity``, ``NaN``, a number too large for a float, a
negative count or duration, or one past any real run's, is skipped and named
in one line, so no estimate, cost cap, report or JSON downstream sees it (an
``--estimate-from`` OverflowError, a bare ``Infinity`` in ``compare --format
json``, a resumed bench ignoring ``--max-cost`` with a negative spend)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from qflow_tui.cli import main
from qflow_tui.core.bench.bench_runner import BenchError, latest_results, read_results
from qflow_tui.core.bench.report import load_bench
from qflow_tui.core.bench.results import line_problem, read_lines
from tests.helpers import qflow

ROOT = Path(__file__).parents[2]
FIXTURE = Path(__file__).parent / "data" / "finished-late-fix"
CANONICAL = ROOT / "bench" / "canonical_model.py"
GOOD = json.loads((FIXTURE / "results.jsonl").read_text(encoding="utf-8").splitlines()[0])


def strict(text: str) -> object:
    """JSON as the standard has it: NaN and Infinity are not numbers."""

    def refuse(name: str) -> object:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def _tokens(output: object) -> dict:
    return {"program_generator": {"input": 100, "output": output, "calls": 1}}


#: (what is wrong, the raw line, the words that name it)
REFUSED = [
    (
        "Infinity tokens",
        json.dumps({**GOOD, "tokens": _tokens(math.inf)}),
        "holds Infinity, which is not a JSON number",
    ),
    ("-Infinity tokens", json.dumps({**GOOD, "tokens": _tokens(-math.inf)}), "holds -Infinity"),
    ("NaN duration", json.dumps({**GOOD, "duration": math.nan}), "holds NaN, which is not a JSON number"),
    (
        "1e400 tokens",
        json.dumps({**GOOD, "tokens": _tokens(0)}).replace('"output": 0', '"output": 1e400'),
        "holds 1e400, a number too large to read",
    ),
    (
        "negative output tokens",
        json.dumps({**GOOD, "tokens": _tokens(-1e9)}),
        "tokens['program_generator']['output'] is -1e+09, below 0",
    ),
    ("negative total", json.dumps({**GOOD, "tokens_total": -5}), "tokens_total is -5, below 0"),
    ("calls past any run's", json.dumps({**GOOD, "llm_calls": 10**20}), "llm_calls is 1e+20, above 1e+15"),
    ("a huge whole number", json.dumps({**GOOD, "tokens": _tokens(10**300)}), "is a number of about 301 digits, above"),
    ("negative duration", json.dumps({**GOOD, "duration": -1.5}), "duration is -1.5, below 0"),
    (
        "negative charged time",
        json.dumps({**GOOD, "verdict": {**GOOD["verdict"], "charged": -2.0}}),
        "verdict.charged is -2, below 0",
    ),
    (
        "negative progression",
        json.dumps({**GOOD, "checks": [{**GOOD["checks"][0], "progression": -1}]}),
        "checks[0].progression is -1, below 0",
    ),
]


@pytest.mark.parametrize(("what", "line", "words"), REFUSED, ids=[r[0] for r in REFUSED])
def test_a_count_no_run_has_is_skipped_and_named(tmp_path, what, line, words):
    shutil.copy(FIXTURE / "bench.json", tmp_path / "bench.json")
    (tmp_path / "results.jsonl").write_text(line + "\n", encoding="utf-8")
    read = read_lines(tmp_path)
    assert read.records == [], what
    (said,) = read.skipped
    assert said.startswith("line 1: ") and words in said, said
    # The run is shown as unreadable (not as never run), and rerun on resume.
    assert read.unreadable == {GOOD["id"]: said.removeprefix("line 1: ")}


def test_a_line_of_the_right_counts_is_read_and_a_record_with_infinity_in_memory_is_refused():
    assert line_problem(GOOD) is None
    assert line_problem({**GOOD, "tokens": _tokens(0)}) is None
    assert (
        line_problem({**GOOD, "tokens": _tokens(math.inf)})
        == "tokens['program_generator']['output'] is inf, not a finite number"
    )
    assert line_problem({**GOOD, "extra": [1.0, {"x": math.nan}]}) == "extra[1]['x'] is not a finite number"


def _priced_bench(folder: Path) -> Path:
    folder.mkdir()
    spec = json.loads((FIXTURE / "bench.json").read_text(encoding="utf-8"))
    spec |= {"model": "anthropic/claude-sonnet-4-5", "workflow": "zeroshot", "price_in": 3.0, "price_out": 15.0}
    (folder / "bench.json").write_text(json.dumps(spec), encoding="utf-8")
    return folder


def test_estimate_from_a_bench_holding_infinity_uses_its_readable_runs(tmp_path):
    source = _priced_bench(tmp_path / "source")
    lines = [json.dumps({**GOOD, "id": "humaneval/0", "tokens": _tokens(math.inf)})]
    lines.append(json.dumps({**GOOD, "id": "humaneval/1", "tokens": _tokens(200)}))
    (source / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    argv = ["bench", "--dataset", "humaneval", "--ids", "0", "1", "--model", "anthropic/claude-sonnet-4-5"]
    out = qflow(*argv, "--workflow", "zeroshot", "--out", str(tmp_path / "new"), "--estimate-from", str(source))
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and "OverflowError" not in out.stderr
    assert "results.jsonl line 1: holds Infinity, which is not a JSON number: skipped" in out.stderr
    # The estimate is the one readable run's: 100 tokens in, 200 out.
    assert "100 tokens in, 200 out" in out.stdout
    # Nothing readable at all: one line saying so.
    (source / "results.jsonl").write_text(lines[0] + "\n", encoding="utf-8")
    out = qflow(*argv, "--workflow", "zeroshot", "--out", str(tmp_path / "new"), "--estimate-from", str(source))
    assert out.returncode == 2 and "has no finished run to estimate from" in out.stderr
    assert "Traceback" not in out.stderr


def test_compare_json_of_a_bench_holding_infinity_is_strict_json(tmp_path, capsys):
    bench = _priced_bench(tmp_path / "b")
    lines = [json.dumps({**GOOD, "id": "humaneval/0", "tokens": _tokens(math.inf)})]
    lines.append(json.dumps({**GOOD, "id": "humaneval/1", "tokens": _tokens(200)}))
    (bench / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for argv in (["compare", str(bench), str(bench), "--format", "json"], ["report", str(bench), "--json"]):
        assert main(["bench", *argv]) == 0
        out = capsys.readouterr().out
        data = strict(out)
        assert isinstance(data, dict)
        assert "Infinity" not in out and "NaN" not in out


def test_a_spec_with_a_price_no_model_has_is_refused_in_one_line(tmp_path):
    folder = _priced_bench(tmp_path / "b")
    shutil.copy(FIXTURE / "results.jsonl", folder / "results.jsonl")
    spec = json.loads((folder / "bench.json").read_text(encoding="utf-8"))
    for change, words in (
        ('"price_in": -3.0', "price_in is -3, below 0"),
        ('"price_out": Infinity', "price_out is inf, not a finite number"),
        ('"price_out": NaN', "price_out is nan, not a finite number"),
    ):
        key = change.split(":")[0].strip('"')
        text = json.dumps({**spec, key: 0.5}).replace(f'"{key}": 0.5', change)
        (folder / "bench.json").write_text(text, encoding="utf-8")
        with pytest.raises(BenchError, match="is not a bench spec"):
            load_bench(folder)
        out = qflow("bench", "report", str(folder))
        assert out.returncode == 2 and out.stderr.count("\n") == 1 and words in out.stderr, out.stderr


def test_a_resumed_bench_holding_negative_tokens_keeps_its_cost_cap(tmp_path, capsys):
    out = tmp_path / "bench"
    argv = ["bench", "--dataset", "humaneval", "--concurrency", "1", "--model", f"script/{CANONICAL}"]
    argv += ["--workflow", "zeroshot", "--price-in", "3", "--price-out", "15", "--out", str(out)]
    assert main([*argv, "--limit", "2"]) == 0
    capsys.readouterr()
    first, second = (json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines())
    spent = sum((t["input"] * 3 + t["output"] * 15) / 1e6 for t in second["tokens"].values())
    assert spent > 0
    # A hand-edited first line: a billion tokens given back would make the spend negative.
    first["tokens"] = _tokens(-1e9)
    (out / "results.jsonl").write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n", encoding="utf-8")
    # The second run alone spent more than the cap: nothing more starts.
    assert main([*argv, "--limit", "6", "--max-cost", f"{spent / 2:.6f}"]) == 3
    err = capsys.readouterr().err
    assert "below 0: skipped" in err and "the cost cap was reached" in err
    assert "$-" not in err
    assert len(read_results(out)) == 1
    assert [r["id"] for r in latest_results(read_results(out)).values()] == [second["id"]]


@pytest.mark.parametrize(
    ("flag", "value", "words"),
    [
        ("--price-in", "nan", "--price-in must be a number of US dollars per million tokens, 0 or more (not nan)"),
        ("--price-out", "-5", "--price-out must be a number of US dollars per million tokens, 0 or more (not -5.0)"),
        ("--price-in", "inf", "(not inf)"),
        ("--max-cost", "nan", "--max-cost must be above 0 and finite"),
        ("--max-cost", "inf", "--max-cost must be above 0 and finite"),
    ],
)
def test_a_price_or_cap_no_bench_can_have_is_refused_before_anything_runs(tmp_path, capsys, flag, value, words):
    out = tmp_path / "bench"
    argv = ["bench", "--dataset", "mbpp", "--ids", "11", "--model", f"script/{CANONICAL}", "--out", str(out)]
    assert main([*argv, flag, value]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1
    assert not out.exists()  # nothing ran, no bench.json the next read would refuse
