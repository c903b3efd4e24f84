"""What a piece of run state is, and the registry :class:`RunState` builds its pieces from."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, TypeVar

from .. import events as ev

if TYPE_CHECKING:
    from ..run_state import RunState


class StatePiece:
    """State of its own that some workflows' events build: the events it folds
    (:attr:`events`, matched by class, subclasses too) and how (:meth:`apply`).
    The shared state (calls, cells, the run's settings) is folded first, so a
    piece may read it. A piece is made with no arguments, once per run."""

    events: ClassVar[tuple[type[ev.Event], ...]] = ()

    def apply(self, state: RunState, event: ev.Event) -> None:
        raise NotImplementedError


#: The pieces every new :class:`RunState` gets, in the order they fold an event.
PIECES: list[type[StatePiece]] = []

P = TypeVar("P", bound=type[StatePiece])


def register_piece(kind: P) -> P:
    """Give every run state made from now on a ``kind`` (a class decorator; a
    second registration of the same class is a no-op). A plugin workflow
    registers its piece when its package is imported."""
    if kind not in PIECES:
        PIECES.append(kind)
    return kind
