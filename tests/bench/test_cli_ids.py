"""`qflow bench --ids`: ids separated by spaces work as well as commas, wherever
the option stands and also written `--ids=0 1 2` (which argparse alone reads as
the id 0 and a subcommand "1"); `bench compare`, `report` and `open` still parse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qflow_tui.cli import build_parser, main
from qflow_tui.commands.bench import spread_ids

ROOT = Path(__file__).resolve().parents[2]
CANONICAL = f"script/{ROOT / 'bench' / 'canonical_model.py'}"
REST = ["--dataset", "humaneval", "--model", "m/x"]


def parsed(argv: list[str]):
    return build_parser().parse_args(spread_ids(argv))


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", *REST, "--ids", "0", "1", "2"],
        ["bench", "--ids", "0", "1", "2", *REST],
        ["bench", "--ids=0", "1", "2", *REST],
        ["bench", *REST, "--ids=0", "1", "2"],
        ["bench", "--ids", "0,", "1,2", *REST],
        ["bench", "--ids", "humaneval/0", "humaneval/1", "humaneval/2", "--tui", *REST],
    ],
)
def test_ids_separated_by_spaces_or_commas(argv):
    from qflow_tui.core.bench.bench_runner import split_ids

    args = parsed(argv)
    assert args.bench_command is None
    assert [i.rpartition("/")[2] for i in split_ids(args.ids) or []] == ["0", "1", "2"]


def test_the_subcommands_still_parse():
    assert parsed(["bench", "compare", "a", "b"]).folders == ["a", "b"]
    assert parsed(["bench", "report", "a"]).folders == ["a"]
    assert parsed(["bench", "open", "a"]).folder == "a"
    # A `--` ends the options: nothing after it is rewritten.
    assert spread_ids(["bench", "--", "--ids=1"]) == ["bench", "--", "--ids=1"]


def test_a_bench_of_space_separated_ids_runs_them(tmp_path, capsys):
    out = tmp_path / "bench"
    argv = ["bench", "--dataset", "humaneval", "--ids=0", "1", "2", "--model", CANONICAL, "--workflow", "zeroshot"]
    assert main([*argv, "--out", str(out)]) == 0
    assert "final pass@1 100.00% (3/3)" in capsys.readouterr().out
    ids = sorted(json.loads(line)["id"] for line in (out / "results.jsonl").read_text().splitlines())
    assert ids == ["humaneval/0", "humaneval/1", "humaneval/2"]


def test_a_stray_word_names_the_subcommands(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bench", *REST, "7"])
    assert "argument compare|table|paper|report|export|open: invalid choice: '7'" in capsys.readouterr().err
