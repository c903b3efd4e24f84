"""The app's own preferences, kept in the config file's ``[app]`` table beside
the run settings (``[run]``): whether the welcome dialog shows, whether runs
start in step mode, and the bench form's cost cap. A run never reads them;
the settings screen (F5) writes them, and a hand-edited bad value is one line
naming the file and the setting."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..locations import config_file
from .config_file import ConfigError, edit_config, parse_config
from .safe_text import one_line

if TYPE_CHECKING:
    from tomlkit import TOMLDocument

#: The config file's table of app preferences.
TABLE = "app"


@dataclass(frozen=True)
class AppPrefs:
    """What the app remembers of how this user works (see the module docstring)."""

    welcome: bool = True
    """Show the three ways in (the welcome dialog) when the default model has no key."""
    step_mode: bool = False
    """Start runs paused before every workflow step (the form's Step mode, ``--step``)."""
    bench_max_cost: float | None = None
    """The bench form's Max cost in US dollars (None: no cap)."""


#: Each preference with what it takes, in words (for the one-line errors).
KINDS = {"welcome": "true or false", "step_mode": "true or false", "bench_max_cost": "US dollars above 0"}


def check_pref(key: str, value: object, where: str) -> object:
    """``value`` as preference ``key`` takes it; ConfigError (one line) otherwise."""
    if key not in KINDS:
        raise ConfigError(f"{where}: unknown setting {one_line(repr(key), 60)}; known: {', '.join(KINDS)}")
    if key in ("welcome", "step_mode"):
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: {key} must be true or false, not {one_line(repr(value), 60)}")
        return value
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{where}: {key} must be US dollars above 0 (e.g. 5 or 0.5), not {one_line(repr(value), 60)}")
    return float(value)


def load_prefs(path: Path | None = None) -> AppPrefs:
    """The ``[app]`` table of the config file (defaults where it says nothing).
    Raises ConfigError (one line) for a file that is not TOML or a bad value."""
    path = path or config_file()
    data = parse_config(path)
    if not data:
        return AppPrefs()
    table = data.get(TABLE, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [{TABLE}] must be a table, e.g. [{TABLE}] then welcome = false on the next line")
    values = {key: check_pref(key, value, f"{path} [{TABLE}]") for key, value in table.items()}
    return AppPrefs(**values)  # type: ignore[arg-type]


def save_prefs(changes: dict[str, object], path: Path | None = None) -> None:
    """Write ``changes`` to the ``[app]`` table, keeping the rest of the file as
    the user wrote it (comments, order; tomlkit). A None value removes the key
    (its default applies). A file that is not valid TOML is left alone:
    ConfigError."""
    path = path or config_file()
    for key, value in changes.items():
        if value is not None:
            check_pref(key, value, f"[{TABLE}]")

    def put(doc: TOMLDocument, _empty: bool) -> None:
        if TABLE not in doc:
            doc[TABLE] = {}  # an [app] table (tomlkit makes one of a dict)
        table = doc[TABLE]
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: {TABLE} is not a table; not saving there, fix or delete the file")
        for key, value in changes.items():
            if value is None:
                table.pop(key, None)
            else:
                table[key] = value

    edit_config(path, "the settings", put)
