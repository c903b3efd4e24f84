"""The app's own preferences, kept in the config file's ``[app]`` table beside
the run settings (``[run]``): whether the welcome dialog shows, whether runs
start in step mode, and the bench form's cost cap. A run never reads them;
the settings screen (F5) writes them, and a hand-edited bad value is one line
naming the file and the setting."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..locations import config_file
from .config_file import ConfigError, read_config_text
from .safe_text import one_line

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
    text = read_config_text(path)
    if not text:
        return AppPrefs()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({one_line(str(exc))}); fix or delete the file") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML (nested too deeply); fix or delete the file") from None
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
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    path = path or config_file()
    for key, value in changes.items():
        if value is not None:
            check_pref(key, value, f"[{TABLE}]")
    text = read_config_text(path) or ""
    try:
        doc = tomlkit.parse(text) if text else tomlkit.document()
    except (TOMLKitError, RecursionError) as exc:
        why = f"{path}: not valid TOML ({one_line(str(exc))}); not saving there, fix or delete the file"
        raise ConfigError(why) from None
    table = doc.get(TABLE)
    if table is None:
        table = tomlkit.table()
        doc[TABLE] = table
    elif not isinstance(table, dict):
        raise ConfigError(f"{path}: {TABLE} is not a table; not saving there, fix or delete the file")
    for key, value in changes.items():
        if value is None:
            table.pop(key, None)
        else:
            table[key] = value
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(tomlkit.dumps(doc), encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot save the settings there ({exc.strerror or exc})") from None
