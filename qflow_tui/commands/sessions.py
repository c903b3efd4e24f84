"""``qflow sessions``: list saved sessions (newest first), export one as JSONL or
as a Markdown transcript, or delete one."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..core.session.display import human_duration, human_time, human_tokens, short_model
from . import fail

__all__ = ["human_duration", "human_time", "human_tokens", "short_model"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "sessions",
        help="list, export or delete saved sessions",
        description=__doc__,
        epilog="Open one in the app with `qflow replay FILE`; re-run one with `qflow replay FILE --rerun`.",
    )
    p.add_argument(
        "--dir", help="folder of sessions (default: the user data folder; a benchmark's output folder works too)"
    )
    p.add_argument(
        "--json", action="store_true", help="print one JSON object: {dir, sessions: [...], unreadable: [...]}"
    )
    p.add_argument(
        "--search", metavar="TEXT", help="only sessions whose title, model, outcome or date contain every word"
    )
    p.add_argument("-r", "--recursive", action="store_true", help="also look in sub-folders")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    e = actions.add_parser("export", help="export a session as JSONL or a Markdown transcript")
    e.add_argument("file", help="session file, or its number in the listing")
    e.add_argument(
        "-o", "--output", help="file to write (default: next to the current folder, named after the session)"
    )
    e.add_argument("--format", choices=["jsonl", "md"], help="default: from the output's suffix, else md")
    d = actions.add_parser("delete", help="delete a session file")
    d.add_argument("file", help="session file, or its number in the listing")
    d.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    a = actions.add_parser("path", help="print the folder sessions are saved in")
    _ = a
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    action = getattr(args, "action", None)
    if action == "export":
        return _export(args)
    if action == "delete":
        return _delete(args)
    if action == "path":
        print(_folder(args))
        return 0
    return _list(args)


def _folder(args: argparse.Namespace) -> Path:
    from ..locations import sessions_dir

    return Path(args.dir).expanduser() if getattr(args, "dir", None) else sessions_dir()


def _list(args: argparse.Namespace) -> int:
    from ..core.session import list_sessions

    folder = _folder(args)
    if args.dir and not folder.is_dir():
        return fail(f"--dir {args.dir}: no such folder")
    sessions, unreadable = list_sessions(folder, recursive=args.recursive)
    if args.search:
        sessions = [s for s in sessions if s.matches(args.search)]
    if args.json:
        print(
            json.dumps(
                {
                    "dir": str(folder),
                    "sessions": [s.to_dict() for s in sessions],
                    "unreadable": [u.to_dict() for u in unreadable],
                },
                indent=2,
            )
        )
        return 0
    print_table(folder, sessions, unreadable)
    return 0


def _cut(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def print_table(folder: Path, sessions: list[Any], unreadable: list[Any], width: int | None = None) -> None:
    """A plain fixed-width table that fits the terminal: the problem and model
    columns give way first."""
    import shutil

    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False, soft_wrap=True)
    if not sessions and not unreadable:
        console.print(f"No sessions in {folder} yet. Run `qflow` or `qflow solve`, or try `qflow demo`.")
        return
    width = width or shutil.get_terminal_size((100, 24)).columns
    rows = []
    for number, s in enumerate(sessions, start=1):
        outcome = s.outcome + (f" @ {s.accepted_at}" if s.accepted_at else "")
        rows.append(
            [
                str(number),
                human_time(s.created),
                s.title,
                short_model(s.model),
                outcome,
                human_tokens(s.tokens),
                human_duration(s.duration),
            ]
        )
    heads = ["#", "date", "problem", "model", "outcome", "tokens", "time"]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(heads)]
    widths[4] = min(widths[4], 24)
    fixed = widths[0] + widths[1] + widths[4] + widths[5] + widths[6] + 2 * 6
    if width - fixed < 20:
        widths[4] = max(8, widths[4] - (20 - (width - fixed)))
        fixed = widths[0] + widths[1] + widths[4] + widths[5] + widths[6] + 2 * 6
    room = max(16, width - fixed)
    want_problem, want_model = widths[2], widths[3]
    if want_problem + want_model > room:
        widths[3] = min(want_model, max(8, room * 2 // 5))
        widths[2] = max(8, room - widths[3])
    colours = {"accepted": "green", "reverted": "yellow", "failed": "red", "cancelled": "red", "incomplete": "red"}
    right = {0, 5, 6}

    def line(cells: list[str], style_outcome: str = "") -> Text:
        out = Text()
        for i, (cell, w) in enumerate(zip(cells, widths, strict=False)):
            cell = _cut(cell, w)
            cell = cell.rjust(w) if i in right else cell.ljust(w)
            out.append(
                cell, style=style_outcome if i == 4 and style_outcome else ("bold" if i == 2 and style_outcome else "")
            )
            if i < len(cells) - 1:
                out.append("  ")
        return out

    console.print(f"[bold]Sessions in {folder}[/]")
    console.print(line(heads), style="dim")
    for row, s in zip(rows, sessions, strict=True):
        console.print(line(row, colours.get(s.outcome, "white")))
    for u in unreadable:
        console.print(f"[yellow]skipped[/] {u.path.name}: {u.reason}")
    if sessions:
        console.print(
            "[dim]Open one with `qflow replay NUMBER` or `qflow replay FILE`; "
            "`qflow sessions --json` lists the files.[/]"
        )


def resolve_session_arg(arg: str, folder: Path | None = None) -> Path:
    """A session given as a path, or as its number in ``qflow sessions``
    (1 = the newest)."""
    path = Path(arg).expanduser()
    if path.exists() or not arg.isdigit():
        return path
    from ..core.session import list_sessions

    sessions, _ = list_sessions(folder)
    number = int(arg)
    if 1 <= number <= len(sessions):
        return sessions[number - 1].path
    return path


def _export(args: argparse.Namespace) -> int:
    from ..core.session import SessionError, default_export_name, export_session

    fmt = args.format
    if args.output:
        dest = Path(args.output).expanduser()
        if dest.is_dir():
            dest = dest / default_export_name(args.file, fmt or "md")
    else:
        dest = Path.cwd() / default_export_name(args.file, fmt or "md")
        fmt = fmt or "md"
    try:
        written = export_session(resolve_session_arg(args.file, _folder(args)), dest, fmt)
    except SessionError as exc:
        return fail(str(exc))
    print(written)
    return 0


def _delete(args: argparse.Namespace) -> int:
    from ..core.session import SessionError, read_header, session_title

    path = resolve_session_arg(args.file, _folder(args))
    try:
        header = read_header(path)
    except SessionError as exc:
        return fail(str(exc))
    if not args.yes:
        if not sys.stdin.isatty():
            return fail(f"{path}: not deleted; add --yes to delete without asking")
        answer = input(f"Delete the session {path.name} ({session_title(header)})? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("kept")
            return 1
    from ..core.session import delete_session

    try:
        delete_session(path)
    except SessionError as exc:
        return fail(str(exc))
    print(f"deleted {path}")
    return 0
