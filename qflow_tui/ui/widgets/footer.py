"""The footer every qflow screen shows: Textual's compact footer, without the
palette hint below 100 columns, where it would sit over the last key's label
(the stray letter of ``▏^p paletteG``)."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
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

    def compose(self) -> ComposeResult:
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
