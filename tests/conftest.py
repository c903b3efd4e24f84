"""Shared test set-up: every test gets its own config and data folders, so no
test reads the user's config or writes into the user's sessions."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory, monkeypatch):
    base = tmp_path_factory.mktemp("qflow-home")
    monkeypatch.setenv("QFLOW_CONFIG_DIR", str(base / "config"))
    monkeypatch.setenv("QFLOW_DATA_DIR", str(base / "data"))
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    # Plain-text tables are as wide as the terminal says: the same width under
    # every runner (pytest-xdist workers say 80, a developer's terminal more).
    monkeypatch.setenv("COLUMNS", "120")
    yield base
