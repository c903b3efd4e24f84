"""The screens the app opens later (run, replay, bench, compare, sessions) load
through one table, ``ui/screens/__init__.py``'s ``LAZY_SCREENS``: none of them
is imported with the app, and each name finds its class when asked for."""

from __future__ import annotations

import pytest
from helpers import loaded_after

from qflow_tui.ui import screens
from qflow_tui.ui.screens import LAZY_SCREENS


def test_importing_the_app_loads_none_of_the_lazy_screens():
    modules = [f"qflow_tui.ui.screens.{m}" for m in LAZY_SCREENS.values()]
    assert loaded_after("import qflow_tui.ui.app", modules) == []


@pytest.mark.parametrize(("name", "module"), sorted(LAZY_SCREENS.items()))
def test_each_lazy_screen_is_found_by_its_name(name: str, module: str):
    found = getattr(screens, name)
    assert (found.__name__, found.__module__) == (name, f"qflow_tui.ui.screens.{module}")


def test_a_name_the_table_lacks_is_an_attribute_error():
    with pytest.raises(AttributeError, match="NoSuchScreen"):
        screens.NoSuchScreen  # noqa: B018
