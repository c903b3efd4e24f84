"""The footer every qflow screen shows: Textual's compact footer, without the
palette hint below 100 columns, where it would sit over the last key's label
(the stray letter of ``▏^p paletteG``)."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

#: Textual's footer key (not exported; should it move, keys are told they are
#: compact after mounting, as Textual does it, only slower).
_KEYS: tuple[type, ...]
try:
    from textual.widgets._footer import FooterKey

    _KEYS = (FooterKey,)
except ImportError:  # pragma: no cover - another Textual
    _KEYS = ()

#: Narrower than this, the palette hint is left out (Ctrl+P still opens it).
PALETTE_HINT_WIDTH = 100


class AppFooter(Footer):
    def __init__(self, **kwargs: object) -> None:
        super().__init__(compact=True, **kwargs)  # type: ignore[arg-type]
        #: What the keys on show were built from (see `_offer`).
        self._built: tuple[Any, ...] | None = None

    def _offer(self) -> tuple[Any, ...]:
        """Everything the footer's keys are drawn from: the bindings it shows
        (key, label, action, enabled, tooltip, group) and the palette hint (the
        footer is always compact)."""
        shown = tuple(
            (binding.key, binding.key_display, binding.description, binding.action, enabled, tooltip, binding.group)
            for (_node, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show or binding.key == self.app.COMMAND_PALETTE_BINDING
        )
        return shown, self.show_command_palette

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
        if self._bindings_ready:
            self._built = self._offer()
        # Each key is told it is compact after it mounts, which restyles that key
        # on its own, and the footer is rebuilt whenever the keys on offer change
        # (some forty times in a run). A key that already has the class is not
        # restyled: the look is the same, the rebuild costs half.
        for widget in super().compose():
            if isinstance(widget, _KEYS):
                widget.set_class(True, "-compact", update=False)
            yield widget

    def on_resize(self, event: events.Resize) -> None:
        self.show_command_palette = event.size.width >= PALETTE_HINT_WIDTH
