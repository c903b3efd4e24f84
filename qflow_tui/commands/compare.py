"""``qflow compare A B``: two sessions side by side (a fork and its parent, two
workflows or two models on one problem): the steps each took with their
decisions, where they part, the final programs with a diff, the outcomes, and
tokens and time per agent. ``--json`` prints one object."""

from __future__ import annotations

import argparse
import json
import shutil
from typing import TYPE_CHECKING

from . import Subparsers, fail, viewing_config

if TYPE_CHECKING:  # types only: the modules load when the command runs
    from pathlib import Path

    from ..core.steer.side_by_side import Comparison, MarkRecord


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser("compare", help="compare two sessions side by side", description=__doc__)
    p.add_argument("a", metavar="A", help="a session: its file, its number in `qflow sessions` or its id")
    p.add_argument("b", metavar="B", help="another session, likewise")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--tui", action="store_true", help="open the compare screen in the app instead of printing")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..core.session import SessionError, read_session
    from ..core.session.display import model_words
    from ..core.steer.side_by_side import compare_sessions
    from .sessions import resolve_session_arg

    try:
        a = read_session(resolve_session_arg(args.a))
        b = read_session(resolve_session_arg(args.b))
    except SessionError as exc:
        return fail(str(exc))
    if args.tui and not args.json:
        return open_app(a.path, b.path)
    result = compare_sessions(a, b)
    if args.json:
        print(json.dumps(result))
    else:
        width = shutil.get_terminal_size((PIPED_WIDTH, 24)).columns
        print(render(result, width, models=(model_words(a.header, since=False), model_words(b.header, since=False))))
    return 0


def open_app(a: str | Path, b: str | Path) -> int:
    """Open the app on the compare screen of ``a`` and ``b``."""
    config = viewing_config()
    try:
        from ..ui.app import create_app
    except ImportError as exc:  # the app is not part of this build
        return fail(f"the terminal app cannot start ({exc}); use `qflow compare {a} {b}` for text", 1)
    app = create_app(config, compare_paths=(a, b))
    app.run()
    return int(getattr(app, "return_code", 0) or 0)


#: The width of the text when it goes to a pipe or a file (no terminal to ask;
#: ``COLUMNS`` sets another).
PIPED_WIDTH = 120
#: The narrowest layout: below it the two step columns say nothing.
NARROWEST = 40


def _cell(text: str, width: int) -> str:
    return text[: width - 1] + "…" if len(text) > width else text.ljust(width)


def _fit(text: str, width: int) -> str:
    return text[: width - 1] + "…" if len(text) > width else text


def render(result: Comparison, width: int = PIPED_WIDTH, models: tuple[str, str] | None = None) -> str:
    """The comparison as plain text, ``width`` columns wide (each line but the
    programs' diff is cut to it; the two step columns share it); everything from
    a file is cleaned of control sequences (it never drives the terminal).
    ``models`` are the two runs' models in words (a fork's live model, not the
    recording it replays); by default the sessions' model names, shortened."""
    from pathlib import Path

    from ..core.safe_text import clean, one_line
    from ..core.session.display import short_model

    a, b = result["a"], result["b"]
    width = max(NARROWEST, width)
    column = (width - 2) // 2
    if models is None:
        models = (short_model(str(a["model"])), short_model(str(b["model"])))
    paths = {str(Path(side["session"]).resolve()): name for name, side in (("A", a), ("B", b))}
    folders = {str(Path(side["session"]).parent) for side in (a, b)}
    lines: list[str] = []
    for name, side, model in (("A", a, models[0]), ("B", b, models[1])):
        parent = side["parent"]
        parent = parent.get("session") if isinstance(parent, dict) else parent
        if parent:
            known = paths.get(str(Path(str(parent)).resolve()))
            of = known if known and known != name else Path(str(parent)).name
            run = f"fork of {one_line(of)} at {one_line(str(side['forked_at']))}, then {one_line(model)}"
        else:
            run = one_line(model)
        lines.append(_fit(f"{name}: {one_line(Path(side['session']).name)}", width))
        lines.append(_fit(f"   {one_line(side['workflow'])}, {run}", width))
        chain = (side.get("lineage") or {}).get("words")
        if chain and not (parent and chain.startswith("1 fork from the root")):
            lines.append(_fit(f"   {one_line(chain)}", width))
    if len(folders) == 1:
        lines.append(f"(both in {one_line(folders.pop())})")
    else:
        lines.extend(
            f"({name} in {one_line(str(Path(side['session']).parent))})" for name, side in (("A", a), ("B", b))
        )
    if result.get("relation"):
        lines.append(_fit(one_line(result["relation"]), width))
    lines.append("")
    lines.append(f"{_cell('A steps', column)}  B steps")
    split = result["same_until"]
    steps_a, steps_b = a["steps"], b["steps"]
    for i in range(max(len(steps_a), len(steps_b))):
        if i == split and result["divergence"] is not None:
            same = f"after {split} same row{'' if split == 1 else 's'}" if split else "at the first row"
            lines.append(_fit(f"---- the runs part here ({same}) ----", width))
        left = _words(steps_a[i]) if i < len(steps_a) else ""
        right = _words(steps_b[i]) if i < len(steps_b) else ""
        sep = "  " if i < split else " |"
        lines.append(f"{_cell(one_line(left), column)}{sep}{_fit(one_line(right), width - column - 2)}".rstrip())
    if result["divergence"] is None:
        lines.append(_fit("(the two runs took the same steps with the same decisions)", width))
    lines.append("")
    for name, side in (("A", a), ("B", b)):
        where = f" at {side['accepted_at']}" if side["accepted_at"] else ""
        prog = f", progression {side['progression']}" if side["progression"] is not None else ""
        lines.append(
            _fit(
                f"{name}: {one_line(side['outcome']).upper()}{one_line(where)}{prog}; "
                f"{side['llm_calls']} calls, {side['duration']:.1f}s",
                width,
            )
        )
        for agent, row in side["agents"].items():
            lines.append(
                _fit(
                    f"   {_cell(one_line(agent), 22)} {int(row['calls']):>3} calls {int(row['input']):>7} in "
                    f"{int(row['output']):>7} out {row['seconds']:>7.2f}s",
                    width,
                )
            )
    lines.append("")
    if result["same_program"]:
        lines.append("final programs: the same")
    else:
        lines.append("final programs (unified diff, A -> B):")
        lines.append(clean(result["program_diff"]).rstrip("\n"))
    return "\n".join(lines)


def _words(mark: MarkRecord) -> str:
    prog = f"[p{mark['progression']}] " if mark["progression"] is not None else ""
    # A step named after its agent (``programmer:1`` of the programmer) says it once.
    named = mark["agent"] and (mark["step"] or "").partition(":")[0] != mark["agent"]
    agent = f" {mark['agent']}" if named else ""
    what = "" if mark["what"] == "step" else f"{mark['what']} "
    return f"{prog}{mark['step'] or '-'}{agent}: {what}{mark['value']}"
