"""The step picker (``g`` in a replay): choose a workflow step to jump to."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from ...core.safe_text import markup_safe, one_line
from ..replay_model import ReplayStep
from ..widgets.lists import ListOptions
from .base import AppModal


class StepPicker(AppModal[int | None]):
    """Choose a step to jump to (``g``)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, steps: list[ReplayStep], current: int) -> None:
        super().__init__()
        self.steps = steps
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Jump to a workflow step", classes="dialog-title")
            yield ListOptions(
                *(Option(markup_safe(f"{s.number:>2}  {one_line(s.title)}"), id=str(s.number)) for s in self.steps),
                id="step-list",
            )
            yield Static("Enter to jump, Escape to stay", classes="dialog-hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = min(self.current, len(self.steps) - 1)
        options.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(event.option.id or 0))

    def action_cancel(self) -> None:
        self.dismiss(None)
