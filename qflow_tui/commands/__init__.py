"""One module per ``qflow`` subcommand: ``add_parser(subparsers)`` and ``run(args) -> int``."""

from __future__ import annotations

import sys

from ..core.safe_text import one_line


def fail(message: str, code: int = 2) -> int:
    """Print a one-line reason and return the exit code (never a traceback).
    The reason may quote a file or a model: it is printed on one line with
    every control sequence removed."""
    print(f"qflow: {one_line(message)}", file=sys.stderr)
    return code
