"""The session browser's table: its columns and their widths at a given width,
and the cells of a session's row and of a folder's group row. Functions of
what they are given (no widget is read here): the browser draws what they return."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from ...core.safe_text import one_line
from ...core.session import FolderGroup, SessionInfo
from ...core.session.display import fork_place, human_duration, human_time, human_tokens, short_model
from ..palette import Palette

#: Levels of forks shown by indentation; a deeper fork says its depth.
MAX_INDENT = 6
#: The model column's width under 100 columns (its name cut in the middle).
NARROW_MODEL = 10
#: The columns in the order shown; one whose width is 0 is left out.
COLUMNS = ("#", "date", "problem", "model", "outcome", "tokens", "time")

Cell = str | Text
"""What a row's cell holds."""


def outcome_style(outcome: str, colours: Palette) -> str:
    """The style of a session's outcome: green accepted, amber undecided, red failed."""
    if outcome == "accepted":
        return f"bold {colours.success}"
    if outcome in ("reverted", "rejected", "unchecked"):
        return colours.warning
    if outcome in ("failed", "cancelled", "incomplete"):
        return colours.error
    return ""


def narrow_model(model: str, width: int) -> str:
    """A model's name in ``width`` cells: without its provider (``script/``,
    ``anthropic/``), cut in the middle where it is longer, so the end that tells
    ``claude-sonnet-4-5`` from ``claude-sonnet-5-5`` stays."""
    name = one_line(short_model(model))
    _provider, sep, rest = name.partition("/")
    name = rest if sep and rest else name
    if len(name) <= width:
        return name
    tail = (width - 1) // 2
    return name[: width - 1 - tail] + "…" + name[-tail:]


def column_widths(width: int, last_number: int, models: int) -> dict[str, int]:
    """Each column's width in a table ``width`` cells wide whose largest session
    number is ``last_number`` and whose rows show ``models`` different models.

    Fixed columns; the problem and the model share what is left of the
    width. Narrow (under 100 columns), the run's duration gives way (0: no
    column), the model keeps a short column where the rows' models differ
    (the name without its provider, cut in the middle: rows of two models
    must not look the same; one model for all is said above the table), the date
    loses its year and the outcome its step, so the problem, what tells runs
    apart, keeps room to be read."""
    # Room for the largest number shown and the compare mark before it.
    number = max(3, len(str(last_number)) + 1)
    narrow = width < 100
    fixed = {
        "#": number,
        "date": 11 if narrow else 16,
        "outcome": 10 if narrow else 23,
        "tokens": 6,
        "time": 0 if narrow else 6,
    }
    columns = 5 if narrow else 7
    # Each column is padded by one cell on either side; one more for the scrollbar's edge.
    room = max(20, width - sum(fixed.values()) - 2 * columns - 1)
    if narrow:
        # Only where it tells rows apart: one model for every row is said
        # once above the table instead, and its titles keep the room.
        model = NARROW_MODEL if models > 1 and room >= 22 + NARROW_MODEL else 0
        return {**fixed, "problem": room - model - (2 if model else 0), "model": model}
    # The problem first, up to 28 columns; the model up to 28; the problem the rest.
    model = max(10, min(28, room - 28))
    return {**fixed, "problem": max(10, room - model), "model": model}


def shown_columns(widths: dict[str, int]) -> list[str]:
    """The columns with room to be shown, in order."""
    return [k for k in COLUMNS if widths[k]]


def fork_note(s: SessionInfo, depth: int, loop: int | None) -> tuple[str, str]:
    """A fork's row: the tree mark before its title and, in place of its model
    (the recording of its parent), the step it branched at; a fork whose
    parent is not shown says why. ``depth`` is how deep in the fork tree it
    sits (0: at the top), ``loop`` the length of the loop of fork parents
    broken at it, if one was. Deep chains are indented at most
    :data:`MAX_INDENT` levels, then say their depth."""
    if not s.parent:
        return "", ""
    forked_at = one_line(s.forked_at) if s.forked_at else None
    if depth > 0:
        at = fork_place(forked_at, parent_shown=True)
        if depth > MAX_INDENT:
            return "  " * (MAX_INDENT - 1) + f"└{depth} ", at
        return "  " * (depth - 1) + "└ ", at
    if loop is not None:
        return "↻ ", fork_place(forked_at, parent_shown=False, loop=loop)
    return "↳ ", fork_place(forked_at, parent_shown=False, parent_exists=Path(s.parent).exists())


def session_cells(
    s: SessionInfo,
    widths: dict[str, int],
    colours: Palette,
    *,
    in_folder: bool,
    marked: bool,
    fork: tuple[str, str],
) -> list[Cell]:
    """A session's row: its cells for the shown columns. ``in_folder``: the
    listing is one folder's (its name is not repeated in the titles); ``fork``
    is :func:`fork_note`'s answer for it."""
    # Narrow, the outcome alone: where it was accepted is in the replay.
    narrow = widths["outcome"] < 23
    outcome = s.outcome + (f" @ {s.accepted_at}" if s.accepted_at and not narrow else "")
    title = s.shown_title if in_folder or not s.folder else f"{s.folder}/ · {s.shown_title}"
    title += " ✎" if s.note else ""
    mark, where = fork
    cell = Text(mark, style=f"bold {colours.accent}", overflow="ellipsis", no_wrap=True)
    width = widths["model"]
    if where and width <= NARROW_MODEL:
        # No room in the model column: where the fork branched is what tells it from its parent.
        cell.append(where + " · ", style=f"italic {colours.accent}")
    cell.append(one_line(title))
    if where and width == NARROW_MODEL:
        model = Text("fork", style=f"italic {colours.accent}")  # where it branched is in its title
    elif where:
        model = Text(where, style=f"italic {colours.accent}")
    elif width == NARROW_MODEL:
        model = Text(narrow_model(s.model, width))
    else:
        model = Text(one_line(short_model(s.model)))
    model.overflow, model.no_wrap = "ellipsis", True
    number = ("●" if marked else "") + str(s.number or "")
    cells: dict[str, Cell] = {
        "#": Text(number, justify="right", style=f"bold {colours.accent}" if marked else ""),
        "date": human_time(s.created)[5:] if widths["date"] < 16 else human_time(s.created),
        "problem": cell,
        "model": model,
        "outcome": Text(one_line(outcome), style=outcome_style(s.outcome, colours), overflow="ellipsis", no_wrap=True),
        "tokens": Text(human_tokens(s.tokens), justify="right"),
        "time": Text(human_duration(s.duration), justify="right"),
    }
    return [cells[k] for k in shown_columns(widths)]


def group_cells(g: FolderGroup, widths: dict[str, int]) -> list[Cell]:
    """A benchmark's folder as one row: its name, how many sessions, how many accepted."""
    name = g.benchmark or Path(g.folder).name
    cells: dict[str, Cell] = {
        "#": Text("▸", justify="right"),
        "date": human_time(g.newest),
        "problem": Text(f"{one_line(name)}/", style="bold", overflow="ellipsis", no_wrap=True),
        "model": Text(f"{g.sessions} sessions", style="dim"),
        "outcome": Text(f"{g.accepted}/{g.sessions} accepted"),
        "tokens": Text(""),
        "time": Text(""),
    }
    return [cells[k] for k in shown_columns(widths)]
