"""A workflow's own records (:class:`~qflow_tui.core.events.Record`): the rows
its panes show, by kind, in the order they came, a keyed record replacing the
earlier one of its kind, progression and key."""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import events as ev
from ..safe_text import one_line
from .base import RunReading, StatePiece, register_piece


@dataclass
class RecordRow:
    """One record as a pane shows it."""

    record: str
    """Its kind (``plan``)."""
    fields: dict[str, ev.RecordValue]
    """Its fields as the event carried them."""
    step: str | None = None
    """The step that emitted it."""
    agent: str | None = None
    """The role that emitted it."""
    progression: int | None = None
    """Its progression; None: the whole run's (shown with every progression)."""
    key: str = ""
    """Its key (a later record of the kind, progression and key replaced this one)."""
    seq: int = 0
    """The event's place in the run's stream."""

    def value(self, name: str) -> ev.RecordValue:
        """A field's value; ``step``, ``agent`` and ``progression`` are the
        event's own unless a field has that name; a missing field is None."""
        if name in self.fields:
            return self.fields[name]
        if name in ("step", "agent", "progression"):
            value: ev.RecordValue = getattr(self, name)
            return value
        return None


@register_piece
@dataclass
class Records(StatePiece):
    """The run's records by kind, oldest first (a keyed one keeps its first place)."""

    events = (ev.Record,)
    rows: dict[str, list[RecordRow]] = field(default_factory=dict)
    _keyed: dict[tuple[str, int | None, str], int] = field(default_factory=dict)

    def of(self, record: str, progression: int | None = None) -> list[RecordRow]:
        """The rows of kind ``record`` for one progression, with the run-wide
        ones (None: every row of the kind)."""
        rows = self.rows.get(record, [])
        if progression is None:
            return list(rows)
        return [r for r in rows if r.progression is None or r.progression == progression]

    def kinds(self) -> list[str]:
        """The kinds seen, in the order first seen."""
        return list(self.rows)

    def apply(self, state: RunReading, event: ev.Event) -> None:
        if not isinstance(event, ev.Record):
            return
        row = RecordRow(
            event.record,
            dict(event.fields),
            event.step,
            event.agent,
            event.progression,
            event.key,
            event.seq,
        )
        rows = self.rows.setdefault(event.record, [])
        if event.key:
            where = (event.record, event.progression, event.key)
            at = self._keyed.get(where)
            if at is not None:
                rows[at] = row
                return
            self._keyed[where] = len(rows)
        rows.append(row)


def value_words(value: ev.RecordValue) -> str:
    """A field's value as a cell or a log line says it (None: empty)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def record_line(row: RecordRow, fields: list[str] | None = None, limit: int = 60) -> str:
    """One line for a record (``qflow solve``'s log): ``plan: plan=2
    confidence=85``, the given fields in order (None: every field), each value
    on one line, without control sequences, cut at ``limit`` characters."""
    names = fields if fields else list(row.fields)
    parts = []
    for name in names:
        words = one_line(" ".join(value_words(row.value(name)).split()), limit)
        parts.append(f"{name}={words}")
    return f"{row.record}: " + " ".join(parts)
