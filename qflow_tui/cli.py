"""``qflow``: the app with no arguments, or a subcommand (solve, check, ...)."""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import importlib
import os
import sys
from typing import NoReturn

from . import __version__
from .core.safe_text import one_line

#: Subcommand modules under qflow_tui.commands; each has add_parser() and run().
COMMANDS = ("solve", "workflows", "models", "check", "doctor", "sessions", "replay", "fork", "compare", "demo", "bench")


class _Parser(argparse.ArgumentParser):
    """Refuses bad flags in one line, as qflow refuses every bad input, instead
    of argparse's usage block (`--help` still shows it). Its commands' parsers
    are of this class too."""

    help_for = ""
    """Whose help the message points to, when not this parser's: the top parser
    reports a command's unrecognized flags (``qflow solve --bogus``)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see `{self.help_for or self.prog} --help`)\n")


def _misplaced_option(parser: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """What to say of an option given before any command that the app does not
    take (``qflow --retries 1``): argparse took the ``1`` for a command and
    said "invalid choice: '1'"."""
    top = [s for action in parser._actions for s in action.option_strings]
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    for word in argv:
        if word in commands:
            return None
        name = word.split("=", 1)[0]
        if not name.startswith("--") or any(option.startswith(name) for option in top):
            continue
        owners = [c for c, p in commands.items() if any(name in a.option_strings for a in p._actions)]
        if not owners:
            return None  # nobody's option: argparse's own message says so
        said = owners[0] if len(owners) == 1 else f"{', '.join(owners[:-1])} and {owners[-1]}"
        takes = "takes" if len(owners) == 1 else "take"
        return f"qflow: {name} is not an option of the app; qflow {said} {takes} it (see `qflow {owners[0]} --help`)"
    return None


def build_parser(only: str | None = None) -> _Parser:
    """The whole parser; with ``only`` (a command's name), the app's options
    and that command alone: a command named first needs no other command's
    module nor flags (a tenth of a bench's start went to building all eleven)."""
    parser = _Parser(
        prog="qflow",
        description="Watch and steer LLM program synthesis with QualityFlow. "
        "Without a command, opens the terminal app.",
    )
    parser.add_argument("--version", action="version", version=f"qflow-tui {__version__}")
    from .commands.app import add_app_options

    add_app_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if only is None else (only,):
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


class _NotTheApp(Exception):
    pass


class _AppOnlyParser(argparse.ArgumentParser):
    """Says nothing of what it cannot parse: the whole parser will say it."""

    def error(self, message: str) -> NoReturn:
        raise _NotTheApp(message)


def _app_arguments(argv: list[str]) -> argparse.Namespace | None:
    """The parsed flags when ``argv`` only opens the app (``qflow``, ``qflow
    --model M --step``); otherwise None and the whole parser decides. The app's
    own parser needs none of the ten command modules, which cost its launch
    about a tenth of a second; anything it does not take (a command, a typo, a
    help) goes to the whole parser, whose answer is the one a user gets."""
    if any(word in COMMANDS or word in ("-h", "--help", "--version") for word in argv):
        return None
    from .commands.app import add_app_options

    parser = _AppOnlyParser(prog="qflow", add_help=False)
    add_app_options(parser)
    try:
        args, rest = parser.parse_known_args(argv)
    except _NotTheApp:
        return None
    if rest:
        return None
    args.command = None
    return args


#: ``qflow bench``'s subcommands and options that judge no program in this
#: process (a folder read again, an estimate, a cluster's nodes judging).
_NOT_JUDGED_HERE = frozenset(
    [
        *("compare", "table", "paper", "report", "export", "open"),
        *("-h", "--help", "--estimate", "--estimate-from", "--cluster"),
    ]
)


def _judges_here(argv: list[str]) -> bool:
    """Whether ``argv`` is a ``qflow bench`` that judges programs in this
    process: its sandbox may start before the command is parsed. Anything
    else, and a bench whose words this cannot tell, starts it when needed."""
    if argv[:1] != ["bench"]:
        return False
    return not any(word in _NOT_JUDGED_HERE or word.startswith(("--estimate=", "--cluster=")) for word in argv[1:])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # The app's start-up makes few garbage cycles and many objects: collecting
    # them while it starts costs time for nothing. Off until the app is painted
    # (QFlowApp.on_ready collects once and freezes what lives on), or right away
    # when this is not the app.
    gc.disable()
    args_for_app = _app_arguments(argv)
    if args_for_app is not None:
        from .commands import app as app_command

        try:
            return int(app_command.run(args_for_app) or 0)
        finally:
            gc.enable()  # on since the first paint; this covers a refusal before one
    gc.enable()
    if _judges_here(argv):
        # The sandbox's detection and zygote start on a thread of their own
        # while the bench's modules load (about a tenth of a second): they
        # waited for the imports, the arguments and the dataset before.
        from .core.sandbox.config import SandboxConfig
        from .core.sandbox.pool import start_early

        start_early(SandboxConfig())
    if "bench" in argv:
        from .commands.bench import spread_ids

        argv = spread_ids(argv)
    # A command named first is the only one the line can mean; anything else
    # (a help, a typo, an option before the command) gets the whole parser.
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    from .commands import say_refused_plugins

    say_refused_plugins()  # the flags were made from the workflows: a plugin left out is said
    misplaced = _misplaced_option(parser, argv)
    if misplaced is not None:
        print(misplaced, file=sys.stderr)
        return 2
    command = next((word for word in argv if word in COMMANDS), None)
    if command is not None:
        parser.help_for = f"qflow {command}"
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
    except OSError as err:
        # The machine refused something the command needed (open files, disk
        # space): one line, not a traceback. What was written stays (a bench's
        # folder is its state: the same command carries on).
        print(f"qflow {args.command}: {refused(err, resumes=args.command == 'bench')}", file=sys.stderr)
        return 1


#: What to do when the machine refuses, by errno.
_REFUSED_HINTS = {
    errno.EMFILE: "raise the limit of open files (ulimit -n) and run the command again",
    errno.ENFILE: "the machine has too many files open: run the command again later",
    errno.ENOSPC: "free some disk space and run the command again",
    errno.EDQUOT: "free some disk space (your quota is full) and run the command again",
    errno.EACCES: "check the path's permissions, or choose another",
    errno.EROFS: "choose a path on a writable disk",
}


def refused(err: OSError, *, resumes: bool = False) -> str:
    """An error the operating system gave, in one line, with what to do
    (``resumes``: the command carries on where it stopped when run again)."""
    what = err.strerror or str(err) or type(err).__name__
    where = f" ({err.filename})" if err.filename else ""
    hint = _REFUSED_HINTS.get(err.errno or 0)
    tail = f"; {hint}" if hint else ""
    if resumes and err.errno in (errno.EMFILE, errno.ENFILE, errno.ENOSPC, errno.EDQUOT):
        tail += ": it carries on where it stopped"
    return one_line(f"{what}{where}{tail}")


if __name__ == "__main__":
    sys.exit(main())
