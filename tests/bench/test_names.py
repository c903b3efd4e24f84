"""core.bench.names holds the names the bench, the command line and the app
share; the modules that act on them agree with it (issue 52: the command
line's copies had drifted out of reach of any check)."""

from __future__ import annotations

import subprocess
import sys

from qflow_tui.commands import bench as command
from qflow_tui.core import extract
from qflow_tui.core.bench import bench_runner, evaluate, export, names, papers, results, tables


def test_every_module_uses_the_shared_names():
    assert bench_runner.BENCH_DATASETS == names.BENCH_DATASETS == command.DATASET_CHOICES
    assert evaluate.CONVENTIONS == names.CONVENTIONS == command.CONVENTION_CHOICES
    assert export.FORMATS == names.EXPORT_FORMATS == command.EXPORT_FORMATS
    assert tables.FORMATS == names.TABLE_FORMATS == command.TABLE_FORMATS
    assert tables.INTERVAL_STYLES == names.INTERVAL_STYLES == command.INTERVAL_STYLES
    assert extract.EXTRACTIONS == command.EXTRACT_CHOICES
    assert (results.RESULTS, results.SPEC) == (names.RESULTS, names.SPEC)
    assert bench_runner.BenchError is names.BenchError and bench_runner.run_key is names.run_key
    assert all(papers.needs_file(name) for name in command.FILE_DATASETS)


def test_the_names_module_loads_nothing_of_the_bench():
    code = (
        "import sys, qflow_tui.core.bench.names; "
        "print(sorted(m for m in sys.modules if m.startswith('qflow_tui.core.bench.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['qflow_tui.core.bench.names']"
