"""A session's markdown transcript (``qflow sessions export --format md``)
with text from outside that is built to break markdown: the model's name, the
problem's title and statement, a designed test, a model's value, a reason, an
error, a notice, a sandbox result. Parsed by markdown-it, the transcript holds
no HTML but qflow's own prompt fold, no heading, link, image or emphasis a
name made, and its tables keep their column counts (issue 51)."""

from __future__ import annotations

import re
from pathlib import Path

from markdown_it import MarkdownIt

from qflow_tui.core import events as ev
from qflow_tui.core.session.export import export_session
from qflow_tui.core.session.writer import SessionWriter

EVIL = "a|b\n# Injected\n<img src=x onerror=alert(1)> **bold** [l](javascript:x) ![i](y) `t` ~~s~~ & ```"


def _session(path: Path) -> Path:
    problem = {"title": "T " + EVIL, "statement": "Do it.\n# Not a heading\n<script>x</script>", "tests": [EVIL]}
    with SessionWriter(path, workflow="qualityflow", model="openai/" + EVIL, config={}, problem=problem) as w:
        w(ev.StepStarted(seq=1, step="test_quality_checker", agent="test_quality_checker", detail=EVIL))
        w(ev.TQCVerdict(seq=2, step="test_quality_checker", index=0, test=EVIL, verdict="rejected", value=EVIL))
        w(ev.StepFinished(seq=3, step="test_quality_checker", agent="test_quality_checker", detail=EVIL))
        w(ev.LLMCallFailed(seq=4, step="program_generator", agent="program_generator", call_id="c1", error=EVIL))
        w(ev.Notice(seq=5, level="warning", message=EVIL))
        results = [{"test": EVIL, "status": "fail", "error": EVIL}, {"test": "ok", "status": "pass"}]
        w(ev.SandboxRun(seq=6, purpose="self_debug", program="x", results=results, passed=1, total=2, load_error=EVIL))
        w(ev.Decision(seq=7, step="code_quality_checker", decision="continue", reason=EVIL))
        w(ev.RunFinished(seq=8, final_program="x = 1\n```\n# after", outcome="accepted", accepted_at=EVIL))
    return path


def test_a_transcript_of_hostile_text_is_well_formed_markdown(tmp_path):
    out = export_session(_session(tmp_path / "s.jsonl"), tmp_path / "t.md")
    text = out.read_text(encoding="utf-8")
    tokens = MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(text)
    headings = []
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            headings.append(tokens[i + 1].content)
        assert token.type not in ("html_inline",), token
        if token.type == "html_block":  # only qflow's own fold of a prompt
            assert token.content.startswith(("<details>", "</details>")), token.content
        children = token.children or []
        for j, child in enumerate(children):
            assert child.type not in ("html_inline", "link_open", "image", "em_open", "s_open"), child
            if child.type == "strong_open":  # qflow's own words in bold, never a name's
                assert children[j + 1].content != "bold", children[j + 1]
        if token.type == "table_open":
            widths, cells = [], 0
            for t in tokens[i:]:
                if t.type in ("th_open", "td_open"):
                    cells += 1
                elif t.type == "tr_close":
                    widths.append(cells)
                    cells = 0
                elif t.type == "table_close":
                    break
            assert len(set(widths)) == 1, widths
    assert not any(h.startswith(("Injected", "Not a heading", "after")) for h in headings), headings
    # Each table row as written has its header's number of unescaped pipes.
    rows = [len(re.findall(r"(?<!\\)\|", line)) for line in text.splitlines() if line.startswith("| ")]
    assert rows and set(rows) <= {3}, rows
    # The program and the statement are shown whole, in fences nothing inside closes.
    assert "x = 1\n```\n# after" in text and "# Not a heading\n<script>x</script>" in text


def test_a_secret_is_redacted_from_the_transcript_in_its_escaped_forms_too(tmp_path, monkeypatch):
    secret = "tok|MARKER&<key>_-9"
    path = tmp_path / "s.jsonl"
    with SessionWriter(path, workflow="qualityflow", model="m", config={}, problem={"title": "t"}) as w:
        w(ev.Decision(seq=1, step="code_quality_checker", decision="continue", reason=f"the key is {secret}"))
        w(ev.TQCVerdict(seq=2, step="test_quality_checker", index=0, test=secret, verdict="kept"))
    monkeypatch.setenv("MY_SERVICE_TOKEN", secret)
    text = export_session(path, tmp_path / "t.md").read_text(encoding="utf-8")
    assert "MARKER" not in text and text.count("[redacted]") == 2
