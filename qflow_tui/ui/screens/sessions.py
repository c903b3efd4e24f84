"""The session browser: every saved run with its date, problem, model, outcome,
tokens and duration; search as you type; open one in replay; delete (after a
confirmation); export as JSONL or as a Markdown transcript."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, DataTable, Footer, Header, Input, Label, Static
from textual.worker import Worker, WorkerState

from ...core.session import SessionInfo, Unreadable
from ...core.session.display import human_duration, human_time, human_tokens, short_model


def _outcome_style(outcome: str, colours: Any) -> str:
    if outcome == "accepted":
        return f"bold {colours.success}"
    if outcome in ("reverted", "rejected", "unchecked"):
        return colours.warning
    if outcome in ("failed", "cancelled", "incomplete"):
        return colours.error
    return ""


def _human_time(created: str) -> str:
    return human_time(created)


class ConfirmDelete(ModalScreen[bool]):
    """Asks before a session file is deleted; dismisses with True to delete."""

    BINDINGS = [
        Binding("escape,n", "answer(False)", "Keep"),
        Binding("y", "answer(True)", "Delete"),
    ]

    DEFAULT_CSS = """
    ConfirmDelete { align: center middle; }
    ConfirmDelete > Vertical { width: 64; max-width: 90%; height: auto; }
    ConfirmDelete Horizontal { height: auto; margin-top: 1; }
    ConfirmDelete Button { margin-right: 2; }
    """

    def __init__(self, info: SessionInfo) -> None:
        super().__init__()
        self.info = info

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Delete this session?", classes="dialog-title")
            yield Static(
                f"{self.info.title}\n{_human_time(self.info.created)} · {self.info.outcome}\n{self.info.path}",
                markup=False,
            )
            with Horizontal():
                yield Button("Delete", variant="error", id="delete-yes")
                yield Button("Keep", id="delete-no")
            yield Static("The file is removed from disk; this cannot be undone. y / n", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one("#delete-no", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "delete-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class ExportDialog(ModalScreen[Path | None]):
    """Asks where to export a session, writes it, dismisses with the path."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    ExportDialog { align: center middle; }
    ExportDialog > Vertical { width: 80; max-width: 95%; height: auto; }
    ExportDialog #export-error.-error { color: $error; }
    """

    def __init__(self, info: SessionInfo, fmt: str, default: Path) -> None:
        super().__init__()
        self.info = info
        self.fmt = fmt
        self.default = default

    def compose(self) -> ComposeResult:
        what = "a Markdown transcript" if self.fmt == "md" else "JSONL (a clean copy of the session)"
        with Vertical(classes="dialog"):
            yield Label(f"Export as {what}", classes="dialog-title")
            yield Input(value=str(self.default), id="export-path")
            yield Static("Enter to export, Escape to cancel", id="export-error", classes="dialog-hint")

    @on(Input.Submitted, "#export-path")
    def _export(self, event: Input.Submitted) -> None:
        from ...core.session import SessionError, default_export_name, export_session

        error = self.query_one("#export-error", Static)
        raw = event.value.strip()
        if not raw:
            error.update("Give a file name.")
            error.add_class("-error")
            return
        dest = Path(raw).expanduser()
        if dest.is_dir():
            dest = dest / default_export_name(self.info.path, self.fmt)
        try:
            written = export_session(self.info.path, dest, self.fmt)
        except SessionError as exc:
            error.update(str(exc))
            error.add_class("-error")
            return
        self.dismiss(written.resolve())

    def action_cancel(self) -> None:
        self.dismiss(None)


class SessionsScreen(Screen):
    """Browse the saved sessions (see the module docstring)."""

    BINDINGS = [
        Binding("enter", "open", "Open", tooltip="Replay the selected session", show=True),
        Binding(
            "slash,ctrl+f", "search", "Search", key_display="/", tooltip="Filter by problem, model, outcome or date"
        ),
        Binding("delete,d", "delete", "Delete", key_display="d", tooltip="Delete the selected session (asks first)"),
        Binding("m", "export('md')", "Export .md", tooltip="Export the selected session as a Markdown transcript"),
        Binding("j", "export('jsonl')", "Export .jsonl", tooltip="Export the selected session as JSONL"),
        Binding("r", "reload", "Reload", tooltip="Read the sessions folder again"),
        Binding("D", "demo", "Demo", show=False, tooltip="Replay the demo session that ships with qflow"),
        Binding("escape", "back", "Back", tooltip="Back (clears the search first)"),
    ]

    DEFAULT_CSS = """
    SessionsScreen { layout: vertical; }
    SessionsScreen #sessions-search { margin: 0 1; }
    SessionsScreen #sessions-where { height: auto; padding: 0 1; color: $text-muted; }
    SessionsScreen #sessions-table { height: 1fr; }
    SessionsScreen #sessions-empty { height: auto; padding: 1 2; display: none; }
    SessionsScreen #sessions-empty.-shown { display: block; }
    SessionsScreen #sessions-skipped { height: auto; max-height: 4; padding: 0 1; color: $warning; }
    """

    def __init__(self, directory: str | Path | None = None) -> None:
        super().__init__()
        self.directory = Path(directory) if directory is not None else None
        """The folder listed; the user's sessions folder when None."""
        self.sessions: list[SessionInfo] = []
        self.unreadable: list[Unreadable] = []
        self.shown: list[SessionInfo] = []
        self.loaded = False
        self.sub_title = "sessions"

    @property
    def folder(self) -> Path:
        if self.directory is not None:
            return self.directory
        from ...locations import sessions_dir

        return sessions_dir()

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="Search: problem, model, outcome, date…  (/)", id="sessions-search")
        yield Static(id="sessions-where", markup=False)
        table: DataTable[Any] = DataTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static(id="sessions-empty", markup=False)
        yield Static(id="sessions-skipped", markup=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        self.load()

    def _columns(self, table: DataTable[Any]) -> None:
        """Fixed columns; the problem and the model share what is left of the width."""
        fixed = {"date": 16, "outcome": 24, "tokens": 7, "time": 7}
        gaps = 2 * 6 + 2
        room = max(20, (table.size.width or self.size.width or 100) - sum(fixed.values()) - gaps)
        model = max(10, min(28, room * 2 // 5))
        widths = {**fixed, "problem": max(10, room - model), "model": model}
        table.clear(columns=True)
        for key in ("date", "problem", "model", "outcome", "tokens", "time"):
            table.add_column(key, key=key, width=widths[key])

    def on_resize(self) -> None:
        if self.loaded:
            self.fill()

    # -- loading ----------------------------------------------------------------------------

    def load(self) -> None:
        self.query_one("#sessions-where", Static).update(f"Reading {self.folder} …")
        self.read_sessions()

    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False, name="read sessions")
    def read_sessions(self) -> tuple[list[SessionInfo], list[Unreadable]]:
        from ...core.session import list_sessions

        return list_sessions(self.folder)

    @on(Worker.StateChanged)
    def _sessions_read(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "sessions":
            return
        if event.state == WorkerState.SUCCESS:
            self.sessions, self.unreadable = event.worker.result  # type: ignore[misc]
            self.loaded = True
            self.fill()
        elif event.state == WorkerState.ERROR:
            self.loaded = True
            self.sessions, self.unreadable = [], []
            self.fill()
            self.notify(f"Cannot read {self.folder}: {event.worker.error}", severity="error")

    def fill(self, keep: Path | None = None) -> None:
        """Show the sessions that match the search, keeping the cursor on ``keep``."""
        from rich.text import Text

        from ..palette import palette

        colours = palette(self.app)

        table = self.query_one(DataTable)
        if keep is None:
            keep = self.selected.path if self.selected else None
        query = self.query_one("#sessions-search", Input).value
        self.shown = [s for s in self.sessions if s.matches(query)]
        self._columns(table)
        for s in self.shown:
            outcome = s.outcome + (f" @ {s.accepted_at}" if s.accepted_at else "")
            style = _outcome_style(s.outcome, colours)
            table.add_row(
                _human_time(s.created),
                Text(s.title, overflow="ellipsis", no_wrap=True),
                Text(short_model(s.model), overflow="ellipsis", no_wrap=True),
                Text(outcome, style=style),
                Text(human_tokens(s.tokens), justify="right"),
                Text(human_duration(s.duration), justify="right"),
                key=str(s.path),
            )
        if keep is not None:
            for row, s in enumerate(self.shown):
                if s.path == keep:
                    table.move_cursor(row=row)
                    break
        count = f"{len(self.shown)} of {len(self.sessions)}" if query.strip() else str(len(self.sessions))
        self.query_one("#sessions-where", Static).update(
            f"{count} session{'s' if len(self.sessions) != 1 else ''} in {self.folder}"
            + ("  ·  Enter replays the selected one" if self.shown else "")
        )
        empty = self.query_one("#sessions-empty", Static)
        if not self.sessions:
            empty.update(
                "No sessions yet. Every run is saved here as it happens: press Escape and run a problem, "
                "or press D to replay the demo session that ships with qflow."
            )
        elif not self.shown:
            empty.update(f"No session matches {query.strip()!r}. Escape clears the search.")
        empty.set_class(not self.shown, "-shown")
        skipped = self.query_one("#sessions-skipped", Static)
        skipped.update(
            "\n".join(f"skipped {u.path.name}: {u.reason}" for u in self.unreadable[:3])
            + (f"\n… and {len(self.unreadable) - 3} more" if len(self.unreadable) > 3 else "")
        )
        skipped.display = bool(self.unreadable)
        self.refresh_bindings()

    @property
    def selected(self) -> SessionInfo | None:
        table = self.query_one(DataTable)
        if not self.shown or table.cursor_row is None or not 0 <= table.cursor_row < len(self.shown):
            return None
        return self.shown[table.cursor_row]

    # -- search -----------------------------------------------------------------------------

    @on(Input.Changed, "#sessions-search")
    def _search_changed(self) -> None:
        if self.loaded:
            self.fill()

    @on(Input.Submitted, "#sessions-search")
    def _search_submitted(self) -> None:
        self.query_one(DataTable).focus()

    # -- actions ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("open", "delete", "export"):
            return self.selected is not None
        return True

    @on(DataTable.RowSelected)
    def _row_selected(self) -> None:
        self.action_open()

    def action_open(self) -> None:
        info = self.selected
        if info is None:
            return
        self._open_replay(info.path)

    def _open_replay(self, path: Path) -> None:
        from .replay import ReplayScreen

        self.app.push_screen(ReplayScreen(path))

    def action_demo(self) -> None:
        from ...locations import demo_session

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
            from ...core.session import SessionError, delete_session

            try:
                delete_session(info.path)
            except SessionError as exc:
                self.notify(str(exc), title="Not deleted", severity="error")
                return
            row = self.query_one(DataTable).cursor_row
            self.sessions = [s for s in self.sessions if s.path != info.path]
            self.fill()
            if self.shown:
                self.query_one(DataTable).move_cursor(row=min(row, len(self.shown) - 1))
            self.notify(f"Deleted {info.path.name}.")

        self.app.push_screen(ConfirmDelete(info), answered)

    def action_export(self, fmt: str) -> None:
        info = self.selected
        if info is None:
            return
        from ...core.session import default_export_name

        default = Path.cwd() / default_export_name(info.path, fmt)

        def exported(path: Path | None) -> None:
            if path is not None:
                self.notify(f"Exported to {path}.", title="Exported")

        self.app.push_screen(ExportDialog(info, fmt, default), exported)

    def action_back(self) -> None:
        search = self.query_one("#sessions-search", Input)
        if search.value:
            search.value = ""
            self.query_one(DataTable).focus()
            return
        self.app.pop_screen()

    def on_screen_resume(self) -> None:
        # Back from a replay: a run may have been saved meanwhile.
        if self.loaded:
            self.load()
