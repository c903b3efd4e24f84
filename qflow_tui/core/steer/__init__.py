"""Steering a run: a person's edits the workflow takes (:class:`Steering`),
forks of a recorded session at a step, and comparison of two sessions."""

from ..steering import Steering, steered_program, steered_verdict
from .fork import BranchPoint, ForkClient, ForkError, branch_point, session_steps

__all__ = [
    "BranchPoint",
    "ForkClient",
    "ForkError",
    "Steering",
    "branch_point",
    "session_steps",
    "steered_program",
    "steered_verdict",
]
