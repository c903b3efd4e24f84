"""``qflow replay FILE``: open a saved session in the app and step through it;
``--json`` prints the run's summary (the ``qflow solve --json`` shape plus
``warnings``) without the app; ``--rerun`` executes the workflow again with the
recorded responses as the model (under the recorded settings, or others)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from . import Subparsers, fail, viewing_config

if TYPE_CHECKING:  # types only: the modules load when the command runs
    from ..core.config import RunConfig
    from ..core.session import SessionData


def add_parser(sub: Subparsers) -> None:
    from .solve import add_run_options

    p = sub.add_parser("replay", help="replay a saved session (in the app, or --json)", description=__doc__)
    p.add_argument("file", help="a session file (.jsonl), or its number in `qflow sessions` (the # column)")
    p.add_argument("--json", action="store_true", help="print the run's summary as JSON instead of opening the app")
    p.add_argument("--step", metavar="N", type=int, help="open the replay at workflow step N (1 = the first)")
    p.add_argument("--play", action="store_true", help="start playing at once")
    p.add_argument(
        "--rerun",
        action="store_true",
        help="execute the workflow again, answering model calls from the recording; "
        "run options below change the settings (the recorded ones otherwise)",
    )
    g = p.add_argument_group("with --rerun")
    add_run_options(g)
    g.add_argument("--session-dir", help="folder for the re-run's own session file")
    p.set_defaults(func=run)


def check_session(path: str) -> tuple[SessionData | None, int]:
    """Read a session for replay; returns (data, 0) or (None, exit code) after
    printing the one-line reason."""
    from ..core.session import SessionError, read_session
    from .sessions import resolve_session_arg

    try:
        return read_session(resolve_session_arg(path)), 0
    except SessionError as exc:
        return None, fail(str(exc))


def run(args: argparse.Namespace) -> int:
    data, code = check_session(args.file)
    if data is None:
        return code
    if args.rerun:
        return rerun(args, data)
    if args.json:
        print(json.dumps(data.summary()))
        return 0
    return open_app(data.path, step=args.step, play=args.play)


def open_app(path: Path, *, step: int | None = None, play: bool = False, intro: bool = False) -> int:
    """Open the app on a replay of ``path``."""
    config = viewing_config()
    try:
        from ..ui.app import create_app
    except ImportError as exc:  # the app is not part of this build
        return fail(f"the terminal app cannot start ({exc}); use `qflow replay {path} --json`", 1)
    app = create_app(config, replay_path=path, replay_options={"step": step, "play": play, "intro": intro})
    app.run()
    return int(getattr(app, "return_code", 0) or 0)


def recorded_config(data: SessionData, args: argparse.Namespace) -> RunConfig:
    """The recorded settings, with the command line's run options on top and the
    recording itself as the model."""
    from ..core.resume import recorded_settings
    from .solve import config_overrides

    return recorded_settings(data, config_overrides(args))


def rerun(args: argparse.Namespace, data: SessionData) -> int:
    from ..core.config import ConfigError
    from ..core.problem import Problem, ProblemError
    from .solve import run_headless

    if args.model:
        return fail(
            "--rerun answers from the recording; to use a live model for the calls it lacks, give --fallback-model"
        )
    try:
        problem = Problem.from_dict(data.header["problem"])
    except (KeyError, TypeError, ProblemError) as exc:
        return fail(f"{data.path}: the recorded problem cannot be read ({exc})")
    try:
        config = recorded_config(data, args)
    except ConfigError as exc:
        return fail(str(exc))
    session_dir = Path(args.session_dir).expanduser() if args.session_dir else None
    return run_headless(problem, config, json_out=args.json, session_dir=session_dir)
