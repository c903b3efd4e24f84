"""The state a run's events build beyond what every workflow shares: one piece
per kind of view a workflow needs (QualityFlow's imagined-execution checks, the
synthesized tests, CodeTree's search tree, a workflow's own records), each folded by
:class:`~qflow_tui.core.run_state.RunState` from the events the piece names.

A plugin workflow brings its own piece with :func:`register_piece`; a screen
reads one with ``state.piece(Kind)``."""

from .base import PIECES, CallReading, CellWriting, RunReading, StatePiece, register_piece
from .imagined import ImaginedChecks, ImaginedRecord, is_imagining
from .records import RecordRow, Records, record_line, value_words
from .tests import SynthTest, SynthTests, TestCounts
from .tree import SearchNode, SearchNodes

__all__ = [
    "PIECES",
    "CallReading",
    "CellWriting",
    "ImaginedChecks",
    "ImaginedRecord",
    "RecordRow",
    "Records",
    "RunReading",
    "SearchNode",
    "SearchNodes",
    "StatePiece",
    "SynthTest",
    "SynthTests",
    "TestCounts",
    "is_imagining",
    "record_line",
    "register_piece",
    "value_words",
]
