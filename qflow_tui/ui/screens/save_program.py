"""A small dialog that asks where to save the program, then writes it."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static


class SaveProgramScreen(ModalScreen[Path | None]):
    """Dismisses with the path written, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, program: str, default: str = "solution.py") -> None:
        super().__init__()
        self.program = program
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(id="save-dialog", classes="dialog"):
            yield Label("Save the program to a file", classes="dialog-title")
            yield Input(value=self.default, id="save-path")
            yield Static("Enter to save, Escape to cancel", id="save-error", classes="dialog-hint", markup=False)

    @on(Input.Submitted, "#save-path")
    def _save(self, event: Input.Submitted) -> None:
        raw = event.value.strip()
        error = self.query_one("#save-error", Static)
        if not raw:
            error.update("Give a file name.")
            error.add_class("-error")
            return
        path = Path(raw).expanduser()
        try:
            if path.is_dir():
                raise IsADirectoryError(f"{path} is a folder")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(self.program if self.program.endswith("\n") else self.program + "\n", encoding="utf-8")
        except OSError as exc:
            error.update(f"Cannot write {path}: {exc.strerror or exc}")
            error.add_class("-error")
            return
        self.dismiss(path.resolve())

    def action_cancel(self) -> None:
        self.dismiss(None)
