"""The footer every qflow screen shows: Textual's compact footer, without the
palette hint below 100 columns, where it would sit over the last key's label
(the stray letter of ``▏^p paletteG``)."""

from __future__ import annotations

from textual import events
from textual.widgets import Footer

#: Narrower than this, the palette hint is left out (Ctrl+P still opens it).
PALETTE_HINT_WIDTH = 100


class AppFooter(Footer):
    def __init__(self, **kwargs: object) -> None:
        super().__init__(compact=True, **kwargs)  # type: ignore[arg-type]

    def on_resize(self, event: events.Resize) -> None:
        self.show_command_palette = event.size.width >= PALETTE_HINT_WIDTH
