"""The replay timeline: a recorded run's workflow steps in a row (done, current,
ahead); click a step to jump there."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import HorizontalScroll
from textual.message import Message
from textual.widgets import Static

from ..replay_model import ReplayStep


class StepChip(Static):
    """One step on the replay timeline; click to jump there."""

    class Chosen(Message):
        def __init__(self, number: int) -> None:
            super().__init__()
            self.number = number

    def __init__(self, step: ReplayStep) -> None:
        super().__init__(f"{step.number} {step.label}", classes="replay-chip", markup=False)
        self.number = step.number
        self.tooltip = step.title

    def on_click(self) -> None:
        self.post_message(self.Chosen(self.number))


class ReplayTimeline(HorizontalScroll):
    """The run's workflow steps in a row: done, current and ahead."""

    def __init__(self, steps: list[ReplayStep], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.steps = steps

    def compose(self) -> ComposeResult:
        for step in self.steps:
            yield StepChip(step)

    def show(self, current: int, finished_steps: int) -> None:
        for chip in self.query(StepChip):
            chip.set_class(chip.number == current, "-current")
            chip.set_class(chip.number < finished_steps and chip.number != current, "-done")
        try:
            chip = self.query(StepChip)[current]
        except IndexError:
            return
        self.scroll_to_widget(chip, animate=False)
