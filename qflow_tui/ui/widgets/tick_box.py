"""A checkbox that reads the same in plain text as in colour: ``▐X▌`` ticked,
``▐ ▌`` not (Textual's shows a dimmed X for both, so a plain-text capture or a
colour-blind eye saw every option ticked)."""

from __future__ import annotations

from textual.widgets import Checkbox

UNTICKED = " "


class TickBox(Checkbox):
    """A :class:`~textual.widgets.Checkbox` whose box is empty when unchecked."""

    # Textual's class attribute, made to follow the value (the box is drawn from it).
    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]
        return Checkbox.BUTTON_INNER if self.value else UNTICKED
