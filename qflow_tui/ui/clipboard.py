"""Whether a copy reaches the system clipboard. The app copies with OSC 52, an
escape sequence the terminal must accept: many do, some drop it without a word
(macOS Terminal, GNU screen, the Linux console, tmux unless told to pass it on).
Where the environment says it cannot arrive, the app says so instead of
"copied", and points to a way that always works (saving to a file)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Mapping

#: Seconds the tmux server may take to say its clipboard setting.
TMUX_ASK_SECONDS = 1.0


def tmux_clipboard_setting() -> str | None:
    """tmux's ``set-clipboard`` option (``on``, ``external``, ``off``), or None
    when tmux cannot be asked."""
    tmux = shutil.which("tmux")
    if tmux is None:
        return None
    try:
        done = subprocess.run(
            [tmux, "show-options", "-gv", "set-clipboard"],
            capture_output=True,
            text=True,
            timeout=TMUX_ASK_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    value = done.stdout.strip()
    return value if done.returncode == 0 and value else None


def clipboard_blocked(env: Mapping[str, str], tmux_setting: Callable[[], str | None] | None = None) -> str:
    """Why an OSC 52 copy cannot reach the clipboard here, in a few words; ""
    when nothing says it cannot (most terminals take it). ``tmux_setting``
    asks tmux for its ``set-clipboard`` (:func:`tmux_clipboard_setting`)."""
    if env.get("TMUX"):
        setting = (tmux_setting or tmux_clipboard_setting)()
        if setting != "on":
            return "tmux passes a copy on only with `set -g set-clipboard on`"
    if env.get("STY"):
        return "GNU screen does not pass a copy on to the terminal"
    if env.get("TERM_PROGRAM") == "Apple_Terminal":
        return "macOS Terminal ignores a program's copy (OSC 52)"
    if env.get("TERM") == "linux":
        return "the Linux console has no clipboard"
    return ""
