"""``qflow sessions``: list saved sessions (newest first; filter, sort, search
statements and programs), export one as JSONL or as a Markdown transcript,
delete or compress one, or rebuild the sessions index."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

from ..core.safe_text import markup_safe, one_line
from ..core.session import (
    IndexUnavailable,
    Query,
    SessionError,
    SessionIndex,
    SessionInfo,
    Unreadable,
    compress_session,
    default_export_name,
    delete_session,
    export_session,
    find_sessions,
    list_sessions,
    parse_search,
    read_header,
    session_title,
)
from ..core.session.display import fork_place, human_duration, human_time, human_tokens, short_model
from ..core.session.family import ForkTree, fork_tree, loop_words
from ..core.session.fileformat import session_stem
from ..core.session.index import check_outcome, parse_date
from ..core.session.listing import session_files
from ..locations import sessions_dir
from . import Subparsers, fail

__all__ = ["human_duration", "human_time", "human_tokens", "short_model"]


def add_parser(sub: Subparsers) -> None:
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
        "--search",
        metavar="TEXT",
        help="full-text search of titles, problem statements, final programs, models and outcomes: every word "
        "must occur (a line of code finds the programs that contain it)",
    )
    p.add_argument("--workflow", help="only runs of this workflow (`qflow workflows` lists them)")
    p.add_argument("--model", help="only runs whose model contains this text")
    p.add_argument("--outcome", help="only runs with this outcome (accepted, reverted, failed, incomplete, ...)")
    p.add_argument("--since", metavar="DATE", help="only runs started on or after DATE (YYYY-MM-DD[THH:MM], local)")
    p.add_argument("--until", metavar="DATE", help="only runs started before DATE")
    p.add_argument("--benchmark", metavar="NAME", help="only the sessions of a benchmark (its folder's name)")
    p.add_argument("--sort", choices=["date", "oldest", "tokens", "duration", "title"], default="date")
    p.add_argument("--limit", type=int, metavar="N", help="show at most N sessions")
    p.add_argument("--offset", type=int, default=0, metavar="N", help="skip the first N (with --limit: paging)")
    p.add_argument(
        "--all",
        action="store_true",
        help="list every session (in a terminal the list stops at a screenful, newest first)",
    )
    p.add_argument("-r", "--recursive", action="store_true", help="also list the sessions in sub-folders")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    e = actions.add_parser("export", help="export a session as JSONL or a Markdown transcript")
    e.add_argument("file", help="session file, its number in the listing, or its id")
    e.add_argument(
        "-o", "--output", help="file to write (default: next to the current folder, named after the session)"
    )
    e.add_argument(
        "--format",
        choices=["jsonl", "md", "html"],
        help="default: from the output's suffix, else md (html: docs/reports.md)",
    )
    d = actions.add_parser("delete", help="delete a session file")
    d.add_argument("file", help="session file, its number in the listing, or its id")
    d.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    actions.add_parser("path", help="print the folder sessions are saved in")
    c = actions.add_parser("compress", help="gzip finished sessions (replay, export and listing read them as before)")
    c.add_argument("files", nargs="*", help="session files, numbers or ids (default with --all: every finished one)")
    c.add_argument("--all", action="store_true", help="every finished, uncompressed session in the folder")
    actions.add_parser("reindex", help="rebuild the sessions index from the files (it is a cache; nothing is lost)")
    n = actions.add_parser(
        "rename", help="give a session a name, shown in place of its title (the session file is not changed)"
    )
    n.add_argument("file", help="session file, its number in the listing, or its id")
    n.add_argument("name", help='the name (one line); "" gives the title back')
    t = actions.add_parser("note", help="write a note on a session, or print it (the session file is not changed)")
    t.add_argument("file", help="session file, its number in the listing, or its id")
    t.add_argument("text", nargs="?", help='the note; "" clears it; left out: print the note')
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
    if action == "compress":
        return _compress(args)
    if action == "reindex":
        return _reindex(args)
    if action in ("rename", "note"):
        return _annotate(args)
    return _list(args)


def _annotate(args: argparse.Namespace) -> int:
    """``rename`` and ``note``: kept beside the sessions (core/session/notes.py)."""
    from ..core.session.notes import read_notes, set_note

    try:
        path = resolve_session_arg(args.file, _folder(args))
        read_header(path)  # a session, not any file
        if args.action == "note" and args.text is None:
            found = read_notes().get(session_stem(path))
            print(found.note if found is not None and found.note else f"{path.name} has no note")
            return 0
        if args.action == "rename":
            now = set_note(path, name=args.name)
            print(f"{path.name}: named {now.name!r}" if now.name else f"{path.name}: its title is shown again")
        else:
            now = set_note(path, note=args.text)
            print(f"{path.name}: note saved" if now.note else f"{path.name}: note cleared")
    except SessionError as exc:
        return fail(str(exc))
    return 0


def _folder(args: argparse.Namespace) -> Path:
    return Path(args.dir).expanduser() if getattr(args, "dir", None) else sessions_dir()


def _query(args: argparse.Namespace) -> Query:
    """The listing's query from the flags; ``--search`` takes the browser's
    ``key:value`` filters too. Raises ValueError (one line) for a value that
    cannot match anything."""
    if (args.limit is not None and args.limit < 0) or args.offset < 0:
        raise ValueError("--limit and --offset take a number of 0 or more")
    query = parse_search(args.search or "")
    query.workflow = args.workflow or query.workflow
    query.model = args.model or query.model
    query.outcome = check_outcome(args.outcome, "--outcome ") if args.outcome else query.outcome
    query.since = parse_date(args.since, "--since") if args.since else query.since
    query.until = parse_date(args.until, "--until") if args.until else query.until
    query.benchmark = args.benchmark or query.benchmark
    query.sort, query.limit, query.offset = args.sort, args.limit, args.offset
    return query


def _filtered(query: Query) -> bool:
    return bool(
        query.search
        or query.workflow
        or query.model
        or query.outcome
        or query.benchmark
        or query.since is not None
        or query.until is not None
    )


def _said(args: argparse.Namespace) -> str:
    """The search and filters as the user gave them."""
    parts = [repr(args.search)] if args.search else []
    for flag in ("workflow", "model", "outcome", "since", "until", "benchmark"):
        if getattr(args, flag, None):
            parts.append(f"--{flag} {getattr(args, flag)}")
    return " ".join(parts)


def _list(args: argparse.Namespace) -> int:
    folder = _folder(args)
    if args.dir and not folder.is_dir():
        return fail(f"--dir {args.dir}: no such folder")
    try:
        query = _query(args)
    except ValueError as exc:
        return fail(str(exc))
    screenful = query.limit is None and not args.all and not args.json and _interactive()
    if screenful:
        # As git log pages: a terminal gets the newest screenful and a line on how
        # to see more (10,000 rows took 3.4 s to print); a pipe gets every row.
        query.limit = max(10, shutil.get_terminal_size((100, 24)).lines - 6)
    listing = find_sessions(folder, query, recursive=args.recursive)
    from ..core.session.notes import attach_notes

    notes_trouble = attach_notes(listing.sessions)
    if notes_trouble:
        print(f"qflow: {notes_trouble}", file=sys.stderr)
    tree = fork_tree(listing.sessions, lambda s: str(s.path), lambda s: s.parent)
    if args.json:
        print(
            json.dumps(
                {
                    "dir": str(folder),
                    "total": listing.total,
                    "sessions": [s.to_dict() for s in listing.sessions],
                    "unreadable": [u.to_dict() for u in listing.unreadable],
                    "fork_loops": [[str(s.path) for s in loop] for loop in tree.loops],
                },
                indent=2,
            )
        )
        return 0
    if not listing.sessions and _filtered(query):
        everything = find_sessions(folder, type(query)(limit=0), recursive=args.recursive).total
        print(f"No session matches {_said(args)} ({everything} in {folder}).")
        for u in listing.unreadable:
            print(f"skipped {one_line(u.path.name)}: {one_line(u.reason)}")
        return 0
    print_table(folder, tree.order, listing.unreadable, tree=tree)
    first, last = query.offset + 1, query.offset + len(listing.sessions)
    if listing.total > last:
        print(
            f"{first}-{last} of {listing.total} shown; `qflow sessions --all` lists every one, "
            f"--offset {last} the next ones (--limit N: how many)"
        )
    return 0


def _interactive() -> bool:
    """Whether the listing goes to a person's terminal (not a pipe or a file)."""
    return sys.stdout.isatty()


