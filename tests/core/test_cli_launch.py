"""`qflow` with only the app's flags is parsed without the ten command modules
(a shorter launch), and means exactly what the whole parser would make of it;
anything else (a command, a typo, a bad value, a help) is the whole parser's to
answer. The collector the launch turns off is on again whichever way it ends."""

from __future__ import annotations

import contextlib
import gc

import pytest
from helpers import loaded_after

from qflow_tui import cli

APP_ONLY = [
    [],
    ["--step"],
    ["--model", "script/tests/scripts/mbpp11.py", "--checker", "python", "--no-tqc"],
    ["--workflow", "codetree", "--budget", "5", "--break", "agent:self_debugger", "--break", "decision:revert"],
    ["--theme=qflow-light", "--max-tokens", "512", "--problem", "p.txt", "--tests", "t.txt"],
    ["--replay", "s.jsonl"],
]


@pytest.mark.parametrize("argv", APP_ONLY)
def test_the_app_flags_mean_what_the_whole_parser_says(argv):
    fast = cli._app_arguments(argv)
    assert fast is not None
    whole = cli.build_parser().parse_args(argv)
    assert vars(fast) == {k: v for k, v in vars(whole).items() if k != "func"}


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "--help"],
        ["--model", "m", "sessions"],
        ["sovle"],
        ["--max-tokens", "abc"],
        ["--model"],
        ["--help"],
        ["--version"],
        ["--stepp"],
    ],
)
def test_anything_else_is_the_whole_parsers(argv):
    assert cli._app_arguments(argv) is None


def test_a_bad_value_is_reported_once_by_the_whole_parser(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--max-tokens", "abc"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("invalid int value: 'abc'") == 1
    # The whole parser's one line, pointing at the help that lists commands and all.
    assert err == "qflow: argument --max-tokens: invalid int value: 'abc' (see `qflow --help`)\n"
    assert gc.isenabled()


def test_the_collector_is_on_after_a_command_and_after_a_refused_app(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("QFLOW_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("QFLOW_DATA_DIR", str(tmp_path))
    assert cli.main(["workflows"]) == 0
    assert gc.isenabled()
    # The app path, refused before the app runs (no such problem file).
    assert cli.main(["--problem", str(tmp_path / "missing.txt")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert gc.isenabled()


COMMAND_FIRST = [
    ["bench", "--dataset", "humaneval", "--model", "reference", "--workflow", "zeroshot", "--limit", "3"],
    ["bench", "report", "some/folder", "--json"],
    ["solve", "--problem", "p.txt", "--tests", "t.txt", "--model", "script/x.py", "--max-tokens", "64"],
    ["sessions", "--json"],
    ["replay", "s.jsonl"],
    ["doctor"],
]


@pytest.mark.parametrize("argv", COMMAND_FIRST)
def test_a_command_named_first_means_what_the_whole_parser_says(argv):
    alone = cli.build_parser(argv[0]).parse_args(argv)
    whole = cli.build_parser().parse_args(argv)
    assert {k: v for k, v in vars(alone).items() if k != "func"} == {
        k: v for k, v in vars(whole).items() if k != "func"
    }
    assert alone.func.__qualname__ == whole.func.__qualname__


def test_a_command_named_first_loads_no_other_commands_module():
    others = [f"qflow_tui.commands.{n}" for n in cli.COMMANDS if n not in ("bench", "solve")]
    assert loaded_after("from qflow_tui import cli\ncli.build_parser('bench')", others) == []


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["--retries", "1"],
            "qflow: --retries is not an option of the app; qflow solve, replay, fork and bench take it",
        ),
        (["bench", "--bogus"], "qflow: unrecognized arguments: --bogus (see `qflow bench --help`)"),
    ],
)
def test_the_whole_parser_still_answers_what_is_not_a_command_first(argv, said, capsys):
    with pytest.raises(SystemExit) if argv[0] == "bench" else contextlib.nullcontext():
        code = cli.main(argv)
        assert code == 2
    assert said in capsys.readouterr().err
