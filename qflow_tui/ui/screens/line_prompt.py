"""One line asked for in a dialog (a session's name): Enter takes it once its
check passes, Escape leaves it; a refused line says why under the field."""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label, Static

from ...core.safe_text import one_line
from ...core.steer.edits import SteerError
from .base import AppModal

_HINT = "Enter to save, Escape to leave it as it is"


class LinePrompt(AppModal[tuple[bool, str] | None]):
    """Dismisses with ``(True, text)`` once ``check(text)`` passes (its result
    is the text kept), or None when left; the answer
    :class:`~qflow_tui.ui.screens.steer_edit.SteerEditScreen` gives too."""

    BINDINGS = [Binding("escape", "leave", "Leave")]

    def __init__(self, title: str, value: str, check: Callable[[str], str]) -> None:
        super().__init__()
        self.title_text = title
        self.value = value
        self.check = check

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog path-prompt"):
            yield Label(self.title_text, classes="dialog-title", markup=False)
            yield Input(value=self.value, id="line-prompt-input")
            yield Static(_HINT, id="line-prompt-hint", classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _take(self, event: Input.Submitted) -> None:
        try:
            kept = self.check(event.value)
        except SteerError as exc:
            self.query_one("#line-prompt-hint", Static).update(f"✗ {one_line(str(exc), 200)}")
            return
        self.dismiss((True, kept))

    def action_leave(self) -> None:
        self.dismiss(None)
