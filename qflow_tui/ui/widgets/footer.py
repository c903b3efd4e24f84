"""The footer every qflow screen shows: Textual's compact footer, fitted to the
width it has. It shows whole keys only: where the screen's keys and the command
palette's hint (``▏^p palette``) do not all fit, it shows the keys that do and
then ``…``, the palette's key (the palette lists every action, ``?`` every key).
The hint shows only where it fits after every key, so it never sits over a key's
label (the stray letter of ``▏^p paletteG``, or the keys it covered at 100-140
columns).

The fit is made in the footer's layout (:meth:`AppFooter.process_layout`), in
the same pass that gives the footer its new width: a resize never paints a key
cut at the edge while a rebuild waits its turn on a busy event loop."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Literal, TypeVar

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.geometry import Size
from textual.layout import WidgetPlacement
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer

if TYPE_CHECKING:
    from textual._arrange import DockArrangeResult

#: Textual's footer key (not exported; should it move, keys are told they are
#: compact after mounting, as Textual does it, only slower, and every key shows).
try:
    from textual.widgets._footer import FooterKey
except ImportError:  # pragma: no cover - another Textual
    FooterKey = None  # type: ignore[assignment,misc]

#: Whatever a screen hands back when dismissed (the footer only looks at its keys).
_Result = TypeVar("_Result")

#: What stands for the keys left out: the palette's key, drawn as one cell.
MORE = "…"
MORE_TOOLTIP = "More keys: ? lists every key of this screen; the command palette (Ctrl+P) every action"

#: What the end of the footer shows after the keys that fit: the palette hint,
#: the ``…`` that stands for what was left out, or nothing (no palette).
Tail = Literal["hint", "more", ""]


def key_width(key_display: str, description: str) -> int:
    """Cells a compact footer key takes, its right margin included (Textual's
    ``FooterKey.-compact``: the key, one space, the description; margin 1)."""
    return cell_len(key_display) + (1 + cell_len(description) if description else 0) + 1


def fit(widths: Sequence[int], hint: int, width: int) -> tuple[int, Tail]:
    """How many keys of ``widths`` (in order) the footer shows within ``width``
    cells, and what ends it: every key and the palette hint (``hint`` cells, 0:
    no palette) where both fit; else as many whole keys as fit before the
    one-cell ``…`` and its margin, which stands for the keys or the hint left
    out. Without a palette there is no ``…`` to open: the keys that fit."""
    need = sum(widths)
    if not hint:
        room, tail = width, ""
    elif need + hint <= width:
        return len(widths), "hint"
    else:
        room, tail = width - key_width(MORE, ""), "more"
    shown = 0
    for w in widths:
        if w > room:
            break
        room -= w
        shown += 1
    return shown, tail  # type: ignore[return-value]


class AppFooter(Footer):
    DEFAULT_CSS = """
    AppFooter FooterKey.-hint { border-left: vkey $foreground 20%; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(compact=True, **kwargs)  # type: ignore[arg-type]
        #: What the keys on show were built from (see `_offer`).
        self._built: tuple[object, ...] | None = None
        #: The width the last layout fitted the keys into.
        self._fit_width = 0
        #: What the last layout showed: how many keys, and what ended the line.
        self.fitted: tuple[int, Tail] = (0, "")

    def _offer(self) -> tuple[object, ...]:
        """Everything the footer's keys are drawn from: the bindings it shows
        (key, label, action, enabled, tooltip, group), one per action as
        Textual's footer shows them. The width is not in it: the layout fits
        the keys (see the module docstring)."""
        return tuple(
            (binding.key, binding.key_display, binding.description, binding.action, enabled, tooltip, binding.group)
            for (_node, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show or binding.key == self.app.COMMAND_PALETTE_BINDING
        )

    def bindings_changed(self, screen: Screen[_Result]) -> None:
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
        yield from self._every_key(super().compose())

    def _every_key(self, widgets: Iterable[Widget]) -> ComposeResult:
        """Every key, then ``…`` and the palette hint: the layout shows those that fit."""
        # Each key is told it is compact before it mounts: told after, it
        # restyles on its own, and the footer is rebuilt whenever the keys on
        # offer change (some forty times in a run).
        for widget in widgets:
            if FooterKey is None or not isinstance(widget, FooterKey):
                yield widget
                continue
            widget.set_class(True, "-compact", update=False)
            if not widget.has_class("-command-palette"):
                yield widget
                continue
            # Not docked, as Textual docks it: a docked hint takes its room
            # from the keys whether it shows or not.
            tip = str(widget.tooltip or widget.description)
            for label, description, classes, tooltip in (
                (MORE, "", "-more", MORE_TOOLTIP),
                (widget.key_display, widget.description, "-hint", tip),
            ):
                key = FooterKey(widget.key, label, description, widget.action, tooltip=tooltip, classes=classes)
                key.set_class(True, "-compact", update=False)
                yield key

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        self._fit_width = size.width
        return super().arrange(size, optimal)

    def process_layout(self, placements: list[WidgetPlacement]) -> list[WidgetPlacement]:
        """Keep the keys that fit the footer's width (see :func:`fit`), then
        ``…`` right after them or the hint at the right edge; drop the rest."""
        more = hint = None
        keys: list[WidgetPlacement] = []
        for placement in placements:
            if placement.widget.has_class("-more"):
                more = placement
            elif placement.widget.has_class("-hint"):
                hint = placement
            else:
                keys.append(placement)
        widths, end = [], 0
        for placement in keys:
            right = placement.region.right + placement.margin.right
            widths.append(right - end)
            end = right
        width = self._fit_width
        shown, tail = fit(widths, hint.region.width + 1 if hint is not None else 0, width)
        self.fitted = (shown, tail)
        out = keys[:shown]
        if tail == "more" and more is not None:
            x = sum(widths[:shown])
            out.append(more._replace(region=more.region._replace(x=x)))
        elif tail == "hint" and hint is not None:
            out.append(hint._replace(region=hint.region._replace(x=width - hint.region.width - 1)))
        return out

    def shown_keys(self) -> list[Widget]:
        """The keys on show now, ``…`` and the hint included, in order."""
        keys = [key for key in self.query("FooterKey") if not (key.has_class("-more") or key.has_class("-hint"))]
        shown, tail = self.fitted
        out = keys[:shown]
        out += list(self.query(f"FooterKey.-{tail}")) if tail else []
        return out
