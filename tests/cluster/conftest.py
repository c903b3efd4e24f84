"""A real local Ray cluster for the cluster tests: a head and one worker node
(``--num-cpus 1`` each, a small object store, ports and a temp dir of their
own), started once per session and ended by the PIDs it started. Every test
here is skipped, with the reason, where Ray cannot be imported."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
HAS_RAY = importlib.util.find_spec("ray") is not None


@pytest.fixture(scope="session")
def bench_cluster() -> ModuleType:
    """bench/cluster.py (the problem generator and the local cluster), loaded by its path."""
    name = "qflow_bench_cluster"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "cluster.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="session")
def cluster(bench_cluster: ModuleType) -> Iterator[object]:
    if not HAS_RAY:
        pytest.skip("Ray is not installed: pip install -e '.[ray]'")
    local = bench_cluster.LocalCluster(Path(sys.executable).parent / "ray", workers=1, tag="qflow-test")
    try:
        yield local
    finally:
        local.stop()
