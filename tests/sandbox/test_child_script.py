"""The sandbox's child script is kept as parts (core/sandbox/harness/) that
the launcher joins before compiling: what a child runs is every part, in
order, without its header; a missing part is one clear line."""

from __future__ import annotations

import ast
import shutil

import pytest

from qflow_tui.core.sandbox import harness, launch
from qflow_tui.core.sandbox.launch import SandboxUnavailable


def _body(name: str) -> str:
    text = (harness._HERE / f"{name}.py").read_text(encoding="utf-8")
    return text.partition(harness.HEADER_END)[2].strip("\n") if harness.HEADER_END in text else text.strip("\n")


def test_the_launcher_compiles_the_parts_joined_in_order():
    joined = launch.harness_source()
    assert joined == harness.joined_source()
    at = [joined.index(_body(name)) for name in harness.PARTS]
    assert at == sorted(at) and at[0] == 0
    assert harness.HEADER_BEGIN.strip() not in joined and harness.HEADER_END.strip() not in joined
    compile(joined, "harness", "exec")
    # Every part file is joined; the script ends by running the child.
    files = {p.stem for p in harness._HERE.glob("*.py")} - {"__init__"}
    assert files == set(harness.PARTS)
    assert joined.rstrip().endswith('_run(_zygote_main if sys.argv[1:2] == ["zygote"] else main)')


def test_each_part_imports_only_from_the_parts_before_it():
    for k, name in enumerate(harness.PARTS):
        tree = ast.parse((harness._HERE / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                assert node.module in harness.PARTS[:k], (name, node.module)


def test_the_joined_script_defines_what_the_parts_define():
    joined = ast.parse(harness.joined_source())
    names = {n.name for n in joined.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    for name in harness.PARTS:
        tree = ast.parse(_body(name))
        assert {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))} <= names


def test_a_missing_part_is_one_clear_line(tmp_path, monkeypatch):
    for name in harness.PARTS:
        shutil.copy(harness._HERE / f"{name}.py", tmp_path / f"{name}.py")
    assert harness.joined_source(tmp_path) == harness.joined_source()
    (tmp_path / "oracle.py").unlink()
    with pytest.raises(harness.MissingPart, match=r"lacks its part .*oracle\.py .*reinstall qflow"):
        harness.joined_source(tmp_path)
    # Through the launcher, as a run meets it: the sandbox is unavailable, said in one line.
    monkeypatch.setattr(harness, "_HERE", tmp_path)
    launch.harness_source.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable, match=r"oracle\.py") as caught:
            launch.harness_source()
        assert "\n" not in str(caught.value)
    finally:
        launch.harness_source.cache_clear()


def test_a_part_with_a_broken_header_is_refused(tmp_path):
    for name in harness.PARTS:
        shutil.copy(harness._HERE / f"{name}.py", tmp_path / f"{name}.py")
    text = (tmp_path / "modes.py").read_text(encoding="utf-8")
    (tmp_path / "modes.py").write_text(text.replace(harness.HEADER_END, ""), encoding="utf-8")
    with pytest.raises(harness.MissingPart, match=r"modes\.py has a broken header"):
        harness.joined_source(tmp_path)