def _reindex(args: argparse.Namespace) -> int:
    folder = _folder(args)
    if args.dir and not folder.is_dir():
        return fail(f"--dir {args.dir}: no such folder")
    index = SessionIndex()
    started = time.perf_counter()
    try:
        count = index.rebuild(folder)
    except IndexUnavailable as exc:
        return fail(f"the sessions index {index.path} is busy or cannot be written ({exc}); try again", 1)
    print(f"indexed {count} session files in {folder} ({time.perf_counter() - started:.1f} s) into {index.path}")
    return 0


def _compress(args: argparse.Namespace) -> int:
    folder = _folder(args)
    if args.all:
        paths = [s.path for s in list_sessions(folder, recursive=True)[0] if s.path.suffix == ".jsonl"]
    elif args.files:
        try:
            paths = [resolve_session_arg(f, folder) for f in args.files]
        except SessionError as exc:
            return fail(str(exc))
    else:
        return fail("name the sessions to compress, or give --all")
    code = 0
    for path in paths:
        try:
            print(compress_session(path))
        except SessionError as exc:
            if args.all and "has not finished" in str(exc):
                continue
            code = fail(str(exc), 1)
    return code


def _cut(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def print_table(
    folder: Path,
    sessions: list[SessionInfo],
    unreadable: list[Unreadable],
    width: int | None = None,
    tree: ForkTree[SessionInfo] | None = None,
) -> None:
    """A plain fixed-width table that fits the terminal: the problem and model
    columns give way first. With ``tree`` (:func:`fork_tree` of ``sessions``,
    in its order) each fork is marked under its parent and a loop of fork
    parents is said under the table."""
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False, soft_wrap=True)
    if not sessions and not unreadable:
        console.print(
            f"No sessions in {markup_safe(str(folder))} yet. Run `qflow` or `qflow solve`, or try `qflow demo`."
        )
        return
    if not width:
        # Piped (grep, a file): cut nothing a reader may search for.
        piped = not console.is_terminal and "COLUMNS" not in os.environ
        width = 200 if piped else shutil.get_terminal_size((100, 24)).columns
    console.width = max(console.width, width)
    # Narrow (as the browser under 100 columns): no model or duration column, the
    # date without its year, the outcome without its step; the problem keeps the
    # room, and a fork says where it branched before its title.
    narrow = width < 100
    rows = []
    for position, s in enumerate(sessions, start=1):
        number = s.number if s.number is not None else position
        outcome = s.outcome + (f" @ {s.accepted_at}" if s.accepted_at and not narrow else "")
        place = _fork_place(s, tree)
        title = (f"{place} · " if place and narrow else "") + one_line(s.shown_title) + (" ✎" if s.note else "")
        rows.append(
            [
                str(number),
                human_time(s.created)[5:] if narrow else human_time(s.created),
                _fork_mark(s, tree) + title,
                place or short_model(s.model),
                outcome,
                human_tokens(s.tokens),
                human_duration(s.duration),
            ]
        )
    heads = ["#", "date", "problem", "model", "outcome", "tokens", "time"]
    rows = [[one_line(cell) for cell in row] for row in rows]  # titles and model names come from files
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(heads)]
    if narrow:
        widths[3] = widths[6] = 0
    widths[4] = min(widths[4], 24)
    gaps = 2 * (sum(1 for w in widths if w) - 1)
    fixed = widths[0] + widths[1] + widths[4] + widths[5] + widths[6] + gaps
    if width - fixed < 20:
        widths[4] = max(8, widths[4] - (20 - (width - fixed)))
        fixed = widths[0] + widths[1] + widths[4] + widths[5] + widths[6] + gaps
    room = max(16, width - fixed)
    want_problem, want_model = widths[2], widths[3]
    if narrow:
        widths[2] = min(want_problem, room)
    elif want_problem + want_model > room:
        widths[3] = min(want_model, max(8, room * 2 // 5))
        widths[2] = max(8, room - widths[3])
    colours = {"accepted": "green", "reverted": "yellow", "failed": "red", "cancelled": "red", "incomplete": "red"}
    right = {0, 5, 6}

    shown = [i for i, w in enumerate(widths) if w]

    def line(cells: list[str], style_outcome: str = "") -> Text:
        out = Text()
        for i in shown:
            cell, w = _cut(cells[i], widths[i]), widths[i]
            cell = cell.rjust(w) if i in right else cell.ljust(w)
            out.append(
                cell, style=style_outcome if i == 4 and style_outcome else ("bold" if i == 2 and style_outcome else "")
            )
            if i != shown[-1]:
                out.append("  ")
        return out

    console.print(f"[bold]Sessions in {markup_safe(str(folder))}[/]")
    console.print(line(heads), style="dim")
    for row, s in zip(rows, sessions, strict=True):
        console.print(line(row, colours.get(s.outcome, "white")))
    for u in unreadable:
        console.print(f"[yellow]skipped[/] {markup_safe(u.path.name)}: {markup_safe(one_line(u.reason))}")
    for loop in tree.loops if tree is not None else []:
        console.print(
            f"[yellow]fork loop[/] {markup_safe(loop_words(loop, lambda s: s.path.name))}: the fork parents of "
            f"these sessions form a loop; listed from {markup_safe(loop[0].path.name)} (marked ↻)"
        )
    if sessions:
        console.print(
            "[dim]Open one with `qflow replay NUMBER` or `qflow replay FILE`; "
            "`qflow sessions --json` lists the files.[/]"
        )


def _fork_place(s: SessionInfo, tree: ForkTree[SessionInfo] | None) -> str:
    """A fork's place in the model column, worded as the browser words it."""
    if not s.parent:
        return ""
    forked_at = one_line(s.forked_at) if s.forked_at else None
    key = str(s.path)
    if tree is not None and tree.depth.get(key, 0) > 0:
        return fork_place(forked_at, parent_shown=True)
    if tree is not None and key in tree.broken:
        return fork_place(forked_at, parent_shown=False, loop=len(tree.broken[key]))
    return fork_place(forked_at, parent_shown=False, parent_exists=Path(s.parent).exists())


def _fork_mark(s: SessionInfo, tree: ForkTree[SessionInfo] | None) -> str:
    """A fork's mark before its title: ``└`` under its parent (``└3`` three
    forks down from the root listed), ``↻`` where a loop of parents was
    broken, ``↳`` when its parent is not listed."""
    if tree is None or not s.parent:
        return ""
    depth = tree.depth.get(str(s.path), 0)
    if depth > 0:
        return "└ " if depth == 1 else f"└{depth} "
    return "↻ " if str(s.path) in tree.broken else "↳ "


def resolve_session_arg(arg: str, folder: Path | None = None) -> Path:
    """A session given as a path, as its number in ``qflow sessions`` (its
    place in the listing by date: newest first, each fork under its parent; the
    same number every listing, sort and search shows), or as its id.
    Raises SessionError for a number that names no session."""
    path = Path(arg).expanduser()
    if path.exists() or "/" in arg:
        return path

    if folder is None:
        folder = sessions_dir()
    if arg.isdigit():
        number = int(arg)
        page = find_sessions(folder, Query(sort="date", limit=1, offset=max(0, number - 1)), recursive=True)
        if number >= 1 and page.sessions and page.sessions[0].number == number:
            return page.sessions[0].path
        count = page.total
        listed = f"{count} session{'' if count == 1 else 's'}, numbered as listed by date" if count else "none yet"
        raise SessionError(f"no session #{arg} in {folder} ({listed}; qflow sessions lists them)")
    for candidate in session_files(folder, recursive=True):
        if session_stem(candidate) == arg:
            return candidate
    return path


def _export(args: argparse.Namespace) -> int:
    fmt = args.format
    if args.output:
        dest = Path(args.output).expanduser()
        if dest.is_dir():
            dest = dest / default_export_name(args.file, fmt or "md")
    else:
        dest = Path.cwd() / default_export_name(args.file, fmt or "md")
        fmt = fmt or "md"
    if fmt == "html" or (fmt is None and dest.suffix.lower() in (".html", ".htm")):
        from ..core.htmlpage import PageError, write_session_page

        try:
            print(write_session_page(resolve_session_arg(args.file, _folder(args)), dest))
        except (SessionError, PageError) as exc:
            return fail(str(exc))
        return 0
    try:
        written = export_session(resolve_session_arg(args.file, _folder(args)), dest, fmt)
    except SessionError as exc:
        return fail(str(exc))
    print(written)
    return 0


def _delete(args: argparse.Namespace) -> int:
    try:
        path = resolve_session_arg(args.file, _folder(args))
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

    try:
        delete_session(path)
    except SessionError as exc:
        return fail(str(exc))
    print(f"deleted {path}")
    return 0
