"""Every path the app uses, in one place (platformdirs for user folders)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "qflow-tui"

_CHECKOUT = Path(__file__).resolve().parent.parent


def _data_root(checkout_name: str, installed_name: str) -> Path:
    """A folder that lives at the top of the checkout and ships in the wheel as
    ``qflow_tui/<installed_name>``: prefer the checkout (editable installs,
    running from source), else the installed copy."""
    here = _CHECKOUT / checkout_name
    if here.is_dir() and (_CHECKOUT / "pyproject.toml").exists():
        return here
    return Path(__file__).resolve().parent / installed_name


def prompts_dir() -> Path:
    return _data_root("prompts", "_prompts")


def themes_dir() -> Path:
    return _data_root("themes", "_themes")


def package_data_dir() -> Path:
    """Data that ships inside the package itself (the demo session, ...)."""
    return Path(__file__).resolve().parent / "data"


def demo_session() -> Path:
    """The session that ships with qflow (``qflow demo``)."""
    return package_data_dir() / "demo" / "demo-session.jsonl"


def config_dir() -> Path:
    override = os.environ.get("QFLOW_CONFIG_DIR")
    return Path(override) if override else Path(platformdirs.user_config_dir(APP_NAME))


def config_file() -> Path:
    return config_dir() / "config.toml"


def data_dir() -> Path:
    override = os.environ.get("QFLOW_DATA_DIR")
    return Path(override) if override else Path(platformdirs.user_data_dir(APP_NAME))


def cache_dir() -> Path:
    override = os.environ.get("QFLOW_CACHE_DIR")
    return Path(override) if override else Path(platformdirs.user_cache_dir(APP_NAME))


def ground_truth_dir() -> Path:
    """The ground truth ``qflow bench`` keeps for EvalPlus checks (see ``sandbox.truth``)."""
    return cache_dir() / "ground-truth"


def sessions_dir() -> Path:
    return data_dir() / "sessions"
