"""Shared test set-up: every test gets its own config and data folders, so no
test reads the user's config or writes into the user's sessions."""

from __future__ import annotations

import gc
import os

import pytest


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: half again as many workers as cores. About a third of a
    worker's time is spent waiting (sandboxed programs running out their time
    limits, processes being killed and reaped): a third worker fills it. On the
    2-core machine the suite took 260 s with three workers, twice, and 289-358 s
    with two, in four runs that afternoon."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, cores * 3 // 2)


def pytest_collection_finish(session: pytest.Session) -> None:
    """The garbage collector, tuned for a process that builds a hundred apps.

    Each app test leaves tens of thousands of objects in Textual's bounded caches
    and makes as many cyclic ones that die with its app; Python's full
    collections walked all of it again about once a test, a quarter of an app
    test module's CPU. What is alive once the tests are collected (modules,
    classes, fixtures) is frozen out of every collection, and a collection
    starts after 20,000 new objects instead of 700: the app tests take about a
    fifth less CPU, for some 60 MB more per worker."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 10, 10)


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory, monkeypatch):
    base = tmp_path_factory.mktemp("qflow-home")
    monkeypatch.setenv("QFLOW_CONFIG_DIR", str(base / "config"))
    monkeypatch.setenv("QFLOW_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("QFLOW_CACHE_DIR", str(base / "cache"))
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    # Plain-text tables are as wide as the terminal says: the same width under
    # every runner (pytest-xdist workers say 80, a developer's terminal more).
    monkeypatch.setenv("COLUMNS", "120")
    # The references this process read (what --model reference answers with)
    # are one test's own: a test that loads a dataset with its solutions
    # replaced must not leave them to the next test of its worker.
    from qflow_tui.core.bench import sources

    monkeypatch.setattr(sources, "_READ_REFERENCES", dict(sources._READ_REFERENCES))
    yield base


@pytest.fixture
def tinyset(tmp_path, monkeypatch):
    """The tinyset dataset plugin (tests/data/plugin/qflow-tinyset, shipped=True)
    installed on sys.path as pip leaves it (a dist-info naming its entry); the
    dataset registry reads it afresh. Yields the site folder."""
    from qflow_tui.core.bench import sources
    from tests.helpers import ROOT, install_distribution

    site = tmp_path / "site"
    install_distribution(site, "qflow_tinyset", sources.GROUP, {"tinyset": "qflow_tinyset:DATASET"}, {})
    monkeypatch.syspath_prepend(str(ROOT / "tests" / "data" / "plugin" / "qflow-tinyset"))
    monkeypatch.syspath_prepend(str(site))
    sources.SOURCES.reset()
    yield site
    sources.SOURCES.reset()
