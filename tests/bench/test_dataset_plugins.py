"""Datasets from plugins go through the hardened loader: a good one is found
beside the built-ins, a broken one is one refused line, and none replaces a
built-in."""

from __future__ import annotations

import sys

from qflow_tui.core import plugins
from qflow_tui.core.bench import sources
from qflow_tui.core.plugins import EntryPoint

PLUGIN = """
from qflow_tui.core.bench.sources import DatasetSource, jsonl_problem, read_records

def _read(path):
    return [jsonl_problem(rec, n, "mycontest") for n, rec in enumerate(read_records(path))]

GOOD = DatasetSource("mycontest", "a contest", _read)
CLASH = DatasetSource("humaneval", "not the real one", _read)
NOT_A_SOURCE = {"name": "x"}
raise_at = None
"""


def test_plugins_found_refused_and_never_replacing_a_builtin(tmp_path, monkeypatch) -> None:
    (tmp_path / "qf_test_dsplugin.py").write_text(PLUGIN)
    (tmp_path / "qf_test_dsbroken.py").write_text("raise RuntimeError('boom at import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    entries = [
        *sources._builtin_entries(),
        EntryPoint(sources.GROUP, "mycontest", "qf_test_dsplugin:GOOD"),
        EntryPoint(sources.GROUP, "humaneval", "qf_test_dsplugin:CLASH"),
        EntryPoint(sources.GROUP, "odd", "qf_test_dsplugin:NOT_A_SOURCE"),
        EntryPoint(sources.GROUP, "broken", "qf_test_dsbroken:X"),
    ]
    loaded = plugins.load_group(sources.GROUP, sources._check, lambda s: s.name, entries=entries, kind="dataset")
    assert "mycontest" in loaded.found
    assert loaded.found["humaneval"] is sources.HUMANEVAL
    reasons = {r.entry.name: r.reason for r in loaded.refused}
    assert set(reasons) == {"humaneval", "odd", "broken"}
    assert "not a qflow DatasetSource" in reasons["odd"] and "boom at import" in reasons["broken"]
    assert all("\n" not in r.line() for r in loaded.refused)
    # The plugin's reader, through the bench's loader.
    monkeypatch.setattr(sources.SOURCES, "_found", dict(loaded.found))
    data = tmp_path / "set.jsonl"
    data.write_text('{"task_id": "a", "statement": "Echo.", "hidden": [{"input": "x\\n", "output": "x\\n"}]}\n')
    (bp,) = sources.load_from_source("mycontest", data)
    assert bp.id == "mycontest/a" and bp.io_tests == [("x\n", "x\n")]
    sys.modules.pop("qf_test_dsplugin", None)
    sys.modules.pop("qf_test_dsbroken", None)
