"""``qflow``: the app with no arguments, or a subcommand (solve, check, ...)."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys

from . import __version__

#: Subcommand modules under qflow_tui.commands; each has add_parser() and run().
COMMANDS = ("solve", "workflows", "check", "doctor", "sessions", "replay", "fork", "compare", "demo", "bench")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="qflow",
        description="Watch and steer LLM program synthesis with QualityFlow. "
        "Without a command, opens the terminal app.",
    )
    parser.add_argument("--version", action="version", version=f"qflow-tui {__version__}")
    from .commands.app import add_app_options

    add_app_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"qflow_tui.commands.{name}")
        module.add_parser(sub)
    for command in sub.choices.values():
        _plain_help(command)
    return parser


def _plain_help(parser: argparse.ArgumentParser) -> None:
    """Help shows plain text: the commands' docstrings are written in reStructuredText
    (``qflow solve``), which a terminal should show as `qflow solve`."""
    if parser.description:
        parser.description = _plain(parser.description)
    for action in parser._actions:
        if isinstance(action.help, str):
            action.help = _plain(action.help)


def _plain(text: str) -> str:
    return text.replace("``", "`")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "bench" in argv:
        from .commands.bench import spread_ids

        argv = spread_ids(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        from .commands import app as app_command

        return int(app_command.run(args) or 0)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("qflow: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader left (`qflow sessions | head`): stop quietly, as other tools do.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
