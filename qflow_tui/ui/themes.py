"""Themes as data: each ``themes/<name>.tcss`` file declares a theme's colours as
Textual CSS variables; this module turns the files into ``textual.theme.Theme``
objects for ``App.register_theme``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from textual.theme import Theme

from ..locations import themes_dir

DEFAULT_THEME = "qflow-dark"

#: Theme fields a file may set; every other variable goes to Theme.variables.
_COLOUR_FIELDS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
_VAR_RE = re.compile(r"^\s*\$([A-Za-z][\w-]*)\s*:\s*(.+?)\s*;\s*$")
_COMMENT_RE = re.compile(r"/\*.*?\*/", re.S)


class ThemeFileError(ValueError):
    """A theme file that cannot be read; the message names the file and line."""


def parse_theme(name: str, text: str, origin: str = "") -> Theme:
    """Build a Theme from the variable declarations of one ``.tcss`` file."""
    values: dict[str, str] = {}
    body = _COMMENT_RE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    for number, line in enumerate(body.splitlines(), start=1):
        if not line.strip():
            continue
        m = _VAR_RE.match(line)
        if m is None:
            raise ThemeFileError(
                f"{origin or name}, line {number}: expected `$name: value;`, got {line.strip()[:60]!r}"
            )
        values[m.group(1)] = m.group(2)
    if "primary" not in values:
        raise ThemeFileError(f"{origin or name}: a theme needs at least `$primary`")
    dark = values.pop("dark", "true").lower() not in ("false", "no", "0")
    colours: dict[str, Any] = {k: values.pop(k) for k in _COLOUR_FIELDS if k in values}
    return Theme(name=name, dark=dark, variables=values, **colours)


def load_themes(folder: Path | None = None) -> list[Theme]:
    """Every theme in the themes folder, sorted by name."""
    folder = folder or themes_dir()
    themes = []
    for path in sorted(folder.glob("*.tcss")):
        themes.append(parse_theme(path.stem, path.read_text(encoding="utf-8"), str(path)))
    return themes


def theme_variable_defaults() -> dict[str, str]:
    """Values for the app's own CSS variables when a theme (e.g. a built-in one)
    lacks them. The qf-*-theme variables are read in Python, with a fallback
    chosen by the theme's darkness (see palette.py), so they need none."""
    return {}
