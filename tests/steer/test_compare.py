"""``qflow compare``: a fork with an edited program against its parent, and a
session against itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from tests.helpers import qflow

if TYPE_CHECKING:
    from steer_recorded import Recorded

EDITED = (
    "def remove_Occ(s, ch):\n"
    "    # Edited by hand \x1b]0;title\x07 (a control sequence the terminal must never see).\n"
    "    i = s.find(ch)\n"
    "    if i != -1:\n"
    "        s = s[:i] + s[i + 1:]\n"
    "    j = s.rfind(ch)\n"
    "    return s if j == -1 else s[:j] + s[j + 1:]\n"
)


def _fork(recorded: Recorded) -> Path:
    edited = recorded.tmp / "edited.py"
    edited.write_text(EDITED)
    out = recorded.qflow(
        "fork", str(recorded.path), "--at", "program_generator", "--program-file", str(edited),
        "--session-dir", str(recorded.sessions / "forks"), "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    return Path(json.loads(out.stdout)["session"])


def test_compare_a_fork_with_its_parent(recorded: Recorded) -> None:
    fork = _fork(recorded)
    out = recorded.qflow("compare", str(recorded.path), str(fork), "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    a, b = result["a"], result["b"]
    assert (a["outcome"], a["accepted_at"]) == ("accepted", "self_debug:1")
    assert (b["outcome"], b["accepted_at"]) == ("accepted", "program_generator")
    assert b["forked_at"] == "program_generator" and b["parent"]["session"] == str(recorded.path.resolve())
    # They part at the program the generator step ends with: the parent's came
    # from the model, the fork's from the edit.
    div = result["divergence"]
    assert result["same_until"] == 0 and div["index"] == 0
    assert (div["a"]["what"], div["a"]["step"]) == ("program", "program_generator")
    assert (div["b"]["what"], div["b"]["step"], div["b"]["value"]) == (
        "steered",
        "program_generator",
        "program by user",
    )
    assert [m["what"] for m in b["steps"]].count("decision") == 1
    assert {"test_designer", "self_debugger"} <= set(a["agents"]) and set(b["agents"]) == {"code_quality_checker"}
    assert a["agents"]["self_debugger"]["calls"] == 1
    assert not result["same_program"] and "+    # Edited by hand" in result["program_diff"]

    text = recorded.qflow("compare", str(recorded.path), str(fork))
    assert text.returncode == 0, text.stderr
    assert "---- the runs part here (at the first row) ----" in text.stdout
    assert "A: ACCEPTED at self_debug:1, progression 0" in text.stdout
    assert "B: ACCEPTED at program_generator, progression 0" in text.stdout
    assert "+    # Edited by hand" in text.stdout and "\x1b" not in text.stdout and "\x07" not in text.stdout


def test_compare_fits_80_columns_and_names_a_forks_live_model(recorded: Recorded) -> None:
    """Issue 57: the text was 118 columns wide whatever the terminal, and a
    fork's model read ``replay/`` and its parent's path (the recording it
    replays). At 80 columns every line but the programs' diff and the folders
    fits, and the
    fork says the model that answered after it branched."""
    fork = _fork(recorded)
    out = qflow("compare", str(recorded.path), str(fork), cwd=recorded.tmp, env={"COLUMNS": "80"})
    assert out.returncode == 0, out.stderr
    text = out.stdout.split("final programs (unified diff, A -> B):")[0]
    # A folder is said whole, on a line of its own, to be copied.
    assert f"(A in {recorded.path.parent})" in text and f"(B in {fork.parent})" in text
    too_wide = [line for line in text.splitlines() if len(line) > 80 and not line.startswith(("(A in", "(B in"))]
    assert not too_wide, too_wide
    assert "replay/" not in text
    lines = text.splitlines()
    assert lines[0] == f"A: {recorded.path.name}" and lines[2] == f"B: {fork.name}"
    assert lines[1] == "   qualityflow, script/responder.py"
    assert lines[3] == "   qualityflow, fork of A at program_generator, then script/responder.py"
    wide = qflow("compare", str(recorded.path), str(fork), cwd=recorded.tmp, env={"COLUMNS": "160"})
    assert max(len(line) for line in wide.stdout.split("final programs")[0].splitlines()) > 80


def test_compare_a_session_with_itself_finds_no_divergence(recorded: Recorded) -> None:
    out = recorded.qflow("compare", str(recorded.path), str(recorded.path), "--json")
    result = json.loads(out.stdout)
    assert result["divergence"] is None and result["same_program"] and result["program_diff"] == ""
    assert result["same_until"] == len(result["a"]["steps"]) > 5
    text = recorded.qflow("compare", str(recorded.path), str(recorded.path))
    assert "(the two runs took the same steps with the same decisions)" in text.stdout
    assert "final programs: the same" in text.stdout


def test_compare_of_something_that_is_not_a_session_is_one_line(recorded: Recorded) -> None:
    junk = recorded.tmp / "junk.jsonl"
    junk.write_text("not a session\n")
    out = recorded.qflow("compare", str(recorded.path), str(junk))
    assert out.returncode == 2 and out.stderr.startswith("qflow: ") and out.stderr.count("\n") == 1


def test_the_diff_keeps_a_last_line_without_its_newline_apart() -> None:
    from qflow_tui.core.steer.side_by_side import compare_sessions

    class Data:
        def __init__(self, name: str, program: str) -> None:
            self.path = Path(name)
            self.header: dict[str, object] = {}
            self.events: list[object] = []
            self.program = program

        def summary(self) -> dict[str, object]:
            return {
                "final_program": self.program,
                "outcome": "accepted",
                "accepted_at": "program_generator",
                "progression": 0,
                "llm_calls": 0,
                "duration": 0.0,
            }

    result = compare_sessions(Data("a.jsonl", "x = 1"), Data("b.jsonl", "y = 2"))
    assert "-x = 1\n+y = 2\n" in result["program_diff"]
