"""The session browser's parts that hold no widget: the table's columns and
cells (session_rows.py) and its actions on one session (session_actions.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qflow_tui.core.resume import ResumeError
from qflow_tui.core.session import SessionInfo
from qflow_tui.locations import demo_session
from qflow_tui.ui.palette import Palette
from qflow_tui.ui.screens.session_actions import failure_line, rerun_plan
from qflow_tui.ui.screens.session_rows import (
    MAX_INDENT,
    NARROW_MODEL,
    column_widths,
    fork_note,
    session_cells,
    shown_columns,
)

COLOURS = Palette(
    success="green",
    error="red",
    warning="yellow",
    accent="cyan",
    primary="blue",
    muted="grey50",
    foreground="white",
    background="black",
    syntax_theme="monokai",
    editor_theme="monokai",
    dark=True,
)


def _info(tmp_path: Path, **changes: object) -> SessionInfo:
    fields: dict[str, object] = {
        "path": tmp_path / "s.jsonl",
        "created": "2026-12-02T03:29:40",
        "title": "add two",
        "model": "anthropic/claude-sonnet-5-5",
        "workflow": "qualityflow",
        "outcome": "accepted",
        "accepted_at": "imagined",
        "tokens_in": 1000,
        "tokens_out": 234,
        "llm_calls": 3,
        "duration": 12.5,
        "size": 100,
        "format_version": 1,
        "number": 7,
    }
    fields.update(changes)
    return SessionInfo(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("width", [60, 80, 99, 100, 140, 220])
@pytest.mark.parametrize("models", [1, 2])
def test_the_columns_fill_the_width_and_no_more(width, models):
    widths = column_widths(width, 48, models)
    shown = shown_columns(widths)
    # Each shown column is padded by one cell on either side, one more for the scrollbar.
    assert sum(widths[k] for k in shown) + 2 * len(shown) + 1 <= max(width, 62)
    assert widths["#"] == 3 and widths["problem"] >= 10


def test_narrow_the_duration_gives_way_and_one_model_is_not_a_column():
    one, two = column_widths(80, 5, 1), column_widths(80, 5, 2)
    assert "time" not in shown_columns(one) and "model" not in shown_columns(one)
    assert two["model"] == NARROW_MODEL and one["problem"] == two["problem"] + NARROW_MODEL + 2
    wide = column_widths(140, 5, 1)
    assert shown_columns(wide) == ["#", "date", "problem", "model", "outcome", "tokens", "time"]
    assert column_widths(140, 12345, 1)["#"] == 6  # the largest number and the compare mark


def test_a_fork_deeper_than_the_indent_says_its_depth(tmp_path):
    fork = _info(tmp_path, parent=str(tmp_path / "p.jsonl"), forked_at="test_designer")
    mark, _where = fork_note(fork, MAX_INDENT + 3, None)
    assert mark.endswith(f"└{MAX_INDENT + 3} ") and len(mark) == 2 * (MAX_INDENT - 1) + len(f"└{MAX_INDENT + 3} ")
    assert fork_note(fork, 2, None)[0] == "  └ "
    assert fork_note(fork, 0, 4)[0] == "↻ "  # a loop of fork parents broken here
    assert fork_note(fork, 0, None)[0] == "↳ "  # its parent not shown
    assert fork_note(_info(tmp_path), 0, None) == ("", "")


def test_a_narrow_fork_row_says_where_it_branched_in_its_title(tmp_path):
    fork = _info(tmp_path, parent=str(tmp_path / "p.jsonl"), forked_at="test_designer", note="look")
    widths = column_widths(80, 7, 2)
    cells = session_cells(fork, widths, COLOURS, in_folder=False, marked=True, fork=fork_note(fork, 1, None))
    by_column = dict(zip(shown_columns(widths), cells, strict=True))
    problem = str(by_column["problem"])
    assert problem.startswith("└ ") and "add two ✎" in problem and " · " in problem
    assert str(by_column["model"]) == "fork" and str(by_column["#"]) == "●7"
    assert str(by_column["outcome"]) == "accepted"  # narrow: where it was accepted is in the replay
    wide = column_widths(140, 7, 2)
    cells = session_cells(fork, wide, COLOURS, in_folder=False, marked=False, fork=fork_note(fork, 1, None))
    by_column = dict(zip(shown_columns(wide), cells, strict=True))
    assert str(by_column["outcome"]) == "accepted @ imagined" and str(by_column["#"]) == "7"


def test_a_rerun_reads_the_recorded_problem_and_settings():
    problem, config = rerun_plan(demo_session())
    assert problem.entry_point == "remove_Occ" and config.workflow == "qualityflow"


def test_a_rerun_of_a_problem_that_cannot_be_read_is_one_line(tmp_path):
    lines = demo_session().read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header["problem"] = {"statement": "no tests here"}
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")
    with pytest.raises(ResumeError) as info:
        rerun_plan(broken)
    said = failure_line(info.value, (ResumeError,))
    assert said.startswith("broken.jsonl: the recorded problem cannot be read (") and "\n" not in said


def test_an_unexpected_failure_names_its_type():
    assert failure_line(OSError("disk gone"), (ResumeError,)) == "OSError: disk gone"
    assert failure_line(ResumeError("finished"), (ResumeError,)) == "finished"
