"""The footer every qflow screen shows: Textual's compact footer, fitted to the
width it has. It shows whole keys only: where the screen's keys do not all fit,
it shows those that do and then ``…``, the command palette's key (the palette
lists every action). The palette hint (``▏^p palette``) shows only where it fits
after the keys, so it never sits over a key's label (the stray letter of
``▏^p paletteG``, or the keys it covered at 100-140 columns)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

#: Textual's footer key (not exported; should it move, keys are told they are
#: compact after mounting, as Textual does it, only slower, and every key shows).
try:
    from textual.widgets._footer import FooterKey
except ImportError:  # pragma: no cover - another Textual
    FooterKey = None  # type: ignore[assignment,misc]

#: What stands for the keys left out: the palette's key, drawn as one cell.
MORE = "…"
MORE_TOOLTIP = "More keys: ? lists every key of this screen; the command palette (Ctrl+P) every action"


def key_width(key_display: str, description: str) -> int:
    """Cells a compact footer key takes, its right margin included (Textual's
    ``FooterKey.-compact``: the key, one space, the description; margin 1)."""
    return cell_len(key_display) + (1 + cell_len(description) if description else 0) + 1


def hint_width(key_display: str, description: str) -> int:
    """Cells the palette hint takes: its left border, the key, a space, the
    words, and the footer's last column, which Textual leaves blank after it."""
    return 1 + cell_len(key_display) + 1 + cell_len(description) + 1


def fit(widths: Sequence[int], hint: int, width: int) -> tuple[int, bool]:
    """How many keys of ``widths`` (in order) the footer shows within ``width``
    cells, and whether the palette hint (``hint`` cells, 0: none) shows too.
    Every key, then the hint if it fits after them; else as many whole keys as
    fit before the one-cell ``…`` (and its margin), and no hint."""
    need = sum(widths)
    if need <= width:
        return len(widths), bool(hint) and need + hint <= width
    room = width - key_width(MORE, "")
    shown = 0
    for w in widths:
        if w > room:
            break
        room -= w
        shown += 1
    return shown, False


class AppFooter(Footer):
    def __init__(self, **kwargs: object) -> None:
        super().__init__(compact=True, **kwargs)  # type: ignore[arg-type]
        #: What the keys on show were built from (see `_offer`).
        self._built: tuple[Any, ...] | None = None

    def _width(self) -> int:
        # Before its first layout the footer has no size; it spans the screen.
        return self.size.width or self.app.size.width

    def _offer(self) -> tuple[Any, ...]:
        """Everything the footer's keys are drawn from: the bindings it shows
        (key, label, action, enabled, tooltip, group), one per action as
        Textual's footer shows them, and how many of them fit with or without
        the palette hint."""
        shown = tuple(
            (binding.key, binding.key_display, binding.description, binding.action, enabled, tooltip, binding.group)
            for (_node, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show or binding.key == self.app.COMMAND_PALETTE_BINDING
        )
        widths: dict[str, int] = {}
        for _node, binding, _enabled, _tooltip in self.screen.active_bindings.values():
            if binding.show and binding.action not in widths:
                widths[binding.action] = key_width(self.app.get_key_display(binding), binding.description)
        palette = self._palette_binding()
        hint = hint_width(self.app.get_key_display(palette), palette.description) if palette is not None else 0
        return shown, fit(list(widths.values()), hint, self._width())

    def _palette_binding(self) -> Any:
        if not self.app.ENABLE_COMMAND_PALETTE:
            return None
        found = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        return found[1] if found is not None else None

    def bindings_changed(self, screen: Screen[Any]) -> None:
        # Textual rebuilds the footer whenever any binding may have changed: a
        # focus move, a screen resume, a check_action refresh. Most of those
        # leave the keys on offer as they were; rebuilding then mounts and styles
        # every key again for the same picture.
        self._bindings_ready = True
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self.call_after_refresh(self._rebuild_if_changed)

    async def _rebuild_if_changed(self) -> None:
        if self.is_attached and self._offer() != self._built:
            await self.recompose()

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        self._built = self._offer()
        keys, with_hint = self._built[1]
        yield from self._fitted(super().compose(), keys, with_hint)

    def _fitted(self, widgets: Iterable[Any], keys: int, with_hint: bool) -> ComposeResult:
        # Each key is told it is compact after it mounts, which restyles that key
        # on its own, and the footer is rebuilt whenever the keys on offer change
        # (some forty times in a run). A key that already has the class is not
        # restyled: the look is the same, the rebuild costs half.
        count = 0
        for widget in widgets:
            if FooterKey is None or not isinstance(widget, FooterKey):
                yield widget
                continue
            widget.set_class(True, "-compact", update=False)
            if widget.has_class("-command-palette"):
                if with_hint:
                    yield widget
                    continue
                if count > keys:  # keys were left out: the palette's key stands for them
                    more = FooterKey(widget.key, MORE, "", widget.action, tooltip=MORE_TOOLTIP)
                    more.set_class(True, "-compact", update=False)
                    yield more
                continue
            count += 1
            if count <= keys:
                yield widget

    def on_resize(self, event: events.Resize) -> None:
        if self._built is not None and self._offer() != self._built:
            self.call_after_refresh(self._rebuild_if_changed)
