"""The command-line flags of the workflows' settings, generated from their
definitions (:mod:`qflow_tui.core.workflows.settings`): one source of truth for
flags, config-file keys and the compose form. Values are taken as text and
checked by the settings themselves, so a bad value is one line, never argparse's
usage block."""

from __future__ import annotations

import argparse

from ..core.config import RunConfig
from ..core.workflows import WORKFLOWS
from ..core.workflows.settings import AnySetting
from ..core.workflows.values import all_settings


def _owners(setting: AnySetting) -> list[str]:
    return [spec.name for spec in WORKFLOWS.values() if any(s.key == setting.key for s in spec.settings)]


def _default_words(setting: AnySetting) -> str:
    if setting.type is bool:
        return "on" if setting.default else "off"
    return str(setting.default)


def setting_help(setting: AnySetting) -> str:
    return f"{', '.join(_owners(setting))}: {setting.doc} ({setting.allowed()}; default {_default_words(setting)})"


def add_workflow_options(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--workflow`` and one flag per workflow setting."""
    p.add_argument(
        "--workflow",
        metavar="NAME",
        help=f"{' | '.join(WORKFLOWS)} (default {RunConfig.workflow}); `qflow workflows` lists them and their settings",
    )
    for setting in all_settings():
        if setting.type is bool:
            p.add_argument(
                setting.flag, dest=setting.key, action=argparse.BooleanOptionalAction, help=setting_help(setting)
            )
        else:
            metavar = "|".join(setting.choices) if setting.choices else setting.type.__name__.upper()
            p.add_argument(setting.flag, dest=setting.key, metavar=metavar, help=setting_help(setting))


def workflow_overrides(args: argparse.Namespace) -> dict[str, object]:
    """The workflow and its settings as given on the command line (None: not given)."""
    keys = ["workflow", *(s.key for s in all_settings())]
    return {k: getattr(args, k, None) for k in keys}
