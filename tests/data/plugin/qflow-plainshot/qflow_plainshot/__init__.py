"""Plain-shot, described: one writer writes one program, unchecked, optionally
without seeing the visible tests. qflow reads this spec at launch; the run
function (``.run``) is imported only when a run asks for this workflow."""

from __future__ import annotations

from qflow_tui.core.config import RunConfig
from qflow_tui.core.workflows import Agent, PlannedStep, Setting, WorkflowSpec

SHOW_TESTS = Setting(
    "show_tests",
    "show the writer the visible tests (off: the statement alone)",
    default=True,
)


def _plan(config: RunConfig) -> list[PlannedStep]:
    return [PlannedStep("writer", "write", ("writer",))]


def _visible_tests(config: RunConfig) -> str:
    return "shown to the writer, never executed" if config.setting("show_tests") else "not shown"


SPEC = WorkflowSpec(
    name="plainshot",
    summary="Plain-shot: one program from one writer call, unchecked",
    agents=(Agent("writer", "Writer", "WR"),),
    settings=(SHOW_TESTS,),
    plan=_plan,
    visible_tests=_visible_tests,
    runner="qflow_plainshot.run:run_plainshot",
    paper="qualityflow.txt, the zero-shot baseline",
)
