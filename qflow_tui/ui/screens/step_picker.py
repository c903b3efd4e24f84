"""The step picker (``:`` in a replay): choose a workflow step to jump to."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from ...core.safe_text import markup_safe, one_line
from ..replay_model import ReplayStep
from ..widgets.lists import ListOptions
from ..widgets.search_line import SearchLine, matches, search_key
from .base import AppModal


class StepPicker(AppModal[int | None]):
    """Choose a step to jump to (``:``); ``/`` narrows the list."""

    BINDINGS = [
        search_key("Show only the steps whose number or name hold the words typed"),
        Binding("escape", "cancel", "Cancel", tooltip="Stay where the replay is (clears the search first)"),
    ]

    def __init__(self, steps: list[ReplayStep], current: int) -> None:
        super().__init__()
        self.steps = steps
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Jump to a workflow step", classes="dialog-title")
            yield SearchLine("a step's number or name", id="step-search")
            yield ListOptions(id="step-list")
            yield Static("Enter to jump, / to search, Escape to stay", classes="dialog-hint")

    def on_mount(self) -> None:
        self._show("")
        self.query_one(OptionList).focus()

    def _show(self, search: str) -> None:
        """List the steps that hold every word of ``search``, the current one
        highlighted when it is among them."""
        options = self.query_one(OptionList)
        shown = [s for s in self.steps if matches(f"{s.number} {s.title}", search)]
        options.clear_options()
        options.add_options(
            [Option(markup_safe(f"{s.number:>2}  {one_line(s.title)}"), id=str(s.number)) for s in shown]
        )
        if not shown:
            options.add_option(Option(markup_safe(f"No step matches {search!r}."), disabled=True))
            return
        numbers = [s.number for s in shown]
        options.highlighted = numbers.index(self.current) if self.current in numbers else 0

    @on(Input.Changed, "#step-search")
    def _search_changed(self, event: Input.Changed) -> None:
        self._show(event.value.strip())

    @on(Input.Submitted, "#step-search")
    def _search_done(self) -> None:
        self.query_one(SearchLine).close(self.query_one(OptionList), clear=False)

    def action_search(self) -> None:
        self.query_one(SearchLine).open()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.dismiss(int(event.option.id))

    def action_cancel(self) -> None:
        if self.query_one(SearchLine).close(self.query_one(OptionList), clear=True):
            self._show("")
            return
        self.dismiss(None)
