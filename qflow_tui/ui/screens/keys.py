"""Every key of the screen beneath, grouped, with what each does (``?`` or F1).

The footer shows the keys a screen uses most; this shows them all, the ones the
footer has no room for and those it never shows (the session browser's export
and resume keys, a table's j/k), read from the live bindings so it cannot drift
from what the keys do."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Label, Static

from ...core.safe_text import one_line
from ..widgets.lists import ListScroll
from ..widgets.search_line import SearchLine, matches, search_key
from .base import AppModal

_Result = TypeVar("_Result")
"""What a screen hands back when dismissed; nothing here reads it."""


@dataclass(frozen=True)
class KeyRow:
    """One key as the help shows it."""

    keys: str
    """How the key is written (``ctrl+r`` as ``^r``, several keys joined by ``/``)."""
    what: str
    """What it does: the binding's description and its tooltip."""
    enabled: bool


def own_binding(node: object, binding: Binding) -> bool:
    """Whether ``binding`` was declared by one of qflow's classes: Textual's own
    (scrolling, focus, a table's cursor) are not what a person looks for."""
    for cls in type(node).__mro__:
        if not cls.__module__.startswith("qflow_tui."):
            continue
        for declared in cls.__dict__.get("BINDINGS", ()):
            if isinstance(declared, Binding) and declared.action == binding.action:
                return True
    return False


def _declared(node: object) -> list[Binding]:
    """The bindings qflow's own classes declare on ``node``, most derived first."""
    out: list[Binding] = []
    for cls in type(node).__mro__:
        if cls.__module__.startswith("qflow_tui."):
            out += [b for b in cls.__dict__.get("BINDINGS", ()) if isinstance(b, Binding)]
    return out


def keys_of(screen: Screen[_Result]) -> list[tuple[str, list[KeyRow]]]:
    """The keys ``screen`` answers to now, in groups: where the cursor is, the
    screen itself, and the app (everywhere). Read from the classes' own
    bindings, not from the active keys, so a key a widget shadows (a table's
    Enter over the screen's) is still listed; Textual's own keys (scrolling,
    focus) are left out. A key the screen refuses just now says so."""
    app = screen.app
    chain = list(screen.focused.ancestors_with_self) if screen.focused is not None else [screen, app]
    if app not in chain:
        chain.append(app)
    groups: dict[str, list[KeyRow]] = {}
    for node in chain:
        group = "Everywhere" if node is app else "This screen" if node is screen else "Where the cursor is"
        rows = groups.setdefault(group, [])
        said = getattr(node, "help_keys", None)
        own = said() if callable(said) else []
        for binding in _declared(node):
            if not binding.description or binding.key in {keys for keys, _what in own}:
                continue
            what = binding.description + (f": {binding.tooltip}" if binding.tooltip else "")
            if any(r.what == what for rows_ in groups.values() for r in rows_):
                continue  # declared again by a subclass, or on a nearer node
            keys = ", ".join(dict.fromkeys(app.get_key_display(Binding(k.strip(), "")) for k in binding.key.split(",")))
            name, _, _ = binding.action.partition("(")
            check = getattr(node, "check_action", None)
            enabled = check(name, ()) is not False if check is not None else True
            rows.append(KeyRow(keys, what, enabled))
        # Keys whose meaning depends on what the screen shows (the run view's
        # digits number the tabs its run has): the node says them itself.
        for keys, what in own:
            if not any(r.keys == keys and r.what == what for rows_ in groups.values() for r in rows_):
                rows.append(KeyRow(keys, what, True))
    order = ["Where the cursor is", "This screen", "Everywhere"]
    return [(g, groups[g]) for g in order if groups.get(g)]


class KeyLine(Horizontal):
    """One key's line: the key and what it does."""

    def __init__(self, said: str) -> None:
        super().__init__(classes="keys-row")
        self.said = said
        """The key and its words, as the search reads them."""


class KeysScreen(AppModal[None]):
    """The keys of the screen beneath; Escape, ``?`` or ``q`` closes it."""

    DEFAULT_CSS = """
    KeysScreen { align: center middle; }
    KeysScreen > VerticalScroll {
        width: 90%; max-width: 100; height: auto; max-height: 90%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    KeysScreen .dialog-title { text-wrap: nowrap; text-overflow: ellipsis; }
    KeysScreen .keys-group { text-style: bold; color: $primary; margin-top: 1; }
    KeysScreen .keys-hint { color: $text-muted; margin-top: 1; }
    KeysScreen .keys-row { height: auto; }
    KeysScreen .keys-key { width: 12; text-align: right; padding-right: 2; }
    KeysScreen .keys-what { width: 1fr; }
    """

    BINDINGS = [
        Binding("question_mark,f1,q", "dismiss_keys", "Close", show=False),
        Binding("escape", "escape", "Close", show=False, tooltip="Close this (clears the search first)"),
        search_key("Show only the keys whose key or words hold the words typed"),
    ]

    def __init__(self, beneath: Screen[_Result]) -> None:
        super().__init__()
        self.beneath = beneath

    def compose(self) -> ComposeResult:
        with ListScroll():
            where = self.beneath.sub_title or "this screen"
            yield Label(one_line(f"Keys: {where}"), classes="dialog-title")
            yield SearchLine("a key or what it does", id="keys-search")
            for group, rows in keys_of(self.beneath):
                yield Label(group, classes="keys-group")
                for row in rows:
                    with KeyLine(f"{row.keys} {row.what}"):
                        yield Static(Text(row.keys, style="bold" if row.enabled else "dim"), classes="keys-key")
                        what = Text(one_line(row.what), style="" if row.enabled else "dim")
                        if not row.enabled:
                            what.append("  (not now)", style="dim italic")
                        yield Static(what, classes="keys-what")
            yield Static("No key matches.", id="keys-none", classes="keys-hint")
            yield Static("/ searches; Escape, ?, F1 or q closes this.", classes="keys-hint")

    def on_mount(self) -> None:
        self._show("")

    def _show(self, search: str) -> None:
        """Show the keys that hold every word of ``search``, under their groups."""
        group: Widget | None = None
        found = 0
        for widget in self.query_one(ListScroll).children:
            if widget.has_class("keys-group"):
                group = widget
                group.display = False
            elif widget.has_class("keys-row"):
                widget.display = isinstance(widget, KeyLine) and matches(widget.said, search)
                if widget.display and group is not None:
                    group.display = True
                found += widget.display
        self.query_one("#keys-none").display = not found

    @on(Input.Changed, "#keys-search")
    def _search_changed(self, event: Input.Changed) -> None:
        self._show(event.value.strip())

    @on(Input.Submitted, "#keys-search")
    def _search_done(self) -> None:
        self.query_one(SearchLine).close(self.query_one(ListScroll), clear=False)

    def action_search(self) -> None:
        self.query_one(SearchLine).open()

    def action_escape(self) -> None:
        if self.query_one(SearchLine).close(self.query_one(ListScroll), clear=True):
            self._show("")
            return
        self.dismiss(None)

    def action_dismiss_keys(self) -> None:
        self.dismiss(None)
