"""One module per ``qflow`` subcommand: ``add_parser(subparsers)`` and ``run(args) -> int``."""

from __future__ import annotations

import sys


def fail(message: str, code: int = 2) -> int:
    """Print a one-line reason and return the exit code (never a traceback)."""
    print(f"qflow: {message}", file=sys.stderr)
    return code
