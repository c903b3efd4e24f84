"""What a workflow takes at a fork, as its spec says (:func:`refusal`,
:func:`program_stages`). The edits' store itself (:class:`Steering`, the
``steered_*`` takers, the checks of a person's text) sits below the workflows in
:mod:`qflow_tui.core.steering`, which the workflows read; it is re-exported here
for the callers that steer a run."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from ..steering import (
    SteerError,
    Steering,
    TestSetEdit,
    check_program,
    check_test,
    check_tests,
    has_program,
    steered_program,
    steered_statement,
    steered_tests,
    steered_verdict,
    steered_words,
)
from ..workflows import WORKFLOWS, Steerable

if TYPE_CHECKING:
    from ..config import RunConfig
    from ..workflows import Edit

__all__ = [
    "SteerError",
    "Steering",
    "TestSetEdit",
    "check_program",
    "check_test",
    "check_tests",
    "has_program",
    "program_stages",
    "refusal",
    "steered_program",
    "steered_statement",
    "steered_tests",
    "steered_verdict",
    "steered_words",
]

_EDIT_WORDS = {
    "program": "program",
    "verdict": "quality-verdict",
    "tests": "synthesized-test",
    "statement": "statement",
}


def refusal(workflow: str, config: RunConfig, edits: Collection[Edit]) -> str | None:
    """Why ``workflow`` (its spec says what it takes) will not take ``edits``
    with settings ``config``, in one line; None: it takes them."""
    spec = WORKFLOWS.get(workflow)
    steerable = spec.steering if spec is not None else Steerable()
    for edit in edits:
        if not steerable.takes(edit, config):
            if not steerable.edits(config):
                return f"{workflow} takes no edits at a fork; fork without them"
            return f"{workflow} takes no {_EDIT_WORDS[edit]} edits with these settings; fork without them"
    return None


def program_stages(workflow: str) -> tuple[str, ...]:
    """The stages of ``workflow`` whose program or verdict an edit may replace."""
    spec = WORKFLOWS.get(workflow)
    return spec.steering.program_stages if spec is not None else ()
