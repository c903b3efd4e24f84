"""LEGACY FALLBACK (delete at merge): the shape of a QualityFlow run whose
``run_started`` event carries no agents and no plan.

Sessions recorded before workflows described themselves, and live runs until
the core emits ``RunStarted.agents``/``plan``, say only ``workflow:
qualityflow``. The contract (notes/WF-CONTRACT.md) has the core's session
reader fill those fields from its own legacy table; once it does, this module
and its one caller (:func:`qflow_tui.ui.state.run_shape`) go away.

This is the only UI module that names QualityFlow's agents and steps.
"""

from __future__ import annotations

from typing import Any

#: QualityFlow's agents in the order it calls them (the paper's names).
_AGENTS: tuple[tuple[str, str, str], ...] = (
    ("program_generator", "Program Generator", "PG"),
    ("test_designer", "Test Designer", "TD"),
    ("test_quality_checker", "Test Quality Checker", "TQC"),
    ("self_debugger", "Self-Debugger", "SD"),
    ("code_quality_checker", "Code Quality Checker", "CQC"),
    ("clarifier", "Clarifier", "CL"),
)


#: What the demo's intro says the run is.
_SUMMARY = (
    "QualityFlow's agents write programs in parallel progressions and tests for them; the Code Quality "
    "Checker imagines each program running on the visible tests, then accepts, continues or reverts."
)


def legacy_shape(workflow: str, config: dict[str, Any]) -> tuple[list[dict[str, str]], list[dict[str, Any]], int, str]:
    """Agents, plan, progressions and summary for an old QualityFlow stream;
    nothing for any other workflow (its panes and steps then come from the
    events seen)."""
    if workflow not in ("qualityflow", ""):
        return [], [], 1, ""
    agents = [{"role": r, "label": label, "short": short} for r, label, short in _AGENTS]
    if config.get("checker") == "yesno":
        agents.append({"role": "yesno_checker", "label": "Yes/no checker", "short": "YN"})
    check = "code_quality_checker"
    plan: list[dict[str, Any]] = [
        {"step": "program_generator", "label": "generate", "short": "gen", "agents": ["program_generator", check]}
    ]
    epochs = int(config.get("epochs", 3))
    if epochs:
        plan.append({"step": "test_designer", "label": "design tests", "agents": ["test_designer"], "shared": True})
        if config.get("tqc", True):
            plan.append(
                {
                    "step": "test_quality_checker",
                    "label": "check tests (TQC)",
                    "agents": ["test_quality_checker"],
                    "shared": True,
                }
            )
    for e in range(1, epochs + 1):
        plan.append(
            {
                "step": f"self_debug:{e}",
                "label": f"self-debug {e}",
                "short": f"debug {e}",
                "agents": ["self_debugger", check],
            }
        )
    for a in range(1, int(config.get("clarify", 3)) + 1):
        plan.append({"step": f"clarifier:{a}", "label": f"clarify {a}", "agents": ["clarifier", check]})
    if config.get("checker", "imagined") != "none" and config.get("revert", True):
        plan.append({"step": "revert", "label": "revert", "agents": [], "shared": True})
    return agents, plan, int(config.get("prompts", 1) or 1), _SUMMARY
