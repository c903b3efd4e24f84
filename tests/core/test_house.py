"""Issue 52's gates, held by the suite: no giant room, no import circle, few
seams without a type and few imports hidden in functions. ``bench/layers.py``
measures them (and prints the rest of the table); this reads its figures."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def layers():
    spec = importlib.util.spec_from_file_location("qflow_bench_layers", ROOT / "bench" / "layers.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def gates(layers):
    return layers.house(ROOT / "qflow_tui")


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
