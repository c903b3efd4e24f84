"""Steering a run, in one package: the step gate a workflow awaits before each
step (:mod:`.gate`), a person's edits the workflow takes (:mod:`.edits`), the
rules of steering a live run (:mod:`.desk`), forks of a recorded session at a
step (:mod:`.fork`) and two sessions side by side (:mod:`.side_by_side`).

The package sits at two floors of the core's layers: ``gate`` and ``edits``
below the workflows (which await the gate and take the edits), ``desk``,
``fork`` and ``side_by_side`` above them (they ask the workflow specs). So this
module names only what a workflow uses (a plugin imports it from here); import
the upper modules by their own names."""

from .edits import (
    Steering,
    TestSetEdit,
    has_program,
    steered_program,
    steered_statement,
    steered_tests,
    steered_verdict,
)

__all__ = [
    "Steering",
    "TestSetEdit",
    "has_program",
    "steered_program",
    "steered_statement",
    "steered_tests",
    "steered_verdict",
]
