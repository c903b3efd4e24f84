"""The replay timeline: a recorded run's workflow steps in a row (done, current,
ahead); click a step to jump there."""

from __future__ import annotations

from typing import Unpack

from textual.app import ComposeResult
from textual.containers import HorizontalScroll
from textual.message import Message
from textual.widgets import Static

from ..replay_model import ReplayStep
from ..widget_options import WidgetOptions


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

    def __init__(self, steps: list[ReplayStep], **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.steps = steps
        self._shown: tuple[int, int] | None = None

    def compose(self) -> ComposeResult:
        for step in self.steps:
            yield StepChip(step)
        # Room after the last step, so the strip can start at a step's first
        # letter also when it shows the last one (see _bring_into_view).
        tail = Static("", classes="replay-tail")
        tail.styles.width = max((len(f"{s.number} {s.label}") + 3 for s in self.steps), default=0)
        yield tail

    def show(self, current: int, finished_steps: int) -> None:
        self._shown = (current, finished_steps)
        for chip in self.query(StepChip):
            chip.set_class(chip.number == current, "-current")
            chip.set_class(chip.number < finished_steps and chip.number != current, "-done")
        chips = list(self.query(StepChip))
        if not chips:
            return
        self._bring_into_view(chips, min(max(current, 0), len(chips) - 1))
        self._blank_the_cut(chips)

    def on_resize(self) -> None:
        if self._shown is not None:
            self.call_after_refresh(self.show, *self._shown)

    def _blank_the_cut(self, chips: list[StepChip]) -> None:
        """A step the strip's right edge would cut is drawn blank (class
        ``-cut``; its room and place kept): the strip ends at the last whole
        step, never mid-step (``23 check debug``); the step line below says
        how many there are."""
        view = self.scrollable_content_region.width
        if view <= 0:
            return
        right = self.scroll_x + view
        for chip in chips:
            region = chip.virtual_region
            chip.set_class(region.x < right < region.right, "-cut")

    def _bring_into_view(self, chips: list[StepChip], index: int) -> None:
        """Scroll so chip ``index`` shows whole and the strip starts at a chip's
        first letter: a scrolled strip never begins mid-word."""
        view = self.scrollable_content_region.width
        if view <= 0:
            return
        chip = chips[index].virtual_region
        left, right = self.scroll_x, self.scroll_x + view
        if chip.x >= left and chip.right <= right and self._at_chip_start(chips):
            return
        if chip.x < left:
            self.scroll_to(x=chip.x, animate=False, immediate=True)
            return
        start = chip.x
        for earlier in reversed(chips[:index]):
            if chip.right - earlier.virtual_region.x > view:
                break
            start = earlier.virtual_region.x
        self.scroll_to(x=start, animate=False, immediate=True)

    def _at_chip_start(self, chips: list[StepChip]) -> bool:
        return self.scroll_x == 0 or any(c.virtual_region.x == self.scroll_x for c in chips)
