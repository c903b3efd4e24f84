"""The sandbox package gives its names through one table, ``LAZY_NAMES`` in
``core/sandbox/__init__.py``: what a bench's early start needs (the config,
detection, the zygote's pool) loads without the runner and asyncio, and every
name the package gives still finds what it always named."""

from __future__ import annotations

import sys

import pytest
from helpers import loaded_after

from qflow_tui.core import sandbox
from qflow_tui.core.sandbox import LAZY_NAMES, config, isolation


def test_the_early_start_loads_neither_the_runner_nor_asyncio():
    code = (
        "from qflow_tui.core.sandbox.config import SandboxConfig\nfrom qflow_tui.core.sandbox.pool import start_early"
    )
    assert loaded_after(code, ["asyncio", "qflow_tui.core.sandbox.sandbox", "qflow_tui.core.sandbox.api"]) == []


@pytest.mark.parametrize(("name", "module"), sorted(LAZY_NAMES.items()))
def test_each_name_is_found_in_its_module(name: str, module: str):
    found = getattr(sandbox, name)
    assert found is getattr(sys.modules[f"qflow_tui.core.sandbox.{module}"], name)


def test_the_package_gives_every_name_it_lists_and_dir_shows_them():
    assert sorted(sandbox.__all__) == sorted(LAZY_NAMES)
    assert set(LAZY_NAMES) <= set(dir(sandbox))


def test_detect_isolation_defaults_to_the_configs_isolation(monkeypatch):
    asked: list[str] = []
    monkeypatch.setattr(isolation, "_cache", {})
    monkeypatch.setattr(isolation, "_detect", lambda spec: asked.append(spec))
    monkeypatch.setenv(config.ISOLATION_ENV, "rlimits")
    sandbox.detect_isolation()
    sandbox.detect_isolation("bwrap")
    assert asked == [config.SandboxConfig().effective_isolation(), "bwrap"]
    assert asked[0] == "rlimits"


def test_a_name_the_table_lacks_is_an_attribute_error_and_a_submodule_still_imports():
    with pytest.raises(AttributeError, match="NoSuchName"):
        sandbox.NoSuchName  # noqa: B018
    from qflow_tui.core.sandbox import pool  # a submodule, not a name of the table

    assert pool.__name__ == "qflow_tui.core.sandbox.pool"
