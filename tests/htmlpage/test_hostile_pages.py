"""Names and outputs built to run script in a reviewer's browser (issue 56):
a closing ``</script>``, ``<img onerror>``, ``<svg onload>``, a comment
opener and U+2028/U+2029, in bench.json's names, a problem id, a verdict's
detail, a problem's title, statement and tests and every model answer. The
pages load in chromium: nothing runs (the title each payload would set is
untouched, no console message, no element the payloads carry), the text
reads as it was written, and the page's JSON gives the names back."""

from __future__ import annotations

import json
import re
import shutil
from html import unescape
from pathlib import Path

import pytest

from qflow_tui.core.escape import htmltext
from tests.helpers import qflow
from tests.htmlpage.browser import assert_fetches_nothing, event_handlers, load, needs_chromium, tags_and_urls
from tests.htmlpage.hostile_model import HOSTILE

EVIL = "</script><script>document.title='PWNED-NAME'</script><img src=x onerror=\"document.title='PWNED'\">\u2028<!--"
MODEL = "script/" + EVIL
PROBLEM = "mbpp/1" + EVIL
PROBLEM_FILE = {
    "title": "add two " + EVIL,
    "statement": "Read two integers and print their sum. </textarea></pre>" + EVIL,
    "tests": [{"input": "1 2\n", "output": "3\n"}, {"input": "<b>10</b>\u2028 -4\n", "output": "6\n"}],
    "time_limit": 2,
}
#: What only qflow's own page puts in: the elements a payload would add are not among them.
PAYLOAD_TAGS = {"img", "svg"}


def test_script_json_cannot_close_its_element():
    text = htmltext.script_json({"name": EVIL, "sep": "\u2028\u2029", "amp": "&amp;"})
    assert not re.search("[<>&\u2028\u2029]", text)
    assert json.loads(text) == {"name": EVIL, "sep": "\u2028\u2029", "amp": "&amp;"}
    shown = htmltext.text(EVIL + "\x1b[2J\u202e")
    assert "<" not in shown and ">" not in shown and '"' not in shown and "'" not in shown
    assert "\x1b" not in shown and "\u202e" not in shown and "\\u001b" in shown


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(a session whose problem and answers are hostile, a bench of hostile names holding it)."""
    home = tmp_path_factory.mktemp("hostile-home")
    problem = home / "problem.json"
    problem.write_text(json.dumps(PROBLEM_FILE))
    env = {"QFLOW_DATA_DIR": str(home / "data"), "QFLOW_CONFIG_DIR": str(home / "config")}
    done = qflow("solve", "--problem", str(problem), "--model", "script/tests/htmlpage/hostile_model.py",
                 "--workflow", "zeroshot", "--json", env=env, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    session = Path(json.loads(done.stdout)["session"])
    bench = home / "bench"
    (bench / "sessions").mkdir(parents=True)
    shutil.copy(session, bench / "sessions" / "s.jsonl")
    spec = {"dataset": "mbpp", "model": MODEL, "workflow": "zeroshot" + EVIL, "convention": EVIL,
            "samples": 1, "problems": [PROBLEM], "created": EVIL, "app_version": EVIL, "settings": {}}  # fmt: skip
    line = {
        "id": PROBLEM, "sample": 0, "status": "done", "passed": False, "first_passed": True,
        "session": "sessions/s.jsonl", "steps": [{"step": "gen" + EVIL, "passed": False, "accepted": False}],
        "checks": [{"step": "gen" + EVIL, "accepted": True, "passed": False}],
        "verdict": {"passed": False, "status": "fail" + EVIL, "detail": "detail " + EVIL},
        "tokens": {"agent" + EVIL: {"input": 10, "output": 5, "calls": 1}}, "tokens_total": 15, "duration": 1.5,
    }  # fmt: skip
    (bench / "bench.json").write_text(json.dumps(spec))
    (bench / "results.jsonl").write_text(json.dumps(line) + "\n")
    return session, bench


def _nothing_ran(dom: str, console: list[str]) -> None:
    assert console == []
    title = unescape(re.search(r"<title>(.*?)</title>", dom, re.S).group(1))
    assert title.startswith("qflow ") and not title.startswith("PWNED")  # a payload sets it to PWNED...
    tags, urls = tags_and_urls(dom)
    assert PAYLOAD_TAGS.isdisjoint(t for t in tags if t != "svg") and urls == []
    assert event_handlers(dom) == []


@needs_chromium
def test_a_hostile_session_page_runs_nothing(hostile, tmp_path):
    session, _ = hostile
    page = tmp_path / "run.html"
    assert qflow("sessions", "export", str(session), "--format", "html", "-o", str(page)).returncode == 0
    html_text = page.read_text(encoding="utf-8")
    assert_fetches_nothing(html_text)
    loaded = load(page, tmp_path)
    _nothing_ran(loaded.dom, loaded.console)
    assert "svg" not in tags_and_urls(loaded.dom)[0]  # a session page draws no chart
    text = unescape(loaded.dom)
    assert PROBLEM_FILE["statement"] in text and HOSTILE.split("\x1b")[0] in text


@needs_chromium
def test_a_hostile_bench_page_runs_nothing_and_gives_the_names_back(hostile, tmp_path):
    _, bench = hostile
    page = tmp_path / "report.html"
    assert qflow("bench", "report", str(bench), "--format", "html", "-o", str(page)).returncode == 0
    assert_fetches_nothing(page.read_text(encoding="utf-8"))
    for fragment in ("", "problem=" + PROBLEM.lower()):
        loaded = load(page, tmp_path, fragment.replace("%", "%25").replace("#", "%23"))
        _nothing_ran(loaded.dom, loaded.console)
        svgs = re.findall(r"<svg\b[^>]*>", loaded.dom)
        assert all('class="chart"' in s and "onload" not in s for s in svgs)
    data = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', loaded.dom, re.S)
    read = json.loads(data.group(1))
    assert read["model"] == MODEL and read["convention"] == EVIL
    text = unescape(loaded.dom)
    assert MODEL in text and "detail " + EVIL in text
    assert PROBLEM_FILE["statement"] in text[text.index('id="session-view"') :]  # the row opened its session
