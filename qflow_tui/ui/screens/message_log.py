"""Every notification of this session of the app, newest first (Ctrl+L): a toast
lasts seconds, and what it said may matter after it is gone."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Label, Static

from ...core.safe_text import clean
from ..access import qflow_app
from ..widgets.lists import ListScroll
from .base import AppModal


class MessagesScreen(AppModal[None]):
    """The app's notification log; Escape or q closes it."""

    DEFAULT_CSS = """
    MessagesScreen { align: center middle; }
    MessagesScreen > VerticalScroll {
        width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    MessagesScreen .message { margin-top: 1; }
    MessagesScreen .messages-hint { color: $text-muted; margin-top: 1; }
    """

    BINDINGS = [Binding("escape,q,ctrl+l", "close", "Close", show=False)]

    def compose(self) -> ComposeResult:
        app = qflow_app(self)
        log = list(reversed(app.message_log))
        with ListScroll():
            yield Label(f"Messages ({len(log)}, newest first)", classes="dialog-title")
            if not log:
                yield Static("Nothing yet: notices, warnings and errors are kept here as they come.")
            colours = {"error": "bold red", "warning": "bold yellow"}
            for entry in log:
                text = Text(f"{entry.at:>7.1f}s  ", style="dim")
                text.append(entry.severity, style=colours.get(entry.severity, "bold"))
                if entry.title:
                    text.append(f"  {clean(entry.title)}", style="bold")
                if entry.repeats:
                    text.append(f"  (×{entry.repeats + 1})", style="dim")
                text.append("\n" + clean(entry.message))
                yield Static(text, classes="message")
            yield Static("Times are seconds since qflow started. Escape or q closes this.", classes="messages-hint")

    def action_close(self) -> None:
        self.dismiss(None)
