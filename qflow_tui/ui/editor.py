"""Text handed to the user's own editor (``$VISUAL`` or ``$EDITOR``), as
lazygit's ``e`` does: the app suspends, the editor runs on a temporary file in
the terminal, and the app takes the file back when the editor exits. A file
given read-only is written mode 0444 and its changes are never taken."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from textual.app import App, SuspendNotSupported

#: What to say when no editor is named.
NO_EDITOR = "No editor set: export EDITOR (e.g. EDITOR=nano) before starting qflow, then press E again."


class EditorError(Exception):
    """The editor could not be run, or failed: the message says which, in one line."""


def editor_command(env: Mapping[str, str] = os.environ) -> list[str] | None:
    """The user's editor as a command line (``$VISUAL``, else ``$EDITOR``; ``code -w``
    is two words), or None when neither names one."""
    for name in ("VISUAL", "EDITOR"):
        value = env.get(name, "").strip()
        if value:
            try:
                words = shlex.split(value)
            except ValueError:
                words = value.split()
            if words:
                return words
    return None


def edit_text(app: App[object], command: list[str], text: str, name: str, *, read_only: bool = False) -> str:
    """Run ``command FILE`` on a temporary ``name`` holding ``text``, with the app
    suspended; the file's text once the editor exits. Raises EditorError."""
    with tempfile.TemporaryDirectory(prefix="qflow-edit-") as folder:
        path = Path(folder) / name
        path.write_text(text, encoding="utf-8")
        if read_only:
            path.chmod(0o444)
        try:
            with app.suspend():
                done = subprocess.run([*command, str(path)], check=False)
        except SuspendNotSupported:
            raise EditorError("this terminal cannot be handed to an editor (no suspend here)") from None
        except OSError as exc:
            raise EditorError(f"cannot run the editor {command[0]!r}: {exc.strerror or exc}") from None
        if done.returncode != 0:
            raise EditorError(f"the editor {command[0]!r} exited with status {done.returncode}: nothing taken")
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise EditorError(f"the edited file cannot be read back ({type(exc).__name__})") from None
