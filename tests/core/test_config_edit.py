"""Saving a setting or an app preference keeps the user's file as written,
and leaves a file it cannot read alone, in one line naming what was saved."""

from __future__ import annotations

from pathlib import Path

import pytest

from qflow_tui.core.app_prefs import load_prefs, save_prefs
from qflow_tui.core.config import ConfigError, save_setting

KEPT = '# my settings\nmodel = "script/r.py"  # the model\n'


def test_a_setting_joins_the_top_level_and_a_preference_its_app_table(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(KEPT, encoding="utf-8")
    save_setting("theme", "nord", path)
    save_prefs({"welcome": False}, path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith(KEPT + 'theme = "nord"\n')
    assert text.endswith("\n[app]\nwelcome = false\n")
    assert load_prefs(path).welcome is False
    save_prefs({"welcome": None}, path)  # None removes it: the default again
    assert "welcome" not in path.read_text(encoding="utf-8") and load_prefs(path).welcome is True


def test_an_empty_file_gets_a_run_table(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    save_setting("theme", "nord", path)
    assert path.read_text(encoding="utf-8") == '[run]\ntheme = "nord"\n'


@pytest.mark.parametrize(
    ("text", "save", "words"),
    [
        ("x = [", lambda p: save_setting("theme", "nord", p), "not valid TOML .*; not saving theme there"),
        ("x = [", lambda p: save_prefs({"welcome": False}, p), "not valid TOML .*; not saving the settings there"),
        ('app = "on"\n', lambda p: save_prefs({"welcome": False}, p), "app is not a table; not saving there"),
    ],
)
def test_a_file_it_cannot_read_is_left_as_it_was(tmp_path: Path, text: str, save, words: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=words):
        save(path)
    assert path.read_text(encoding="utf-8") == text
