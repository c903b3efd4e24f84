"""Colours for Rich renderables, taken from the active Textual theme.

Widgets that draw Rich tables and text (timeline, traces, tests) ask here for
their colours, so that every theme in ``themes/`` restyles them too.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import App
from textual.color import Color


@dataclass(frozen=True)
class Palette:
    success: str
    error: str
    warning: str
    accent: str
    primary: str
    muted: str
    foreground: str
    background: str
    syntax_theme: str
    editor_theme: str
    dark: bool

    def outcome(self, word: str | None) -> str:
        """The colour of a status or decision word."""
        if word in ("accept", "accepted", "pass", "kept", "done"):
            return self.success
        if word in ("reject", "rejected", "fail", "failed", "error", "timeout", "revert", "reverted"):
            return self.error
        if word in ("continue", "clarify", "skipped", "unchecked"):
            return self.warning
        if word in ("running", "checking", "streaming"):
            return self.accent
        return self.muted


def _blend(fg: str, bg: str, amount: float) -> str:
    try:
        return Color.parse(fg).blend(Color.parse(bg), amount).hex6
    except Exception:
        return "grey50"


def palette(app: App[object]) -> Palette:
    v = app.theme_variables
    theme = app.current_theme
    dark = theme.dark if theme is not None else True
    return Palette(
        success=v.get("success", "green"),
        error=v.get("error", "red"),
        warning=v.get("warning", "yellow"),
        accent=v.get("accent", "cyan"),
        primary=v.get("primary", "blue"),
        muted=_blend(v.get("foreground", "#e0e0e0"), v.get("background", "#121212"), 0.45),
        foreground=v.get("foreground", "white"),
        background=_blend(v.get("background", "#121212"), v.get("background", "#121212"), 0.0),
        syntax_theme=v.get("qf-syntax-theme", "monokai" if dark else "friendly"),
        editor_theme=v.get("qf-editor-theme", "vscode_dark" if dark else "github_light"),
        dark=dark,
    )
