"""The session browser: every saved run with its date, problem, model, outcome,
tokens and duration; search as you type; open one in replay; resume one that
did not finish; delete (after a confirmation); export as JSONL or as a Markdown
transcript (through the app's one path prompt)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Header, Input, Static
from textual.worker import Worker, WorkerState

from ...core.config import RunConfig
from ...core.problem import Problem
from ...core.resume import ResumeError, Resumption
from ...core.safe_text import clean, one_line
from ...core.session import (
    FolderGroup,
    IndexUnavailable,
    Listing,
    Query,
    SearchError,
    SessionError,
    SessionIndex,
    SessionInfo,
    Unreadable,
    default_export_name,
    delete_session,
    find_sessions,
    parse_search,
)
from ...core.session.display import short_model
from ...core.session.family import fork_tree, loop_words
from ...core.session.notes import attach_notes, set_note
from ...locations import demo_session, sessions_dir
from ..access import qflow_app
from ..palette import palette
from ..widgets.footer import AppFooter
from ..widgets.lists import ListTable
from .base import AppScreen
from .confirm import Confirm
from .line_prompt import LinePrompt
from .path_prompt import PathPrompt
from .session_actions import (
    checked_name,
    checked_note,
    delete_detail,
    export_title,
    exporter,
    failure_line,
    rerun_plan,
    resume_plan,
)
from .session_rows import column_widths, fork_note, group_cells, session_cells, shown_columns
from .steer_edit import SteerEditScreen

if TYPE_CHECKING:
    from ...core.llm import LLMClient

#: The orders s goes through, as ``qflow sessions --sort`` names them.
SORTS = ("date", "oldest", "tokens", "duration", "title")
#: Each order in the words the line above the table says.
SORT_WORDS = {
    "date": "date (newest first)",
    "oldest": "date (oldest first)",
    "tokens": "tokens (most first)",
    "duration": "duration (longest first)",
    "title": "title",
}

#: Sessions read from the index per page; the next page loads when the cursor
#: comes near the end of what is shown.
PAGE_SIZE = 100


class SessionsScreen(AppScreen[None]):
    """Browse the saved sessions (see the module docstring). Rows come from the
    sessions index a page at a time; a benchmark's sessions (a sub-folder) show
    as one group row until opened."""

    BINDINGS = [
        Binding("enter", "open", "Open", tooltip="Replay the selected session, or open the selected folder", show=True),
        Binding(
            "slash,ctrl+f",
            "search",
            "Search",
            key_display="/",
            tooltip="Search statements, programs, titles; filter with outcome: model: workflow: bench: since:",
        ),
        Binding("delete,d", "delete", "Delete", key_display="d", tooltip="Delete the selected session (asks first)"),
        Binding(
            "m",
            "export('md')",
            "Export .md",
            show=False,
            tooltip="Export the selected session as a Markdown transcript",
        ),
        Binding("J", "export('jsonl')", "Export .jsonl", show=False, tooltip="Export the selected session as JSONL"),
        Binding("r", "reload", "Reload", show=False, tooltip="Read the sessions folder again"),
        Binding("space", "mark", "Mark", tooltip="Mark the selected session for compare (two at most)"),
        Binding(
            "c",
            "compare",
            "Compare",
            tooltip="Compare the two marked sessions, a marked one with the selected one, or a fork with its parent",
        ),
        Binding("p", "parent", "Parent", show=False, tooltip="Go to the session the selected fork was forked from"),
        Binding(
            "R",
            "resume",
            "Resume",
            show=False,
            tooltip="Resume the selected unfinished run: finished calls come from the recording, the rest live",
        ),
        Binding("D", "demo", "Demo", show=False, tooltip="Replay the demo session that ships with qflow"),
        Binding("s", "sort", "Sort", tooltip="Sort by date, oldest, tokens, duration or title (numbers stay)"),
        Binding("n", "rename", "Rename", show=False, tooltip="Name the selected session (shown in place of its title)"),
        Binding("a", "note", "Note", show=False, tooltip="Write a note on the selected session"),
        Binding(
            "ctrl+r",
            "rerun",
            "Re-run",
            show=False,
            tooltip="Run the selected session's problem again with its settings, answered from its recording",
        ),
        Binding("escape", "back", "Back", tooltip="Back (clears the search, or leaves a folder, first)"),
    ]

    DEFAULT_CSS = """
    SessionsScreen { layout: vertical; }
    SessionsScreen #sessions-search { margin: 0 1; }
    SessionsScreen #sessions-where { height: auto; padding: 0 1; color: $text-muted; }
    SessionsScreen #sessions-table { height: 1fr; }
    SessionsScreen #sessions-empty { height: auto; padding: 1 2; display: none; }
    SessionsScreen #sessions-empty.-shown { display: block; }
    SessionsScreen #sessions-parent {
        height: 1; padding: 0 1; color: $accent; display: none; text-wrap: nowrap; text-overflow: ellipsis;
    }
    SessionsScreen #sessions-parent.-shown { display: block; }
    SessionsScreen #sessions-skipped { height: auto; max-height: 4; padding: 0 1; color: $warning; }
    """

    def __init__(self, directory: str | Path | None = None) -> None:
        super().__init__()
        self.directory = Path(directory) if directory is not None else None
        """The folder listed; the user's sessions folder when None."""
        self.sessions: list[SessionInfo] = []
        """The sessions loaded so far (pages of the current listing)."""
        self.groups: list[FolderGroup] = []
        """Sub-folders shown as group rows (at the top level, without a search)."""
        self.unreadable: list[Unreadable] = []
        self.total = 0
        """How many sessions the current listing has in all."""
        self.in_folder: str | None = None
        """The sub-folder opened from a group row; None at the top."""
        self.loaded = False
        self.loops: dict[Path, int] = {}
        """Sessions at which a loop of fork parents was broken, with the loop's length."""
        self._loops_said: set[frozenset[str]] = set()
        self._loading_more = False
        self._keep: Path | None = None
        self.marked: list[Path] = []
        """Sessions marked for compare (space), the first marked first; two at most."""
        self.depth: dict[Path, int] = {}
        """How deep in the fork tree each shown session sits (0: at the top)."""
        self.sub_title = "sessions"
        self.sort = "date"
        self._notes_trouble = ""
        """The listing's order (``qflow sessions --sort``); the numbers stay each session's."""

    @property
    def shown(self) -> list[SessionInfo]:
        """The session rows on screen, in order (group rows come before them)."""
        return self.sessions

    @property
    def folder(self) -> Path:
        if self.directory is not None:
            return self.directory

        return sessions_dir()

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(
            placeholder="Search statements, programs, titles…  outcome: model: workflow: bench: since:  (/)",
            id="sessions-search",
        )
        yield Static(id="sessions-where", markup=False)
        yield Static(id="sessions-parent", markup=False)
        table: DataTable[Any] = ListTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static(id="sessions-empty", markup=False)
        yield Static(id="sessions-skipped", markup=False)
        yield AppFooter()

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        self.load()

    def _widths(self) -> dict[str, int]:
        """The columns' widths at the table's width (see :func:`column_widths`)."""
        table = self.query_one(DataTable)
        width = table.size.width or self.size.width or 100
        last = max((s.number or 0 for s in self.sessions), default=0)
        return column_widths(width, last, len(self._models()))

    def _models(self) -> set[str]:
        """The models of the sessions shown (a fork's is its parent's recording: not counted)."""
        return {s.model for s in self.sessions if not s.parent}

    def on_resize(self) -> None:
        if self.loaded:
            self.fill()

    # -- loading ----------------------------------------------------------------------------

    def _query(self, offset: int = 0) -> tuple[Query, bool]:
        """The index query for what the screen shows, and whether it spans sub-folders."""
        query = parse_search(self.query_one("#sessions-search", Input).value)
        query.limit, query.offset, query.sort = PAGE_SIZE, offset, self.sort
        if self.in_folder is not None:
            query.folder = self.in_folder
            return query, True
        searching = bool(query.search or query.benchmark or query.model or query.outcome or query.workflow)
        # A search or a filter looks into every folder; the plain top level
        # shows each benchmark's folder as one row.
        return query, searching or query.since is not None or query.until is not None

    def load(self, keep: Path | None = None) -> None:
        self._keep = keep if keep is not None else (self.selected.path if self.selected else None)
        try:
            query, recursive = self._query()
        except SearchError as exc:
            # Said where the user looks while typing; the rows shown stay.
            self.query_one("#sessions-where", Static).update(f"✗ {exc}")
            return
        self.query_one("#sessions-where", Static).update(f"Reading {self.folder} …")
        self.read_sessions(query, recursive, self.in_folder is None and not recursive)

    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False, name="read sessions")
    def read_sessions(self, query: Query, recursive: bool, with_groups: bool) -> tuple[Listing, list[FolderGroup]]:

        listing = find_sessions(self.folder, query, recursive=recursive)
        self._notes_trouble = attach_notes(listing.sessions)
        groups: list[FolderGroup] = []
        if with_groups and self.folder.is_dir():
            try:
                groups = SessionIndex().folders(self.folder)
            except IndexUnavailable:
                groups = []
        return listing, groups

    @work(thread=True, exclusive=True, group="sessions-more", exit_on_error=False, name="read more sessions")
    def read_more(self, query: Query, recursive: bool) -> Listing:
        listing = find_sessions(self.folder, query, recursive=recursive)
        attach_notes(listing.sessions)
        return listing

    @on(Worker.StateChanged)
    def _sessions_read(self, event: Worker.StateChanged) -> None:
        group = event.worker.group
        if group not in ("sessions", "sessions-more"):
            return
        if event.state == WorkerState.SUCCESS:
            if group == "sessions":
                listing, self.groups = event.worker.result  # type: ignore[misc]
                self.sessions = list(listing.sessions)
                self.unreadable, self.total = listing.unreadable, listing.total
                self.loaded = True
                self.fill(self._keep)
                if self._notes_trouble:
                    self.notify(self._notes_trouble, title="Names and notes", severity="warning", markup=False)
            else:
                self._loading_more = False
                more: Listing = event.worker.result  # type: ignore[assignment]
                self._append(more.sessions)
        elif event.state == WorkerState.ERROR:
            self._loading_more = False
            if group == "sessions":
                self.loaded = True
                self.sessions, self.unreadable, self.groups, self.total = [], [], [], 0
                self.fill()
            self.notify(clean(f"Cannot read {self.folder}: {event.worker.error}"), severity="error", markup=False)

    def _append(self, sessions: list[SessionInfo]) -> None:
        known = {s.path for s in self.sessions}
        self.sessions.extend(s for s in sessions if s.path not in known)
        # A page may hold the parents of forks already shown: draw the tree again.
        self.fill()

    def _as_tree(self, sessions: list[SessionInfo]) -> list[SessionInfo]:
        """The sessions in listing order with each fork moved under its parent
        (depth first); a fork whose parent is not shown (deleted, filtered out,
        on a later page) stays at the top, marked in its row. A loop of fork
        parents (only hostile files make one) is broken at its first session
        listed, which is marked, and said once in a notice."""

        tree = fork_tree(sessions, lambda s: str(s.path), lambda s: s.parent)
        self.depth = {Path(k): d for k, d in tree.depth.items()}
        self.loops = {Path(k): len(loop) for k, loop in tree.broken.items()}
        for loop in tree.loops:
            said = frozenset(str(s.path) for s in loop)
            if said not in self._loops_said:
                self._loops_said.add(said)
                self.notify(
                    clean(
                        f"The fork parents of these sessions form a loop: {loop_words(loop, lambda s: s.path.name)}. "
                        f"Shown from {loop[0].path.name}."
                    ),
                    title="A loop of forks",
                    severity="warning",
                    markup=False,
                )
        return tree.order

    def _fork_note(self, s: SessionInfo) -> tuple[str, str]:
        """A fork's tree mark and where it branched, at its place in the tree shown."""
        return fork_note(s, self.depth.get(s.path, 0), self.loops.get(s.path))

    def fill(self, keep: Path | None = None) -> None:
        """Show the loaded rows, keeping the cursor on ``keep``."""

        colours = palette(self.app)
        table = self.query_one(DataTable)
        if keep is None:
            keep = self.selected.path if self.selected else None
        widths = self._widths()
        table.clear(columns=True)
        for key in shown_columns(widths):
            table.add_column(key, key=key, width=widths[key])
        self.sessions = self._as_tree(self.sessions)
        for g in self.groups:
            table.add_row(*group_cells(g, widths), key=f"folder:{g.folder}")
        for s in self.sessions:
            marked = s.path in self.marked
            fork = self._fork_note(s)
            cells = session_cells(s, widths, colours, in_folder=self.in_folder is not None, marked=marked, fork=fork)
            table.add_row(*cells, key=str(s.path))
        if keep is not None:
            for row, s in enumerate(self.sessions):
                if s.path == keep:
                    table.move_cursor(row=len(self.groups) + row)
                    break
        self._describe()

    def _one_model(self) -> str:
        """ "  ·  model X" when the model column gave way and one model ran them all."""
        models = self._models()
        if self._widths()["model"] or len(models) != 1:
            return ""
        return f"  ·  model {one_line(short_model(next(iter(models))))}"

    def _describe(self) -> None:
        query = self.query_one("#sessions-search", Input).value.strip()
        where = f"{self.folder / self.in_folder}" if self.in_folder is not None else str(self.folder)
        count = f"{len(self.sessions)} of {self.total}" if len(self.sessions) < self.total else str(self.total)
        self.query_one("#sessions-where", Static).update(
            f"{count} session{'s' if self.total != 1 else ''}"
            + (f" matching {query!r}" if query else "")
            + f" in {where}"
            + (f", by {SORT_WORDS[self.sort]}" if self.sort != "date" else "")
            + self._one_model()
            + ("  ·  Enter replays the selected one" if self.sessions else "")
            + ("  ·  Escape goes back to all sessions" if self.in_folder is not None else "")
        )
        empty = self.query_one("#sessions-empty", Static)
        nothing = not self.sessions and not self.groups
        if nothing and not query and self.in_folder is None:
            empty.update(
                "No sessions yet. Every run is saved here as it happens: press Escape and run a problem, "
                "or press D to replay the demo session that ships with qflow."
            )
        elif nothing:
            empty.update(f"No session matches {query!r}. Escape clears the search.")
        empty.set_class(nothing, "-shown")
        skipped = self.query_one("#sessions-skipped", Static)
        skipped.update(
            "\n".join(f"skipped {one_line(u.path.name)}: {one_line(u.reason)}" for u in self.unreadable[:3])
            + (f"\n… and {len(self.unreadable) - 3} more" if len(self.unreadable) > 3 else "")
        )
        skipped.display = bool(self.unreadable)
        self.refresh_bindings()

    def _row(self) -> int | None:
        table = self.query_one(DataTable)
        row = table.cursor_row
        if row is None or not 0 <= row < len(self.groups) + len(self.sessions):
            return None
        return row

    @property
    def selected(self) -> SessionInfo | None:
        row = self._row()
        if row is None or row < len(self.groups):
            return None
        return self.sessions[row - len(self.groups)]

    @property
    def selected_group(self) -> FolderGroup | None:
        row = self._row()
        return self.groups[row] if row is not None and row < len(self.groups) else None

    @on(DataTable.RowHighlighted)
    def _show_parent(self) -> None:
        """The selected fork's parent link, from its header; or the selected session's note."""
        line = self.query_one("#sessions-parent", Static)
        info = self.selected
        if info is not None and info.note and not info.parent:
            note = Text(one_line(f"✎ {info.note}  ·  a: edit the note"), no_wrap=True, overflow="ellipsis")
            line.update(note)
            line.add_class("-shown")
            return
        if info is None or not info.parent:
            line.remove_class("-shown")
            return

        parent = Path(info.parent)
        shown = next((s for s in self.sessions if str(s.path) == info.parent), None)
        name = f"#{shown.number}" if shown is not None and shown.number else parent.name
        at = f" at {info.forked_at}" if info.forked_at else ""
        if not parent.exists():
            name += " (deleted)"
        text = Text(one_line(f"⑂ fork of {name}{at}  ·  p: go to it · c: compare"), no_wrap=True)
        text.overflow = "ellipsis"
        line.update(text)
        line.add_class("-shown")

    @on(DataTable.RowHighlighted)
    def _near_the_end(self, event: DataTable.RowHighlighted) -> None:
        """Load the next page when the cursor comes near the end of what is loaded."""
        if self._loading_more or len(self.sessions) >= self.total:
            return
        if event.cursor_row >= len(self.groups) + len(self.sessions) - 10:
            try:
                query, recursive = self._query(offset=len(self.sessions))
            except SearchError:
                return  # the search line already says what is wrong
            self._loading_more = True
            self.read_more(query, recursive)

    # -- search -----------------------------------------------------------------------------

    @on(Input.Changed, "#sessions-search")
    def _search_changed(self) -> None:
        if self.loaded:
            self.load()

    @on(Input.Submitted, "#sessions-search")
    def _search_submitted(self) -> None:
        self.query_one(DataTable).focus()

    # -- actions ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open":
            return self.selected is not None or self.selected_group is not None
        if action in ("delete", "export", "resume", "mark", "parent", "rename", "note", "rerun"):
            return self.selected is not None
        return True

    @on(DataTable.RowSelected)
    def _row_selected(self) -> None:
        self.action_open()

    def action_open(self) -> None:
        group = self.selected_group
        if group is not None:
            self.in_folder = group.folder
            self.sessions, self.groups = [], []
            self.load()
            return
        info = self.selected
        if info is None:
            return
        self._open_replay(info.path)

    def _open_replay(self, path: Path) -> None:
        qflow_app(self).open_replay(path)

    def action_demo(self) -> None:

        self._open_replay(demo_session())

    def action_search(self) -> None:
        self.query_one("#sessions-search", Input).focus()

    def action_reload(self) -> None:
        self.load()

    def action_delete(self) -> None:
        info = self.selected
        if info is None:
            return

        def answered(yes: bool | None) -> None:
            if not yes:
                return

            try:
                delete_session(info.path)
            except SessionError as exc:
                self.notify(str(exc), title="Not deleted", severity="error")
                return
            row = self.query_one(DataTable).cursor_row
            self.sessions = [s for s in self.sessions if s.path != info.path]
            self.total = max(0, self.total - 1)
            self.fill()
            if self.sessions:
                self.query_one(DataTable).move_cursor(row=min(row, len(self.groups) + len(self.sessions) - 1))
            self.notify(clean(f"Deleted {info.path.name}."), markup=False)
            # Numbers count the sessions that exist: read them again.
            self.load()

        detail = delete_detail(info)
        self.app.push_screen(Confirm("Delete this session?", detail, yes="Delete", no="Keep"), answered)

    def action_export(self, fmt: str) -> None:
        info = self.selected
        if info is None:
            return

        name = default_export_name(info.path, fmt)

        def exported(path: Path | None) -> None:
            if path is not None:
                self.notify(clean(f"Exported to {path}."), title="Exported", markup=False)

        prompt = PathPrompt(export_title(fmt), Path.cwd() / name, exporter(info.path, fmt), name_in_folder=name)
        self.app.push_screen(prompt, exported)

    # -- resume ------------------------------------------------------------------------------

    def action_resume(self) -> None:
        """Resume the selected run if it did not finish, as ``qflow solve --resume``
        does, in a live run screen; a finished run or an unreachable model is one line."""
        info = self.selected
        if info is not None:
            self.prepare_resume(info.path)

    @work(thread=True, exclusive=True, group="resume", exit_on_error=False, name="prepare resume")
    def prepare_resume(self, path: Path) -> tuple[Resumption, LLMClient]:
        return resume_plan(path)

    @on(Worker.StateChanged)
    def _resume_ready(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "resume":
            return
        if event.state == WorkerState.ERROR:
            text = failure_line(event.worker.error, (ResumeError,))
            self.notify(text, title="Not resumed", severity="error", markup=False)
        elif event.state == WorkerState.SUCCESS:
            plan, client = event.worker.result  # type: ignore[misc]
            qflow_app(self).open_run(plan.problem, plan.config, client=client, own_client=True)

    def action_sort(self) -> None:
        """s: the next order (date, oldest, tokens, duration, title); the cursor stays on its session."""
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        self.notify(f"Sorted by {SORT_WORDS[self.sort]}.", markup=False)
        self.load()

    def action_rename(self) -> None:
        info = self.selected
        if info is None:
            return

        title = one_line(f"Name {info.path.name} (empty: its title, {info.title})", 120)
        self.app.push_screen(LinePrompt(title, info.name, checked_name), self._saver(info, "name"))

    def action_note(self) -> None:
        info = self.selected
        if info is None:
            return

        title = one_line(f"Note on {info.shown_title} (empty: no note)", 120)
        self.app.push_screen(SteerEditScreen(title, info.note, checked_note, language=None), self._saver(info, "note"))

    def _saver(self, info: SessionInfo, what: str) -> Callable[[tuple[bool, str] | None], None]:
        def saved(answer: tuple[bool, str] | None) -> None:
            if answer is None or not answer[0]:
                return
            try:
                text = answer[1]
                now = set_note(info.path, name=text) if what == "name" else set_note(info.path, note=text)
            except SessionError as exc:
                self.notify(one_line(str(exc), 300), title="Not saved", severity="error", markup=False)
                return
            info.name, info.note = now.name, now.note
            self.fill(info.path)
            self._show_parent()
            self.notify(f"{'Name' if what == 'name' else 'Note'} saved (the session file is unchanged).", markup=False)

        return saved

    def action_rerun(self) -> None:
        """Ctrl+R: the selected session's problem again, with its recorded settings,
        its calls answered from its recording (as ``qflow replay FILE --rerun``)."""
        info = self.selected
        if info is not None:
            self.prepare_rerun(info.path)

    @work(thread=True, exclusive=True, group="rerun", exit_on_error=False, name="prepare re-run")
    def prepare_rerun(self, path: Path) -> tuple[Problem, RunConfig]:
        return rerun_plan(path)

    @on(Worker.StateChanged)
    def _rerun_ready(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "rerun":
            return
        if event.state == WorkerState.ERROR:
            text = failure_line(event.worker.error, (ResumeError, SessionError))
            self.notify(text, title="Not re-run", severity="error", markup=False)
        elif event.state == WorkerState.SUCCESS:
            problem, config = event.worker.result  # type: ignore[misc]
            qflow_app(self).open_run(problem, config)

    def action_mark(self) -> None:
        info = self.selected
        if info is None:
            return
        if info.path in self.marked:
            self.marked.remove(info.path)
        else:
            self.marked = [*self.marked, info.path][-2:]
        self.fill(info.path)

    def action_compare(self) -> None:
        info = self.selected
        if len(self.marked) == 2:
            a, b = self.marked
        elif len(self.marked) == 1 and info is not None and info.path != self.marked[0]:
            a, b = self.marked[0], info.path
        elif info is not None and info.parent and Path(info.parent).exists():
            a, b = Path(info.parent), info.path
        else:
            self.notify(
                "Mark two sessions with space to compare them (or select a fork: c compares it with its parent).",
                severity="warning",
                markup=False,
            )
            return
        qflow_app(self).open_compare(a, b)

    def action_parent(self) -> None:
        info = self.selected
        if info is None or not info.parent:
            self.notify("The selected session is not a fork.", markup=False)
            return
        for row, s in enumerate(self.sessions):
            if str(s.path) == info.parent:
                self.query_one(DataTable).move_cursor(row=len(self.groups) + row)
                return
        where = "has been deleted" if not Path(info.parent).exists() else "is not in this listing"
        self.notify(clean(f"Its parent {Path(info.parent).name} {where}."), severity="warning", markup=False)

    def action_back(self) -> None:
        """Escape: clears the search first (staying in the browser, the cursor
        on the session it found), then leaves an opened folder, then the browser."""
        search = self.query_one("#sessions-search", Input)
        table = self.query_one(DataTable)
        if search.has_focus or search.value:
            keep = self.selected.path if self.selected else None
            if search.value:
                search.value = ""
                self.load(keep=keep)
            table.focus()
            return
        if self.in_folder is not None:
            self.in_folder = None
            self.sessions, self.groups = [], []
            self.load()
            return
        self.app.pop_screen()

    def on_screen_resume(self) -> None:
        # Back from a replay: a run may have been saved meanwhile.
        if self.loaded:
            self.load()
