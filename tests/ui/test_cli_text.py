"""What the command line shows a person: help in plain text, and every ``--json``
output as one line (scripts read them the same way)."""

from __future__ import annotations

import json

import pytest

from qflow_tui.cli import COMMANDS, main
from qflow_tui.commands.demo import demo_session


@pytest.mark.parametrize("command", COMMANDS)
def test_help_has_no_restructured_text(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert "``" not in out
    assert out.strip()


def test_solve_help_states_the_model_default(capsys):
    with pytest.raises(SystemExit):
        main(["solve", "--help"])
    options = capsys.readouterr().out.split("options:", 1)[1]
    model_help = options.split("--model MODEL", 1)[1].split("--base-url", 1)[0]
    assert "default" in model_help and "anthropic/claude-sonnet-5-5" in model_help


@pytest.mark.parametrize("args", [("demo", "--json"), ("replay", str(demo_session()), "--json")])
def test_json_outputs_are_one_line(args, capsys):
    assert main(list(args)) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    assert json.loads(out)["outcome"] == "accepted"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--bogus"], "qflow: unrecognized arguments: --bogus (see `qflow --help`)"),
        (["solve", "--bogus"], "qflow: unrecognized arguments: --bogus (see `qflow solve --help`)"),
        (["bench", "--limit", "x"], "qflow bench: argument --limit: invalid int value: 'x' (see `qflow bench --help`)"),
        # argparse took the 1 for a command and said "invalid choice: '1'".
        (
            ["--retries", "1"],
            "qflow: --retries is not an option of the app; qflow solve, replay, fork and bench take it "
            "(see `qflow solve --help`)",
        ),
    ],
)
def test_a_bad_flag_is_refused_in_one_line(argv, said, capsys):
    with pytest.raises(SystemExit) as exit_:
        code = main(argv)
        raise SystemExit(code)
    assert exit_.value.code == 2
    assert capsys.readouterr().err == said + "\n"
