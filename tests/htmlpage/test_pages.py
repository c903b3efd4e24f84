"""The bench and session pages in a real browser (issue 56): Debian's
chromium loads each page from disk with no host resolvable, and the test fails
on any console message (an uncaught error, a script or fetch the page's
policy refused), on any URL to another host, and checks the rendered DOM for
the figures, every problem, the session's parts and agents."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from qflow_tui.core.workflows import WORKFLOWS
from tests.helpers import ROOT, qflow
from tests.htmlpage.browser import Loaded, assert_fetches_nothing, load, needs_chromium
from tests.htmlpage.conftest import env_for, ok

pytestmark = needs_chromium

SUM_IO = ROOT / "tests" / "scripts" / "sum_io.py"


def _clean(loaded: Loaded) -> str:
    assert loaded.console == []
    return loaded.dom


def _text(dom: str) -> str:
    """The DOM's text, tags dropped and entities read, whitespace folded."""
    import html

    dom = re.sub(r"<(style|script)\b[^>]*>.*?</\1>", " ", dom, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", dom)).split())


def test_the_detector_catches_a_thrown_error(tmp_path):
    """The harness itself: a page that throws is seen throwing."""
    page = tmp_path / "throws.html"
    page.write_text("<!DOCTYPE html><html><body><script>throw new Error('deliberate');</script></body></html>")
    assert any("deliberate" in line for line in load(page, tmp_path).console)


def test_a_bench_page_shows_its_protocol_figures_and_every_problem(bench, tmp_path):
    page = tmp_path / "report.html"
    assert ok(qflow("bench", "report", str(bench), "--format", "html", "-o", str(page))).strip() == str(page)
    html_text = page.read_text(encoding="utf-8")
    assert_fetches_nothing(html_text)
    text = _text(_clean(load(page, tmp_path)))
    for said in ("HumanEval", "qualityflow", "late_fix.py", "RELAXED", "completion", "0.1.0 ran the bench"):
        assert said in text, said
    assert re.search(r"Isolation \S+ \(as the runs' sessions record it\)", text)  # bwrap+seccomp+uid where it can
    spec = json.loads((bench / "bench.json").read_text())
    assert spec["created"] in text
    assert re.search(r"pass@1 \(final, first sample\) 100\.00% 3/3, 95% CI \[43\.9, 100\.0\]", text), text[:2000]
    assert "cost per solved problem $" in text and "95% CI [$" in text
    assert "pass@1 (%) after each workflow step" in html_text and "self_debug:1" in text
    assert "true positive" in text and "Test Quality Checker" in text
    for pid in spec["problems"]:
        assert re.search(rf'<tr data-id="{re.escape(pid)}"', html_text), pid
    # Every problem's first program failed and its final passed: flipped, none failed.
    assert "3 of 3 shown" in text
    assert "0 of 3 shown" in _text(_clean(load(page, tmp_path, "show=failed")))
    assert "3 of 3 shown" in _text(_clean(load(page, tmp_path, "show=flipped")))


def test_a_row_opens_its_session_from_the_page(bench, tmp_path):
    page = tmp_path / "report.html"
    ok(qflow("bench", "report", str(bench), "--format", "html", "-o", str(page)))
    dom = _clean(load(page, tmp_path, "problem=humaneval/1"))
    opened = dom[dom.index('id="session-view"') :]
    text = _text(opened)
    assert "humaneval/1 separate_paren_groups" in text
    for agent in ("program_generator", "test_designer", "test_quality_checker", "self_debugger"):
        assert agent in text
    assert "Diff against the first generated program" in text


def test_split_writes_each_session_as_a_page_beside_it(bench, tmp_path):
    page = tmp_path / "out" / "r.html"
    ok(qflow("bench", "report", str(bench), "--format", "html", "--split", "-o", str(page)))
    links = re.findall(r'<a href="(r-sessions/[0-9]+\.html)">', page.read_text(encoding="utf-8"))
    assert len(links) == 3
    assert '<script type="text/x-qflow-session"' not in page.read_text(encoding="utf-8")
    sibling = page.parent / links[0]
    assert_fetches_nothing(sibling.read_text(encoding="utf-8"))
    assert "humaneval/0" in _text(_clean(load(sibling, tmp_path)))


def test_several_benches_side_by_side_with_mcnemar(bench, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(bench, other)
    lines = [json.loads(x) for x in (other / "results.jsonl").read_text().splitlines()]
    lines[0]["passed"] = False  # one problem now differs
    (other / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    page = tmp_path / "both.html"
    ok(qflow("bench", "report", str(bench), str(other), "--format", "html", "-o", str(page)))
    assert_fetches_nothing(page.read_text(encoding="utf-8"))
    text = _text(_clean(load(page, tmp_path)))
    assert "McNemar p" in text and "Problems with different verdicts (1 of the 3 in common)" in text
    assert f"{lines[0]['id']} ✓ pass ✗ fail" in text


@pytest.mark.parametrize("workflow", sorted(WORKFLOWS))
def test_a_session_page_of_every_workflow_on_a_stdin_problem(workflow, tmp_path):
    """Each built-in workflow on a stdin/stdout problem (tests/scripts/sum_io.py's story)."""
    from tests.scripts.sum_io import STATEMENT

    problem = tmp_path / "sum.json"
    pairs = [("1 2\n", "3\n"), ("10 -4\n", "6\n"), ("1 2 3\n", "6\n")]
    problem.write_text(json.dumps({"title": "sum", "statement": STATEMENT,
                                   "tests": [{"input": i, "output": o} for i, o in pairs]}))  # fmt: skip
    done = qflow("solve", "--problem", str(problem), "--model", f"script/{SUM_IO}", "--workflow", workflow,
                 "--json", env=env_for(tmp_path), timeout=300)  # fmt: skip
    session = Path(json.loads(ok(done))["session"])
    page = tmp_path / "run.html"
    assert ok(qflow("sessions", "export", str(session), "-o", str(page), env=env_for(tmp_path))).strip() == str(page)
    html_text = page.read_text(encoding="utf-8")
    assert_fetches_nothing(html_text)
    text = _text(_clean(load(page, tmp_path)))
    for part in ("Problem", "Timeline", "Agents", "Imagined execution", "Synthesized tests", "Decisions"):
        assert part in text
    assert "stdin 10 -4 expected stdout 6" in text
    assert "Final program" in text and "Diff against the first generated program" in text
    for agent in WORKFLOWS[workflow].agents:
        assert agent.role in text, agent.role
    assert '<pre class="hl python"><code><span class="' in html_text  # highlighted as the app highlights
