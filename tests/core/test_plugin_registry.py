"""One plugin registry for workflows, providers and datasets
(``plugins.Registry[T]``): entries read on first use, built-ins first and never
replaced, a broken plugin one line, the listing doctor prints."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from qflow_tui.core import plugins
from qflow_tui.core.bench import sources
from qflow_tui.core.llm import registry as providers
from qflow_tui.core.plugins import EntryPoint, PluginRefused, Registry
from qflow_tui.core.workflows import WORKFLOWS

GROUP = "qflow.test-things"


def _check(obj: object, entry: EntryPoint) -> str:
    if not isinstance(obj, str):
        raise PluginRefused(f"it is a {type(obj).__name__}, not text")
    return obj


def _install(folder: Path, lines: str) -> None:
    info = folder / "qf_things-0.1.dist-info"
    info.mkdir()
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n{lines}\n")


def test_a_registry_reads_on_first_use_and_says_what_it_refused(tmp_path, monkeypatch) -> None:
    (tmp_path / "qf_things.py").write_text("GOOD = 'gamma'\nBAD = 3\nSAME = 'qflow.datasets'\nprint('hello\\x1b[2J')\n")
    _install(tmp_path, "gamma = qf_things:GOOD\nbad = qf_things:BAD\nclash = qf_things:SAME")
    monkeypatch.syspath_prepend(str(tmp_path))
    # A built-in "thing": qflow's own text, named by its value.
    builtins = [EntryPoint(GROUP, "qflow.datasets", "qflow_tui.core.bench.sources:GROUP")]
    things: Registry[str] = Registry(GROUP, "thing", _check, lambda s: s, lambda: builtins)
    assert not things.loaded
    assert list(things) == ["qflow.datasets", "gamma"]  # the built-in first, then the plugin
    assert things.loaded and things.plugin_names() == ["gamma"]
    assert things.builtin("qflow.datasets") and not things.builtin("gamma")
    lines = things.refused_lines()
    assert len(lines) == 2 and "bad (qf_things:BAD): it is a int, not text" in lines[0]
    assert "named like the built-in thing" in lines[1]
    assert things.refusal("bad") is not None and things.refusal("gamma") is None
    assert things.said and "\x1b" not in things.said[0]
    things.register("delta", "delta")
    assert "delta" in things and things["delta"] == "delta"
    things.reset()
    assert not things.loaded
    sys.modules.pop("qf_things", None)


def test_workflows_providers_and_datasets_are_one_kind_of_registry() -> None:
    for registry in (WORKFLOWS, providers.PROVIDERS, sources.SOURCES):
        assert isinstance(registry, Registry)
    assert {"qualityflow", "zeroshot"} <= set(WORKFLOWS)
    assert list(providers.PROVIDERS)[:2] == ["anthropic", "openai"]
    assert list(sources.SOURCES)[:2] == ["humaneval", "humaneval-plus"]
    assert sources.broken_datasets() == []


def test_entry_names_imports_nothing(tmp_path, monkeypatch) -> None:
    _install(tmp_path, "gamma = qf_things_never:GOOD")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "gamma" in plugins.entry_names(GROUP)
    assert "qf_things_never" not in sys.modules
    with pytest.raises(ModuleNotFoundError):
        plugins.import_target("qf_things_never:GOOD")


def test_doctor_and_bench_help_name_a_dataset_plugin(tinyset: Path) -> None:
    import io

    from qflow_tui.cli import build_parser
    from qflow_tui.commands.doctor import plugin_report, print_plugins

    report = plugin_report()
    assert report["datasets"]["loaded"] == ["tinyset"] and report["datasets"]["refused"] == []
    out = io.StringIO()
    print_plugins(report, out)
    assert "dataset plugins: tinyset (qflow.datasets entry points besides the built-ins)" in out.getvalue()
    bench = build_parser()._subparsers._group_actions[0].choices["bench"]  # type: ignore[union-attr]
    assert "installed: tinyset" in bench.format_help().replace("\n", " ").replace("  ", " ")
