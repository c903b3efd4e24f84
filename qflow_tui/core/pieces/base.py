"""What a piece of run state is, what it may read of the run, and the registry
:class:`~qflow_tui.core.run_state.RunState` builds its pieces from.

A piece reads the run through :class:`RunReading`, a narrow protocol defined
here, below both: the pieces never import the run state, and the run state
imports the pieces (no circle, not even one for type checkers)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Protocol, TypeVar

from .. import events as ev


class CallReading(Protocol):
    """What a piece reads of one model call as it streams."""

    @property
    def step(self) -> str | None: ...
    @property
    def progression(self) -> int | None: ...
    @property
    def turn(self) -> int: ...
    @property
    def test(self) -> str | None: ...
    @property
    def text(self) -> str: ...


class CellWriting(Protocol):
    """A step's cell for one progression, whose detail a piece may set (the
    timeline shows it beside the step)."""

    detail: str


class RunReading(Protocol):
    """What a piece reads of the run: its settings, its model calls by id, and
    a step's cell (the shared state, folded before any piece)."""

    @property
    def config(self) -> dict[str, object]: ...
    @property
    def calls(self) -> Mapping[str, CallReading]: ...
    def cell(self, stage: str, progression: int | None) -> CellWriting: ...


class StatePiece:
    """State of its own that some workflows' events build: the events it folds
    (:attr:`events`, matched by class, subclasses too) and how (:meth:`apply`).
    The shared state (calls, cells, the run's settings) is folded first, so a
    piece may read it (see :class:`RunReading`). A piece is made with no
    arguments, once per run."""

    events: ClassVar[tuple[type[ev.Event], ...]] = ()

    def apply(self, state: RunReading, event: ev.Event) -> None:
        raise NotImplementedError


#: The pieces every new run state gets, in the order they fold an event.
PIECES: list[type[StatePiece]] = []

P = TypeVar("P", bound=type[StatePiece])


def register_piece(kind: P) -> P:
    """Give every run state made from now on a ``kind`` (a class decorator; a
    second registration of the same class is a no-op). A plugin workflow
    registers its piece when its package is imported."""
    if kind not in PIECES:
        PIECES.append(kind)
    return kind
