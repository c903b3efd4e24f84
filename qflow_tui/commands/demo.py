"""``qflow demo``: open the session that ships with qflow in replay: a complete
QualityFlow run on MBPP No. 11 (the paper's running example), recorded from a
scripted model, so the whole workflow can be watched without an API key."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from . import Subparsers, fail


def demo_session() -> Path:
    """The bundled demo session file."""
    from ..locations import demo_session as path

    return path()


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser("demo", help="replay the bundled demo session (no API key needed)", description=__doc__)
    p.add_argument(
        "--json", action="store_true", help="print the demo run's summary as JSON instead of opening the app"
    )
    p.add_argument("--path", action="store_true", help="print where the demo session file is, and exit")
    p.add_argument(
        "--no-play", dest="play", action="store_false", help="open at the end of the run instead of playing it"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .replay import check_session, open_app

    path = demo_session()
    if args.path:
        print(path)
        return 0
    if not path.is_file():
        return fail(f"the demo session is missing from this installation ({path}); reinstall qflow-tui", 1)
    data, code = check_session(str(path))
    if data is None:
        return code
    if args.json:
        print(json.dumps(data.summary()))
        return 0
    return open_app(path, play=args.play, intro=True)
