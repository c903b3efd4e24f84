"""A stdin/stdout session's markdown transcript: its samples are input and
expected output, not asserts (a traceback before: the samples are records),
and a title cut mid-word when it was recorded is cut back to a whole word."""

from __future__ import annotations

from pathlib import Path

from qflow_tui.core import events as ev
from qflow_tui.core.problem import title_from, whole_words
from qflow_tui.core.session.export import export_session
from qflow_tui.core.session.writer import SessionWriter

STATEMENT = "Read two integers a and b from standard input and print their sum."


def _io_session(path: Path, title: str) -> Path:
    tests = [{"input": "1 2\n", "output": "3\n"}, {"input": "5 7\n", "output": "12\n"}]
    problem = {"title": title, "statement": STATEMENT, "tests": tests, "kind": "io", "entry_point": ""}
    with SessionWriter(path, workflow="qualityflow", model="script/x.py", config={}, problem=problem) as w:
        w(
            ev.RunFinished(
                seq=1,
                final_program="print(sum(map(int, input().split())))",
                outcome="accepted",
                accepted_at="program_generator",
            )
        )
    return path


def test_a_stdin_stdout_session_exports_its_samples_as_input_and_output(tmp_path):
    text = export_session(_io_session(tmp_path / "s.jsonl", "Sum"), tmp_path / "t.md").read_text(encoding="utf-8")
    assert "Sample 1, input:\n\n```text\n1 2\n```" in text
    assert "Expected output:\n\n```text\n12\n```" in text


def test_titles_are_cut_at_a_whole_word():
    assert title_from(STATEMENT) == "Read two integers a and b from standard input and print…"
    assert title_from("x" * 100) == "x" * 60 + "…"  # one long word: cut where it must
    assert title_from("short statement") == "short statement"


def test_a_title_recorded_cut_mid_word_is_headed_by_whole_words(tmp_path):
    old = STATEMENT[:60] + "…"  # "... print thei…", as sessions recorded it
    assert whole_words(old, STATEMENT) == "Read two integers a and b from standard input and print…"
    # Cut at a word already, or not the statement's text: as it is.
    assert whole_words("Read two…", STATEMENT) == "Read two…"
    assert whole_words("Other thei…", STATEMENT) == "Other thei…"
    text = export_session(_io_session(tmp_path / "s.jsonl", old), tmp_path / "t.md").read_text(encoding="utf-8")
    assert text.startswith("# Read two integers a and b from standard input and print…\n")
