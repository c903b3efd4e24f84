"""One dialog for every "save as" in the app (the program, a session's export):
it asks for a path with a default, writes through the caller's writer, never
overwrites a file without asking, and says in one line why a path cannot be
written, keeping what was typed so nothing is lost."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label, Static

from ...core.safe_text import one_line
from .base import AppModal
from .confirm import Confirm

#: The hint under the field while nothing is wrong.
_HINT = "Enter to save, Escape to cancel"


class WriteRefused(Exception):
    """The writer will not write there; the message is one line saying why."""


Writer = Callable[[Path], Path]
"""Writes the thing to the path it is given (a file path, never a folder) and
returns the path written; raises :class:`WriteRefused` or :class:`OSError`."""


class PathPrompt(AppModal[Path | None]):
    """Ask where to write, then write there; dismisses with the absolute path
    written, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, default: Path | str, write: Writer, *, name_in_folder: str | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.default = str(default)
        self.write = write
        self.name_in_folder = name_in_folder
        """The file name used when the path given is a folder (None: a folder is refused)."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog path-prompt"):
            yield Label(self.title_text, classes="dialog-title")
            yield Input(value=self.default, id="path-prompt-input")
            yield Static(_HINT, id="path-prompt-hint", classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @property
    def hint(self) -> str:
        """What the line under the field says now."""
        return str(self.query_one("#path-prompt-hint", Static).render())

    def show_error(self, message: str) -> None:
        hint = self.query_one("#path-prompt-hint", Static)
        hint.update(f"✗ {one_line(message, 300)}" if message else _HINT)
        hint.set_class(bool(message), "-error")

    def target(self, raw: str) -> Path:
        """The file the text names (a folder's file when a folder is named).
        Raises :class:`WriteRefused`."""
        raw = raw.strip()
        if not raw:
            raise WriteRefused("give a file name")
        path = Path(raw).expanduser()
        if path.is_dir():
            if self.name_in_folder is None:
                raise WriteRefused(f"{path} is a folder: give a file name")
            path = path / self.name_in_folder
            if path.is_dir():
                raise WriteRefused(f"{path} is a folder: give a file name")
        return path

    @on(Input.Submitted, "#path-prompt-input")
    def _submitted(self, event: Input.Submitted) -> None:
        try:
            path = self.target(event.value)
            exists = path.exists()
        except WriteRefused as exc:
            self.show_error(str(exc))
            return
        except OSError as exc:  # a folder on the way that may not be looked into
            self.show_error(f"cannot write {event.value.strip()}: {exc.strerror or exc}")
            return
        except ValueError as exc:  # a character no file name may hold (NUL)
            self.show_error(f"{event.value.strip()!r} is not a usable path: {exc}")
            return
        if exists:
            self._ask_to_overwrite(path)
            return
        self._write(path)

    def _ask_to_overwrite(self, path: Path) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                self._write(path)
            else:  # the path stays in the field, to change or to confirm again
                self.show_error(f"{path.name} exists and was kept: change the name, or Enter to be asked again")
                self.query_one(Input).focus()

        self.app.push_screen(
            Confirm(
                f"Overwrite {one_line(path.name, 60)}?", f"{path}\nexists; its content is replaced.", yes="Overwrite"
            ),
            answered,
        )

    def _write(self, path: Path) -> None:
        try:
            written = self.write(path)
        except WriteRefused as exc:
            self.show_error(str(exc))
            return
        except OSError as exc:
            self.show_error(f"cannot write {path}: {exc.strerror or exc}")
            return
        except ValueError as exc:
            self.show_error(f"{str(path)!r} is not a usable path: {exc}")
            return
        self.dismiss(written.resolve())

    def action_cancel(self) -> None:
        self.dismiss(None)


def write_text_file(text: str) -> Writer:
    """A writer of ``text`` (ending in a newline): the folders above are made, and
    the file is replaced whole (a half-written file never takes an old one's place)."""

    def write(path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(path.name + ".part")
        try:
            part.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
            os.replace(part, path)
        finally:
            part.unlink(missing_ok=True)
        return path

    return write
