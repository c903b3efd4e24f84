"""The words to find in an agent's pane (``/`` in the pane): a one-line prompt;
Enter finds the next line holding them all, the same words again the one after."""

from __future__ import annotations

from typing import TypeVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Input, Label

from ...core.safe_text import one_line
from ..widgets.agent_pane import AgentPane
from .base import AppModal

_Result = TypeVar("_Result")
"""What a screen hands back when dismissed; nothing here reads it."""


class PaneSearch(AppModal[str | None]):
    """Ask for the words to find; dismiss with them (None: left)."""

    DEFAULT_CSS = """
    PaneSearch { align: center bottom; }
    #pane-search { width: 100%; height: auto; padding: 0 1; background: $surface; border-top: hkey $primary; }
    """

    BINDINGS = [Binding("escape", "leave", "Leave", priority=True)]

    def __init__(self, agent: str, words: str) -> None:
        super().__init__()
        self.agent = agent
        self.words = words

    def compose(self) -> ComposeResult:
        with Vertical(id="pane-search"):
            yield Label(f"Find in {self.agent}'s output (Enter: next match · Escape: leave)", markup=False)
            yield Input(self.words, id="pane-search-words", placeholder="words to find", compact=True)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_leave(self) -> None:
        self.dismiss(None)


def search_pane(screen: Screen[_Result], pane: AgentPane) -> None:
    """Ask for words and find them in ``pane``; a miss is said in one line."""

    def chosen(words: str | None) -> None:
        if words is None or not words.strip():
            return
        if not pane.find(words):
            screen.notify(
                f"Not found in {pane.agent}'s output: {one_line(words, 60)}", severity="warning", markup=False
            )
        pane.focus()

    screen.app.push_screen(PaneSearch(pane.agent, pane.searched), chosen)
