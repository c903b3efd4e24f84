"""The search line ``/`` opens over a table or a list (the bench's problems, the
compare tables, the step picker, the keys): rows are shown while they hold
every word typed; Enter goes back to the rows found, Escape clears the search
before it does anything else. One piece, so the keys and the words are the same
wherever there is a list."""

from __future__ import annotations

from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Input


def search_key(tooltip: str) -> Binding:
    """``/`` bound to a screen's ``search`` action; ``tooltip`` says what it shows."""
    return Binding("slash", "search", "Search", key_display="/", tooltip=tooltip)


def matches(text: str, search: str) -> bool:
    """Whether ``text`` holds every word of ``search`` (case does not matter);
    an empty search matches everything."""
    said = text.lower()
    return all(word in said for word in search.lower().split())


class SearchLine(Input):
    """A one-line search, hidden until :meth:`open`; its value is the search."""

    DEFAULT_CSS = """
    SearchLine { display: none; margin: 0 1; }
    SearchLine.-shown { display: block; }
    """

    def __init__(self, what: str, **kwargs: object) -> None:
        super().__init__(
            placeholder=f"search: {what} (Enter: to the rows found, Escape: clear)",
            compact=True,
            **kwargs,  # type: ignore[arg-type]
        )

    @property
    def shown(self) -> bool:
        return self.has_class("-shown")

    @property
    def search(self) -> str:
        """The words to look for ("" while the line is closed or empty)."""
        return self.value.strip() if self.shown else ""

    def open(self) -> None:
        """Show the line and put the cursor in it."""
        self.add_class("-shown")
        self.focus()

    def close(self, back_to: Widget, *, clear: bool) -> bool:
        """Leave the line for ``back_to`` (the rows), emptied and hidden if
        ``clear``; False when it was not open (Escape then does its own work)."""
        if not self.shown:
            return False
        if clear:
            self.value = ""
            self.remove_class("-shown")
        back_to.focus()
        return True
