"""What every screen of the app shares: it is styled once when it arrives, not three times.

Textual styles each widget as it mounts. Then, when a screen is first shown, it
styles the whole screen again (the ``ScreenResume`` event), and once more when
the first ``Resize`` gives the screen its width and height classes (``-narrow``
or ``-wide``, ``-short`` or ``-tall``: the app's breakpoints). On the compose
screen (about 110 widgets) those two passes were a third of its start-up, and
on the run screen they were most of the pause a user sees when a run starts
(``bench/ui_streaming.py`` measures both).

Here the breakpoint classes are set before the children mount, so the first
``Resize`` changes nothing, and the first arrival does not restyle what
mounting has just styled. A later arrival (back from a screen above) restyles
as Textual does: the theme may have changed meanwhile.
"""

from __future__ import annotations

from typing import TypeVar

from textual import events
from textual.screen import ModalScreen, Screen
from textual.widget import Widget

_T = TypeVar("_T")


def breakpoint_classes(
    size: tuple[int, int], horizontal: list[tuple[int, str]], vertical: list[tuple[int, str]]
) -> dict[str, bool]:
    """The classes Textual's ``Screen`` gives itself at ``size``: for each axis the
    class of the highest breakpoint at or below that dimension."""
    classes = {name: False for _, name in horizontal + vertical}
    for dimension, points in zip(size, (horizontal, vertical), strict=True):
        for at, name in sorted(points, reverse=True):
            if dimension >= at:
                classes[name] = True
                break
    return classes


class _StyledOnArrival:
    """The mixin behind :class:`AppScreen` and :class:`AppModal`."""

    _arrived = False

    async def _on_compose(self, event: events.Compose) -> None:
        # Runs before Textual's own handler (Textual calls each class's handler,
        # most derived first), that is, before any child exists.
        screen = self._as_screen()
        app = screen.app
        horizontal = (
            app.HORIZONTAL_BREAKPOINTS if screen.HORIZONTAL_BREAKPOINTS is None else screen.HORIZONTAL_BREAKPOINTS
        ) or []
        vertical = (
            app.VERTICAL_BREAKPOINTS if screen.VERTICAL_BREAKPOINTS is None else screen.VERTICAL_BREAKPOINTS
        ) or []
        if horizontal or vertical:
            screen.update_classes(
                breakpoint_classes((app.size.width, app.size.height), horizontal, vertical), animate=False
            )

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        # Also runs before Textual's handler, which reads ``refresh_styles``.
        if not self._arrived:
            self._arrived = True
            event.refresh_styles = False

    def _on_descendant_blur(self, event: events.DescendantBlur) -> None:
        # Textual drops the focus when the focused widget is hidden (a resize to
        # 80x24 hides the run's timeline band) and no sibling can take it: every
        # key of the view around it then did nothing until a Tab.
        screen = self._as_screen()
        if screen.focused is None and not displayed(event.widget):
            screen.call_after_refresh(self._focus_lost)

    def _focus_lost(self) -> None:
        screen = self._as_screen()
        if screen.focused is None and screen.is_attached:
            self.focus_fallback()

    def focus_fallback(self) -> None:
        """Focus something shown after the focused widget was hidden: the first
        widget that takes the focus, unless a screen knows better."""
        self._as_screen().focus_next()

    def _as_screen(self) -> Screen[object]:
        assert isinstance(self, Screen)
        return self


def displayed(widget: Widget) -> bool:
    """Whether ``widget`` and every container up to its screen are displayed."""
    return all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))


class AppScreen(_StyledOnArrival, Screen[_T]):
    """A full screen of the app."""


class AppModal(_StyledOnArrival, ModalScreen[_T]):
    """A dialog of the app."""
