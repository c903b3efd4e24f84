"""Bad input to the page commands: one line saying what was wrong and what to do, never a traceback."""

from __future__ import annotations

import json
import shutil

from tests.helpers import qflow


def _one_line(done) -> str:
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def test_a_folder_that_is_no_bench(tmp_path):
    said = _one_line(qflow("bench", "report", str(tmp_path), "--format", "html", "-o", str(tmp_path / "r.html")))
    assert "is not a bench folder (no bench.json)" in said
    assert not (tmp_path / "r.html").exists()


def test_benches_of_different_problems_or_split_with_several(bench, tmp_path):
    mbpp = tmp_path / "mbpp"
    shutil.copytree(bench, mbpp)
    spec = json.loads((mbpp / "bench.json").read_text())
    (mbpp / "bench.json").write_text(json.dumps({**spec, "dataset": "mbpp"}))
    said = _one_line(
        qflow("bench", "report", str(bench), str(mbpp), "--format", "html", "-o", str(tmp_path / "c.html"))
    )
    assert "these benches judge different problems" in said
    said = _one_line(qflow("bench", "report", str(bench), str(bench), "--format", "html", "--split"))
    assert "--split writes one bench's sessions beside its page: give one bench folder" in said
    said = _one_line(qflow("bench", "report", str(bench), str(bench)))
    assert "give one bench folder" in said


def test_a_page_that_cannot_be_written_or_a_session_that_is_not_there(bench, tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("")
    said = _one_line(qflow("bench", "report", str(bench), "--format", "html", "-o", str(blocked / "r.html")))
    assert said.startswith(f"qflow: {blocked / 'r.html'}: cannot write the page")
    said = _one_line(qflow("sessions", "export", str(tmp_path / "none.jsonl"), "-o", str(tmp_path / "s.html")))
    assert "none.jsonl" in said
