"""A dataset declares the formats ``qflow bench export`` writes its benches in
(issue 54): a plugin's set exports to exactly those, each problem named by the
id function it declares, and any other format is one line naming them."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from qflow_tui.cli import main
from qflow_tui.core.bench import sources
from qflow_tui.core.bench.bench_runner import BenchRunner, BenchSpec
from qflow_tui.core.bench.export import ExportError, first_format, refuse_other_tests
from qflow_tui.core.bench.report import BenchData
from qflow_tui.core.config import RunConfig
from qflow_tui.core.plugins import EntryPoint, PluginRefused


def _bench(folder: Path, ids: list[str]) -> Path:
    spec = BenchSpec("tinyset", RunConfig(model="reference", workflow="zeroshot"), ids=ids)
    asyncio.run(BenchRunner(spec, folder).run())
    return folder


def test_a_plugin_set_exports_to_the_formats_it_declares(tinyset: Path, tmp_path: Path, capsys) -> None:
    folder = _bench(tmp_path / "bench", ["leap", "double"])
    dest = tmp_path / "cc.jsonl"
    # Not told a format: the first the set declares (evalplus is not among them).
    assert main(["bench", "export", str(folder), "--out", str(dest)]) == 0
    lines = [json.loads(line) for line in dest.read_text().splitlines()]
    # Named by the plugin's own function, not by the title or a built-in's rule.
    assert sorted(line["name"] for line in lines) == ["double", "leap"]
    assert all(line["solution"]["language"] == "PYTHON3" and line["solution"]["solution"] for line in lines)
    capsys.readouterr()
    for fmt in ("evalplus", "human-eval", "apps"):
        assert main(["bench", "export", str(folder), "--format", fmt]) == 2
        err = capsys.readouterr().err
        assert "tinyset declares codecontests" in err and "use --format codecontests" in err, err
        assert err.count("\n") == 1 and "Traceback" not in err


def test_a_set_declaring_nothing_is_not_exported(tinyset: Path, tmp_path: Path) -> None:
    sources.SOURCES.register("bareset", sources.DatasetSource("bareset", "Bare", lambda path: []))
    try:
        with pytest.raises(ExportError, match="declares no export format"):
            refuse_other_tests(BenchData(tmp_path, {"dataset": "bareset"}, []), "evalplus")
        with pytest.raises(ExportError, match="declares no export format"):
            first_format(BenchData(tmp_path, {"dataset": "bareset"}, []))
    finally:
        del sources.SOURCES.extra["bareset"]
    with pytest.raises(ExportError, match="is not installed here"):
        refuse_other_tests(BenchData(tmp_path, {"dataset": "goneset"}, []), "evalplus")
    assert first_format(BenchData(tmp_path, {"dataset": "humaneval"}, [])) == "evalplus"
    assert first_format(BenchData(tmp_path, {"dataset": "apps-interview"}, [])) == "apps"


def test_a_plugins_id_function_that_fails_is_one_line(tinyset: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    folder = _bench(tmp_path / "bench", ["leap"])
    import qflow_tinyset  # type: ignore[import-not-found]

    def broken(pid: str) -> str:
        raise KeyError(pid)

    monkeypatch.setitem(qflow_tinyset.DATASET.exports, "codecontests", broken)
    assert main(["bench", "export", str(folder), "--format", "codecontests"]) == 2
    err = capsys.readouterr().err
    assert "tinyset's codecontests id function failed on 'tinyset/leap' (KeyError)" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("exports", "words"),
    [({"sharegpt": None}, "declare only evalplus"), ({"apps": "leap"}, "not a function"), ([], "not a dict")],
)
def test_a_bad_exports_declaration_refuses_the_plugin(exports: object, words: str) -> None:
    bad = sources.DatasetSource("badset", "Bad", lambda path: [], exports=exports)  # type: ignore[arg-type]
    with pytest.raises(PluginRefused, match=words):
        sources._check(bad, EntryPoint(sources.GROUP, "badset", "x:y"))
