"""One module per ``qflow`` subcommand: ``add_parser(subparsers)`` and ``run(args) -> int``."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TypeAlias

from ..core.safe_text import one_line

if TYPE_CHECKING:
    from ..core.config import RunConfig

#: What each command's ``add_parser`` is given: ``qflow``'s subcommands.
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def fail(message: str, code: int = 2) -> int:
    """Print a one-line reason and return the exit code (never a traceback).
    The reason may quote a file or a model: it is printed on one line with
    every control sequence removed."""
    print(f"qflow: {one_line(message)}", file=sys.stderr)
    return code


_SAID_REFUSED = False


def say_refused_plugins() -> None:
    """Name each workflow and provider plugin that was not loaded, and why,
    once per process on stderr (one line each); nothing when the workflows were
    never read."""
    global _SAID_REFUSED
    from ..core.llm import broken_providers
    from ..core.workflows import WORKFLOWS, broken_plugins

    if _SAID_REFUSED or not WORKFLOWS.loaded:
        return
    _SAID_REFUSED = True
    for line in broken_plugins():
        print(f"qflow: a workflow could not be loaded: {one_line(line)}", file=sys.stderr)
    for line in broken_providers():
        print(f"qflow: a model provider could not be loaded: {one_line(line)}", file=sys.stderr)


def viewing_config() -> RunConfig:
    """The user's settings for opening the app on something recorded (a replay,
    a comparison): those need no settings, so a broken config file is a
    one-line note, not a refusal."""
    from ..core.config import ConfigError, RunConfig
    from ..core.workflows.values import load_config

    try:
        return load_config()
    except ConfigError as exc:
        print(f"qflow: ignoring the config file: {one_line(str(exc))}")
        return RunConfig()
