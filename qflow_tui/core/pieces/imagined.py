"""QualityFlow's imagined-execution checks: each visible test a model imagines
running, as it streams and as the checker judged it."""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import events as ev
from .base import CallReading, RunReading, StatePiece, register_piece


@dataclass
class ImaginedRecord:
    """One visible test checked by imagined execution (live or finished)."""

    step: str | None
    progression: int | None
    test: str
    reasoning: str = ""
    answer: str = ""
    value: str | None = None
    verdict: str | None = None
    """``pass``, ``fail``, or None while the model is still answering."""
    detail: str = ""
    function_call: str = ""


def is_imagining(call: CallReading) -> bool:
    """A model call imagining one visible test running, for one progression's
    program (the first turn of an imagined-execution conversation)."""
    return bool(call.test) and call.turn == 1 and call.progression is not None


@register_piece
@dataclass
class ImaginedChecks(StatePiece):
    """The imagined-execution checks by (step, progression, test), in the order first seen."""

    events = (ev.LLMCallStarted, ev.TextDelta, ev.ImaginedCheck)
    records: dict[tuple[str | None, int | None, str], ImaginedRecord] = field(default_factory=dict)

    def of(self, progression: int | None) -> list[ImaginedRecord]:
        """The checks of one progression's programs."""
        return [r for r in self.records.values() if r.progression == progression]

    def apply(self, state: RunReading, event: ev.Event) -> None:
        if isinstance(event, ev.ImaginedCheck):
            self._checked(event)
            return
        call = state.calls.get(event.call_id) if isinstance(event, (ev.LLMCallStarted, ev.TextDelta)) else None
        if call is None or not call.test or not is_imagining(call):
            return
        key = (call.step, call.progression, call.test)
        if isinstance(event, ev.LLMCallStarted):
            self.records.setdefault(key, ImaginedRecord(step=call.step, progression=call.progression, test=call.test))
        elif (im := self.records.get(key)) is not None and im.verdict is None:
            im.reasoning = call.text

    def _checked(self, e: ev.ImaginedCheck) -> None:
        key = (e.step, e.progression, e.test)
        rec = self.records.get(key)
        if rec is None:
            rec = self.records[key] = ImaginedRecord(step=e.step, progression=e.progression, test=e.test)
        rec.reasoning = e.reasoning
        rec.answer = e.answer
        rec.value = e.value
        rec.verdict = e.verdict
        rec.detail = e.detail
        rec.function_call = e.function_call
