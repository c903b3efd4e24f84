"""The bench page's figures are the report's: the published figure beside ours
with the difference, pass@k for several samples, and the problems a filter
finds (no browser needed: the page's HTML is read)."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

from qflow_tui.core.bench.report import BenchData
from qflow_tui.core.htmlpage.bench_page import render_bench_page


def _record(pid: str, passed: bool, sample: int = 0, first: bool | None = None, detail: str = "") -> dict:
    return {
        "id": pid, "sample": sample, "status": "done", "passed": passed,
        "first_passed": passed if first is None else first, "steps": [],
        "verdict": {"passed": passed, "status": "pass" if passed else "fail", "detail": detail},
        "tokens": {"program_generator": {"input": 1000, "output": 100, "calls": 1}}, "tokens_total": 1100,
    }  # fmt: skip


def _text(html: str) -> str:
    return " ".join(
        unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<(style|script)\b.*?</\1>", " ", html, flags=re.S))).split()
    )


def test_the_published_figure_stands_beside_ours_with_the_difference(tmp_path: Path):
    ids = [f"mbpp/{11 + i}" for i in range(4)]
    spec = {"dataset": "mbpp", "workflow": "qualityflow", "model": "anthropic/claude-sonnet-5-5",
            "convention": "completion", "settings": {}}  # fmt: skip
    data = BenchData(tmp_path, spec, [_record(p, v) for p, v in zip(ids, [True, True, True, False], strict=True)], ids)
    text = _text(render_bench_page(data).html)
    assert "pass@1 (final, first sample) 75.00% 3/4, 95% CI [30.1, 95.4]" in text
    assert re.search(r"pass@1 75\.00 94\.20 -19\.20 QualityFlow Table 1, Claude Sonnet-3\.5-v2", text), text
    other = BenchData(tmp_path, {**spec, "model": "openai/gpt-4.1"}, data.records, ids)
    assert "No published figure matches this bench" in _text(render_bench_page(other).html)


def test_several_samples_give_pass_at_k_and_each_row_says_what_its_filters_find(tmp_path: Path):
    records = [
        _record("mbpp/11", True, 0), _record("mbpp/11", False, 1),
        _record("mbpp/12", False, 0, first=True, detail="took 2.9 s, near its time limit"),
        _record("mbpp/12", False, 1),
    ]  # fmt: skip
    spec = {"dataset": "mbpp", "workflow": "zeroshot", "model": "script/x.py", "samples": 2, "settings": {}}
    page = render_bench_page(BenchData(tmp_path, spec, records, ["mbpp/11", "mbpp/12"])).html
    assert "pass@2 50.00%" in _text(page)  # mbpp/11: one of its 2 samples passes (pass@2 = 1); mbpp/12 none
    rows = re.findall(r'<tr data-id="([^"]+)" data-failed="(\d)" data-flipped="(\d)" data-near="(\d)">', page)
    assert rows == [("mbpp/11", "0", "0", "0"), ("mbpp/11", "1", "0", "0"), ("mbpp/12", "1", "1", "1"),
                    ("mbpp/12", "1", "0", "0")]  # fmt: skip
