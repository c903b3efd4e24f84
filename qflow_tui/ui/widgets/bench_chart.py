"""The running pass@1 of a bench after each workflow step (the paper's Table 1)
as horizontal bars, recomputed from the finished problems' results lines."""

from __future__ import annotations

from typing import Unpack

from rich.text import Text
from textual.widget import Widget

from ...core.bench.report import table_pass_by_step
from ...core.bench.results import ResultLine
from ...core.safe_text import one_line
from ..palette import palette
from ..widget_options import WidgetOptions
from .bench_table import step_words

#: Eighths of a character cell, for bars finer than one column.
_EIGHTHS = " ▏▎▍▌▋▊▉"

#: Columns the labels and the figures after each bar take.
_LABEL_WIDTH = 17  # "program generator", whole
_FIGURE_WIDTH = 16


def bar(fraction: float, width: int) -> str:
    """A bar ``fraction`` (0..1) of ``width`` columns long, in eighths of a column."""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, part = divmod(eighths, 8)
    return ("█" * full + (_EIGHTHS[part] if part else "")).ljust(width)


def pass_rows(done: list[ResultLine], workflow: str = "") -> list[tuple[str, int, int]]:
    """(label, passed, finished) for the first program, each step and the final
    program, in the order of Table 1; each step in its workflow's own words
    (its ``stage_words``, ``self-debug 2``) when the workflow is installed."""
    words = step_words(workflow)
    header, values = table_pass_by_step(done)
    n = len(done)
    rows = []
    for column, value in zip(header, values, strict=True):
        if column == "Δ":
            continue
        passed = 0 if value == "n/a" else round(float(value) * n / 100)
        label = column if column in ("first program", "final") else words(column)
        rows.append((label, passed, n))
    return rows


class PassByStepChart(Widget):
    """pass@1 after each workflow step over the problems finished so far."""

    DEFAULT_CSS = """
    PassByStepChart { height: auto; }
    """

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.done: list[ResultLine] = []
        """The results lines of the finished problems the bars are computed from."""
        self.total = 0
        """How many runs the bench has in all."""
        self.workflow = ""
        """The bench's workflow, whose words name the steps."""

    def show(self, done: list[ResultLine], total: int, workflow: str = "") -> None:
        self.done = done
        self.total = total
        self.workflow = workflow
        self.refresh(layout=True)

    def render(self) -> Text:
        colours = palette(self.app)
        out = Text(no_wrap=True, overflow="ellipsis")
        n = len(self.done)
        out.append("pass@1 by workflow step", style="bold")
        out.append(f"  (Table 1 · {n} of {self.total} finished)", style=colours.muted)
        if not self.done:
            out.append("\nno problem finished yet", style=colours.muted)
            return out
        width = max(4, self.content_size.width - _LABEL_WIDTH - _FIGURE_WIDTH - 2)
        for label, passed, total in pass_rows(self.done, self.workflow):
            fraction = passed / total if total else 0.0
            out.append("\n")
            out.append(one_line(label, _LABEL_WIDTH).ljust(_LABEL_WIDTH) + " ")
            style = colours.success if label == "final" else colours.accent
            out.append(bar(fraction, width), style=style)
            out.append(f" {100.0 * fraction:6.2f}% {passed:>3}/{total:<3}", style="bold" if label == "final" else "")
        return out
