"""A dialog with a text editor for one edit at a stopped run: a program (python,
syntax-checked before it is taken), a synthesized test, or the problem statement.

It dismisses with ``(taken, text)``: ``taken`` is False when the person left
without taking the edit, and ``text`` is what they wrote all the same, so the
run screen can offer it again next time (nothing a person wrote is lost)."""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Label, Static, TextArea

from ...core.safe_text import one_line
from ...core.steer.edits import SteerError
from ..palette import palette
from .base import AppModal

#: What the hint under the editor says until a check fails.
_HINT = "ctrl+s take the edit · ctrl+a select all · Escape leave it (kept as a draft)"


class SteerEditScreen(AppModal[tuple[bool, str]]):
    """Edit ``text``; ``check`` turns it into what is taken or raises SteerError (one line)."""

    BINDINGS = [
        Binding("ctrl+s", "take", "Take the edit", priority=True),
        # Priority: the editor's own Ctrl+A goes to the line's start (F7 selects all there).
        Binding("ctrl+a", "select_all", "Select all", priority=True, tooltip="Select the whole text (to replace it)"),
        # Priority: the code editor would otherwise take Escape to move the focus.
        Binding("escape", "leave", "Leave", priority=True, tooltip="Leave without taking the edit (kept as a draft)"),
    ]

    def __init__(
        self,
        title: str,
        text: str,
        check: Callable[[str], str],
        *,
        language: str | None = "python",
        placeholder: str = "",
    ) -> None:
        super().__init__()
        self.title_text = title
        self.text = text
        self.placeholder = placeholder
        """Shown while the editor is empty (an example: typing replaces it, not appends to it)."""
        self.check = check
        self.language = language
        self._checked = False
        """An error was said at ctrl+s: the text is checked again as it changes."""

    def compose(self) -> ComposeResult:
        with Vertical(id="steer-edit", classes="dialog"):
            yield Label(self.title_text, classes="dialog-title", markup=False)
            if self.language:
                yield TextArea.code_editor(
                    self.text, language=self.language, id="steer-editor", placeholder=self.placeholder
                )
            else:
                yield TextArea(
                    self.text, id="steer-editor", soft_wrap=True, tab_behavior="focus", placeholder=self.placeholder
                )
            yield Static(_HINT, id="steer-error", classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        editor = self.query_one("#steer-editor", TextArea)
        theme = palette(self.app).editor_theme
        if theme in editor.available_themes:
            editor.theme = theme
        editor.focus()

    def action_take(self) -> None:
        text = self.query_one("#steer-editor", TextArea).text
        try:
            taken = self.check(text)
        except SteerError as exc:
            error = self.query_one("#steer-error", Static)
            error.update(f"✗ {one_line(str(exc), 200)}")
            error.add_class("-error")
            self._checked = True
            return
        self.dismiss((True, taken))

    @on(TextArea.Changed, "#steer-editor")
    def _edited(self) -> None:
        """An error said at ctrl+s is about the text as it was: from then on the
        text is checked again as it changes, and the error goes once the edit
        would be taken."""
        if not self._checked:
            return
        error = self.query_one("#steer-error", Static)
        try:
            self.check(self.query_one("#steer-editor", TextArea).text)
        except SteerError as exc:
            error.update(f"✗ {one_line(str(exc), 200)}")
            error.add_class("-error")
            return
        error.update(_HINT)
        error.remove_class("-error")

    def action_select_all(self) -> None:
        self.query_one("#steer-editor", TextArea).select_all()

    def action_leave(self) -> None:
        self.dismiss((False, self.query_one("#steer-editor", TextArea).text))
