"""core.bench.names holds the names the bench, the command line and the app
share; the modules that act on them agree with it (issue 52: the command
line's copies had drifted out of reach of any check)."""

from __future__ import annotations

import argparse
import subprocess
import sys

from qflow_tui.cli import build_parser
from qflow_tui.commands import bench_args
from qflow_tui.core import extract
from qflow_tui.core.bench import bench_runner, evaluate, export, names, papers, results, tables


def _choices(parser: argparse.ArgumentParser, option: str) -> tuple[str, ...]:
    (action,) = [a for a in parser._actions if option in a.option_strings]
    return tuple(action.choices or ())


def test_every_module_uses_the_shared_names():
    assert bench_runner.BENCH_DATASETS == names.BENCH_DATASETS
    assert evaluate.CONVENTIONS == names.CONVENTIONS
    assert export.FORMATS == names.EXPORT_FORMATS
    assert tables.FORMATS == names.TABLE_FORMATS
    assert tables.INTERVAL_STYLES == names.INTERVAL_STYLES
    assert (results.RESULTS, results.SPEC) == (names.RESULTS, names.SPEC)
    assert bench_runner.BenchError is names.BenchError and bench_runner.run_key is names.run_key
    assert all(papers.needs_file(name) for name in bench_args.FILE_DATASETS)


def test_the_command_line_offers_the_shared_names():
    # What `qflow bench` accepts, read from its parsers: a copy of a list in
    # commands/bench_args.py that drifted from core.bench.names shows here.
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    bench = commands["bench"]
    subs = next(a for a in bench._actions if isinstance(a, argparse._SubParsersAction)).choices
    (dataset,) = [a for a in bench._actions if "--dataset" in a.option_strings]
    assert ", ".join(names.BENCH_DATASETS) in str(dataset.help)
    assert _choices(bench, "--convention") == _choices(subs["export"], "--convention") == names.CONVENTIONS
    assert _choices(bench, "--extract") == extract.EXTRACTIONS
    assert _choices(subs["export"], "--format") == names.EXPORT_FORMATS
    for table in ("compare", "table"):
        assert _choices(subs[table], "--format") == names.TABLE_FORMATS
        assert _choices(subs[table], "--intervals") == names.INTERVAL_STYLES


def test_the_names_module_loads_nothing_of_the_bench():
    code = (
        "import sys, qflow_tui.core.bench.names; "
        "print(sorted(m for m in sys.modules if m.startswith('qflow_tui.core.bench.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['qflow_tui.core.bench.names']"
