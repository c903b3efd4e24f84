"""bench/layers.py, the metrics script issue 52's closing note quotes, and the
gates the suite holds with it: it finds an import circle that an import inside
a function hides, and not one made of a ``TYPE_CHECKING`` import."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "bench" / "layers.py"


def _layers():
    spec = importlib.util.spec_from_file_location("layers_under_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "qflow_tui" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "qflow_tui"


def test_a_circle_hidden_in_a_function_is_found_and_a_type_checking_import_is_not(tmp_path):
    pkg = _package(
        tmp_path,
        {
            "__init__.py": "",
            "core/__init__.py": "",
            "core/runner.py": "from .report import render\n",
            "core/report.py": "def render():\n    from .runner import run\n",
            "core/data.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .view import View\n",
            "core/view.py": "from . import data\n",
        },
    )
    done = subprocess.run([sys.executable, str(SCRIPT), "--root", str(pkg)], capture_output=True, text=True, check=True)
    out = done.stdout
    assert "import circles (imports in functions counted, TYPE_CHECKING aside): 1" in out
    assert "  core.report <-> core.runner" in out
    assert "| import circles | 1 |" in out
    # One import in a function, outside commands/ and the child script.
    assert "| function-level imports, per 1k lines |" in out and "outside commands/ and the child script" in out


def test_circles_are_the_strongly_connected_groups():
    layers = _layers()
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert layers.circles(graph) == [["a", "b", "c"]]
    assert layers.circles({"a": {"b"}, "b": set()}) == []


# Issue 52's gates, held by the suite: no giant room, no import circle, few
# seams without a type and few imports hidden in functions.


@pytest.fixture(scope="module")
def layers():
    return _layers()


@pytest.fixture(scope="module")
def gates(layers):
    return layers.house(SCRIPT.parents[1] / "qflow_tui")


def test_no_module_is_a_giant_room(layers, gates):
    lines, path = gates.biggest
    assert lines <= layers.BIG_MODULE, f"{path} has {lines} lines: split it (at most {layers.BIG_MODULE})"


def test_no_import_circle(gates):
    assert gates.rings == [], "import circles: " + "; ".join(" <-> ".join(r) for r in gates.rings)


def test_few_seams_without_a_type(gates):
    assert gates.per_1k(gates.any_in_signatures) <= 3.0


def test_few_imports_hidden_in_functions(gates):
    assert gates.per_1k(gates.imports_outside) <= 1.5


def test_the_gates_see_what_they_measure(layers, tmp_path: Path):
    """A package made to fail every gate fails every gate."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(
        "from typing import Any\nfrom . import b\n\n\ndef f(x: Any) -> Any:\n    import json\n    return x\n"
    )
    (pkg / "b.py").write_text("def g():\n    from . import a\n" + "x = 1\n" * (layers.BIG_MODULE + 1))
    found = layers.house(pkg)
    assert found.biggest[0] > layers.BIG_MODULE and found.biggest[1].endswith("b.py")
    assert found.rings and set(found.rings[0]) == {"pkg.a", "pkg.b"}
    assert found.any_in_signatures == 2
    assert found.imports_outside == 2
