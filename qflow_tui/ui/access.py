"""Typed access to the running :class:`~qflow_tui.ui.app.QFlowApp` from a widget or screen.

Textual types ``self.app`` as ``App[Any]``; the app's own attributes (its config,
its model client, the problem it was opened with) need the concrete type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.dom import DOMNode

if TYPE_CHECKING:
    from .app import QFlowApp


def qflow_app(node: DOMNode) -> QFlowApp:
    """The app ``node`` belongs to, typed as qflow's app."""
    return cast("QFlowApp", node.app)


def mark_invalid(screen: DOMNode, field: str | None) -> None:
    """Clear every field's error mark on a form, then mark ``field`` (a widget id)
    and focus it, so the user lands on what to correct."""
    from textual.widget import Widget

    for widget in screen.query(".-invalid"):
        widget.remove_class("-invalid")
    if field:
        target = screen.query_one(f"#{field}", Widget)
        target.add_class("-invalid")
        target.focus()
