"""The settings screen (F5, or Settings in the command palette): what a user
sets once and expects the app to keep, saved in the config file the app
already reads: the default model and workflow and the theme (its ``[run]``
settings), and the app's own preferences (its ``[app]`` table: step mode, the
welcome dialog, the bench form's cost cap). Ctrl+S saves; a bad value is one
line under the form, on the field to correct, and nothing is written."""

from __future__ import annotations

import math
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Label, Select, Static

from ...core.app_prefs import AppPrefs
from ...core.config import ConfigError, RunConfig
from ...core.llm import LLMError, split_model_name
from ...core.safe_text import clean, one_line
from ...core.workflows import WORKFLOWS
from ...core.workflows.values import validate
from ..access import mark_invalid
from ..widgets.tick_box import TickBox
from .base import AppModal

#: The line under the form while nothing is wrong.
_HINT = "ctrl+s saves to the config file · Escape leaves (nothing saved)"


@dataclass(frozen=True)
class Settings:
    """What the form holds, checked: what the app saves and applies."""

    model: str
    workflow: str
    theme: str
    prefs: AppPrefs


class SettingsError(Exception):
    """A value in the form is wrong; the message says which and what to give."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


class SettingsScreen(AppModal[Settings | None]):
    """Ask for the settings; dismiss with them checked (the app saves and applies
    them), or None."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True, tooltip="Save the settings to the config file"),
        Binding("escape", "cancel", "Cancel", tooltip="Leave; nothing is saved"),
    ]

    DEFAULT_CSS = """
    SettingsScreen { align: center middle; }
    SettingsScreen .dialog-title { margin-bottom: 0; }
    SettingsScreen .field-label { margin-top: 1; }
    SettingsScreen .settings-row { height: auto; }
    SettingsScreen .settings-row > Vertical { width: 1fr; height: auto; margin-right: 1; }
    SettingsScreen #settings-where { color: $text-muted; height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    SettingsScreen TickBox { margin-top: 1; }
    """

    def __init__(self, config: RunConfig, prefs: AppPrefs, themes: list[str], where: str) -> None:
        super().__init__()
        self.config = config
        self.prefs = prefs
        self.themes = themes
        self.where = where
        """The config file, named on the form."""

    def compose(self) -> ComposeResult:
        names = list(WORKFLOWS)
        with Vertical(classes="dialog", id="settings"):
            yield Label("Settings", classes="dialog-title")
            yield Static(one_line(f"Kept in {self.where}"), id="settings-where", markup=False)
            yield Label("Default model (provider/model)", classes="field-label")
            yield Input(self.config.model, id="settings-model", compact=True, placeholder="provider/model")
            with Horizontal(classes="settings-row"):
                with Vertical():
                    yield Label("Workflow", classes="field-label")
                    yield Select(
                        [(n, n) for n in names],
                        value=self.config.workflow if self.config.workflow in names else names[0],
                        id="settings-workflow",
                        allow_blank=False,
                        compact=True,
                    )
                with Vertical():
                    yield Label("Theme", classes="field-label")
                    yield Select(
                        [(t, t) for t in self.themes],
                        value=self.config.theme if self.config.theme in self.themes else self.themes[0],
                        id="settings-theme",
                        allow_blank=False,
                        compact=True,
                    )
            yield Label("Bench cost cap (USD; the bench form's Max cost)", classes="field-label")
            cap = self.prefs.bench_max_cost
            yield Input("" if cap is None else f"{cap:g}", id="settings-max-cost", compact=True, placeholder="no cap")
            yield TickBox(
                "Step mode: runs pause before every step", self.prefs.step_mode, id="settings-step", compact=True
            )
            yield TickBox(
                "Welcome dialog when the model has no key", self.prefs.welcome, id="settings-welcome", compact=True
            )
            yield Static(_HINT, id="settings-error", classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one("#settings-model", Input).focus()

    def read_form(self) -> Settings:
        """The form's values, checked. Raises SettingsError (one line)."""
        model = self.query_one("#settings-model", Input).value.strip()
        if not model:
            raise SettingsError("Model: give one, e.g. anthropic/claude-sonnet-5-5 or openai/gpt-4.1", "settings-model")
        workflow = str(self.query_one("#settings-workflow", Select).value)
        try:
            split_model_name(model)
            validate(self.config.replace(model=model, workflow=workflow))
        except (ConfigError, LLMError) as exc:
            raise SettingsError(f"Model: {one_line(str(exc), 200)}", "settings-model") from None
        raw = self.query_one("#settings-max-cost", Input).value.strip().lstrip("$")
        cap: float | None = None
        if raw:
            try:
                cap = float(raw)
            except ValueError:
                raise SettingsError(
                    f"Bench cost cap: US dollars, e.g. 5 or 0.50, not {one_line(raw, 40)!r} (empty: no cap)",
                    "settings-max-cost",
                ) from None
            if not (math.isfinite(cap) and cap > 0):
                raise SettingsError("Bench cost cap: above 0 US dollars (empty: no cap)", "settings-max-cost")
        prefs = AppPrefs(
            welcome=self.query_one("#settings-welcome", TickBox).value,
            step_mode=self.query_one("#settings-step", TickBox).value,
            bench_max_cost=cap,
        )
        return Settings(model, workflow, str(self.query_one("#settings-theme", Select).value), prefs)

    def show_error(self, message: str, field: str | None = None) -> None:
        hint = self.query_one("#settings-error", Static)
        hint.update(clean(message) if message else _HINT)
        hint.set_class(bool(message), "-error")
        mark_invalid(self, field)

    def action_save(self) -> None:
        try:
            settings = self.read_form()
        except SettingsError as exc:
            self.show_error(f"✗ {exc}", exc.field)
            return
        self.dismiss(settings)

    def action_cancel(self) -> None:
        self.dismiss(None)


def changed_run_settings(settings: Settings, config: RunConfig) -> dict[str, str]:
    """The ``[run]`` settings the form changed (only those are written)."""
    now = {"model": settings.model, "workflow": settings.workflow, "theme": settings.theme}
    return {k: v for k, v in now.items() if getattr(config, k) != v}
