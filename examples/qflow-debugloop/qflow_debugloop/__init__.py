"""Debug-loop, described: the spec qflow reads when it starts (light: the run
function is in run.py, imported only when a run asks for it).

A writer writes a program; with ``run_visible`` on (the relaxed setting) an
executor runs it on the problem's visible tests in qflow's sandbox and, while
some fail, a debugger fixes it from the failures, at most ``fixes`` times."""

from __future__ import annotations

from typing import TYPE_CHECKING

from qflow_tui.core.workflows import Agent, Edit, PlannedStep, Setting, Steerable, WorkflowSpec

if TYPE_CHECKING:
    from qflow_tui.core.config import RunConfig

RUN_VISIBLE = Setting(
    "run_visible",
    "run each program on the visible tests in the sandbox and fix it while some fail (the relaxed setting; "
    "off: the first program, unchecked)",
    default=True,
    label="Run the visible tests",
)
FIXES = Setting("fixes", "the most fixes after the first program", default=3, minimum=0, maximum=20)


def plan(config: RunConfig) -> list[PlannedStep]:
    """``write``, then ``fix:1`` ... ``fix:N``; the executor checks the program of each."""
    if not RUN_VISIBLE.of(config):
        return [PlannedStep("write", "write", ("writer",))]
    steps = [PlannedStep("write", "write", ("writer", "executor"))]
    for n in range(1, FIXES.of(config) + 1):
        steps.append(PlannedStep(f"fix:{n}", f"fix {n}", ("debugger", "executor")))
    return steps


def edits(config: RunConfig) -> frozenset[Edit]:
    """A program at any step; a verdict only where the executor checks one."""
    return frozenset({"program", "verdict"}) if RUN_VISIBLE.of(config) else frozenset({"program"})


SPEC = WorkflowSpec(
    name="debugloop",
    summary="Debug-loop: write, run the visible tests in the sandbox, fix until they pass",
    agents=(
        Agent("writer", "Writer", "WR"),
        Agent("executor", "Executor", "EX"),
        Agent("debugger", "Debugger", "DB"),
    ),
    settings=(RUN_VISIBLE, FIXES),
    plan=plan,
    visible_tests=lambda config: (
        "shown to the writer and executed in the sandbox after each program"
        if RUN_VISIBLE.of(config)
        else "shown to the writer only"
    ),
    runner="qflow_debugloop.run:run_debugloop",
    executes_visible=lambda config: RUN_VISIBLE.of(config),
    tabs=lambda config: ("tests",) if RUN_VISIBLE.of(config) else (),
    stage_words={"write": "write", "fix": "fix"},
    steering=Steerable(edits=edits, program_stages=("write", "fix"), first_stage="write"),
    checker="executor",
    debugger="debugger",
    decided=("executor",),
    paper="the guide's second example (docs/guide/write-a-workflow.md)",
)
