"""The app's own Textual messages, in one place.

Core events reach the UI only through :class:`RunEvents`: the run screen's event
sink gathers events and posts one message per batch, so a flood of text deltas
from six progressions becomes a few messages per frame, and nothing is lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # the screens import this module at launch; the events are not needed then
    from ..core.events import Event


@dataclass
class RunEvents(Message):
    """Core events that arrived since the last batch, oldest first."""

    events: list[Event]


@dataclass
class SaveRequested(Message):
    """A widget asks its screen to save ``text`` to a file the user names
    (a widget never opens a screen itself: widgets sit below screens)."""

    text: str
    title: str
    name: str
    saved: str
    """What to say once it is saved: ``Program saved``."""


class GateWaiting(Message):
    """The workflow stopped at the step gate. It names no stop: by the time the
    screen handles it the gate may have moved on (a key stepped it, an earlier
    stop arrived), so the screen shows what the gate holds then."""


class KeyDone(Message, bubble=True, verbose=True):
    """Posted to the widget a key was handed to, right after the key: it bubbles
    up the same path the key does, behind it, so when it reaches the app the
    key has been handled wherever it was going to be (see ``QFlowApp.on_event``)."""
