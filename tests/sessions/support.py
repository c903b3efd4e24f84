"""Helpers for the session tests: record a scripted run, normalise events for
comparison, run the CLI as a user does."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from qflow_tui.core.config import RunConfig, make_config
from qflow_tui.core.events import Event
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.workflow_run import RunOutcome, run_workflow
from qflow_tui.data.demo import responder
from qflow_tui.data.demo.record import DEMO_SETTINGS, demo_problem
from tests.helpers import Recorder, TestSandbox

ROOT = Path(__file__).resolve().parents[2]
RESPONDER = ROOT / "qflow_tui" / "data" / "demo" / "responder.py"
PROBLEM = demo_problem()

#: Fields that differ between two runs of the same story (time, ids, the
#: client's name); everything else must be equal.
VOLATILE = {"seq", "ts", "latency", "duration", "call_id", "model", "time_to_first_token"}


def demo_config(**changes: Any) -> RunConfig:
    return make_config({"model": f"script/{RESPONDER}", **DEMO_SETTINGS, **changes})


InProcessSandbox = TestSandbox  # the real sandbox at its portable level, see tests/helpers.py


async def record_demo(session_dir: Path, client=None, **changes: Any) -> tuple[RunOutcome, Recorder]:
    """Run the demo story with the real runner (and an in-process sandbox); the
    session goes to ``session_dir``."""
    rec = Recorder()
    config = demo_config(**changes)
    outcome = await run_workflow(
        PROBLEM,
        config,
        client=client or ScriptClient.from_function(responder.respond),
        sandbox=InProcessSandbox(),
        sinks=[rec],
        session_dir=session_dir,
    )
    return outcome, rec


def normalise(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: normalise(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [normalise(v) for v in value]
    return value


def _frozen(value: Any) -> str:
    import json

    return json.dumps(value, sort_keys=True)


def comparable(events: list[Event]) -> Counter:
    """The run's events as a multiset, without streaming chunks (batched by
    time) and volatile fields: concurrent progressions and tests may finish in
    another order, but the same things must happen."""
    return Counter(_frozen(normalise(e.to_dict())) for e in events if e.kind != "text_delta")


def flow(events: list[Event]) -> dict[Any, list[tuple]]:
    """Per progression, the ordered control flow (steps, programs, decisions)."""
    out: dict[Any, list[tuple]] = {}
    for e in events:
        if e.kind in ("step_started", "step_finished", "decision", "program_candidate", "run_finished"):
            out.setdefault(e.progression, []).append(
                (e.kind, e.step, e.agent, getattr(e, "decision", getattr(e, "outcome", None)))
            )
    return out


def responses(events: list[Event]) -> dict[tuple, list[str]]:
    """Each model call's response, keyed by where in the workflow it was made."""
    started = {e.call_id: e for e in events if e.kind == "llm_call_started"}
    out: dict[tuple, list[str]] = {}
    for e in events:
        if e.kind == "llm_call_finished":
            s = started[e.call_id]
            key = (s.step, s.agent, s.progression, s.epoch, s.attempt, s.turn, s.test, s.prompt_hash)
            out.setdefault(key, []).append(e.response)
    return out
