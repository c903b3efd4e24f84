"""A server that reports no token usage, or a count no call can have, as a
person running ``qflow solve`` meets it: the run counts the calls itself, says
so once, and the summary line and ``--json`` mark the counts as estimates."""

from __future__ import annotations

import json

import pytest
from stub_server import OUTPUT_TOKENS

from qflow_tui.cli import main


def _solve(stub, tmp_path, model: str, *extra: str) -> int:
    problem, tests = tmp_path / "p.txt", tmp_path / "t.txt"
    problem.write_text("Write add(a, b).\n")
    tests.write_text("assert add(1, 2) == 3\n")
    return main(
        ["solve", "--model", f"openai/{model}", "--base-url", stub.url + "/v1", "--workflow", "zeroshot",
         "--problem", str(problem), "--tests", str(tests), "--entry-point", "add", *extra]
    )  # fmt: skip


@pytest.mark.parametrize("model", ["no-usage", "absurd-usage"])
def test_solve_says_the_counts_are_estimates(stub, tmp_path, capsys, model):
    assert _solve(stub, tmp_path, model) == 0
    captured = capsys.readouterr()
    said = [line for line in captured.err.splitlines() if "reported no usable token counts" in line]
    assert len(said) == 1 and "by estimate (words and punctuation marks)" in said[0]
    assert "(the counts of 1 call estimated)" in captured.out
    assert "Traceback" not in captured.err
    assert _solve(stub, tmp_path, model, "--json") == 0
    result = json.loads(capsys.readouterr().out)
    tally = result["tokens"]["program_generator"]
    assert tally["estimated"] == 1 and 0 < tally["input"] < 1000
    if model == "absurd-usage":
        assert tally["output"] == OUTPUT_TOKENS  # the count it did report, kept


def test_solve_with_usage_says_nothing_of_estimates(stub, tmp_path, capsys):
    assert _solve(stub, tmp_path, "ok") == 0
    captured = capsys.readouterr()
    assert "estimate" not in captured.out + captured.err
