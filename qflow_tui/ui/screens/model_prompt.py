"""Go again with another model (issue 57): after a run, ``m`` on the run
screen asks for a model name and runs the same problem, with the same settings,
on it. The name is checked (provider known, key set) before anything starts:
a wrong one is one line under the field."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label, Static

from ...core.config import ConfigError, RunConfig
from ...core.llm import LLMClient, LLMError
from ...core.llm.provider_keys import MissingKey
from ...core.safe_text import one_line
from .base import AppModal


class ModelPrompt(AppModal[tuple[RunConfig, LLMClient] | None]):
    """Ask for a model; dismiss with the run's config on it and its client (None: left)."""

    DEFAULT_CSS = """
    ModelPrompt { align: center middle; }
    #model-prompt { width: 76; max-width: 100%; height: auto; padding: 0 1;
                    border: thick $primary; background: $surface; }
    #model-prompt Label { width: 100%; }
    #model-prompt-error { color: $error; }
    #model-prompt-hint { color: $text-muted; }
    """

    BINDINGS = [Binding("escape", "leave", "Leave", priority=True)]

    def __init__(self, config: RunConfig, what: str) -> None:
        super().__init__()
        self.config = config
        self.what = what
        """The problem, in a few words (the title says what Enter will run)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="model-prompt"):
            yield Label(f"Run {self.what} again, with the same settings, on the model:", markup=False)
            yield Input(self.config.model, id="model-name", placeholder="provider/model")
            yield Static("", id="model-prompt-error", markup=False)
            yield Static("Enter: start the new run · Escape: stay here", id="model-prompt-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one("#model-name", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        from ...core.workflow_run import build_client

        name = event.value.strip()
        error = self.query_one("#model-prompt-error", Static)
        if not name:
            error.update("✗ type a model name, e.g. anthropic/claude-sonnet-4-5 or local/smollm2")
            return
        try:
            config = self.config.replace(model=name)
            client = build_client(config)
        except MissingKey as exc:
            error.update(f"✗ set {exc.variable} to use {exc.model} (or name another model)")
            return
        except (LLMError, ConfigError, ValueError) as exc:
            error.update(f"✗ {one_line(str(exc), 200)}")
            return
        self.dismiss((config, client))

    def action_leave(self) -> None:
        self.dismiss(None)
