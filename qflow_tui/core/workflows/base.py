"""What every workflow returns."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class WorkflowResult:
    final_program: str
    outcome: str
    """``accepted``; ``reverted`` (nothing passed, the first program returned);
    ``rejected`` (revert disabled); ``unchecked`` (no quality checker)."""
    accepted_at: str | None
    """Step whose program was accepted: ``program_generator``, ``self_debug:2``, ``clarifier:1``."""
    progression: int | None
    first_program: str = ""
