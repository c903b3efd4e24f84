"""A family of sessions for the app's steering screens: the demo session as a
parent, a fork of it (the quality check of progression 0 at self_debug:1
overridden to reject), and a fork of that fork (program_generator of
progression 1 accepted). Made in-process through the same core as ``qflow
fork``, with fixed names, times and durations so that screens show the same
thing on every run."""

from __future__ import annotations

import asyncio
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.session import read_session
from qflow_tui.core.steer.fork import plan_fork
from qflow_tui.core.workflow_run import run_workflow
from qflow_tui.data.demo import responder
from qflow_tui.locations import demo_session
from tests.helpers import TestSandbox


class CountingClient(ScriptClient):
    """The demo's script model, counting the calls it is asked (by agent)."""

    def __init__(self, respond: Any = responder.respond, name: str = "demo responder") -> None:
        base = ScriptClient.from_function(respond, name=name)
        self.__dict__.update(base.__dict__)
        self.asked: list[tuple[str, str | None, int | None]] = []
        """(agent, step, progression) of every call asked."""

    async def complete(self, request: Any, on_delta: Any) -> Any:
        self.asked.append((request.agent, request.step, request.progression))
        return await super().complete(request, on_delta)


@dataclass
class Family:
    parent: Path
    fork: Path
    grandchild: Path


async def fork_of(parent: Path, at: str, folder: Path, **edits: Any) -> Path:
    plan = plan_fork(read_session(parent), at, **edits)
    outcome = await run_workflow(
        plan.problem,
        plan.config,
        client=plan.client(CountingClient()),
        sandbox=TestSandbox(),
        steering=plan.steering,
        header=plan.header,
        session_dir=folder,
    )
    assert outcome.session
    return Path(outcome.session)


def _fix(path: Path, created: str, duration: float) -> None:
    """Fixed time and duration: the browser and the compare screen show them."""
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["created"] = created
    lines[0] = json.dumps(header)
    last = json.loads(lines[-1])
    if last.get("kind") == "run_finished":
        last["duration"] = duration
        lines[-1] = json.dumps(last)
    path.write_text("\n".join(lines) + "\n")


def make_family(folder: Path) -> Family:
    folder.mkdir(parents=True, exist_ok=True)
    parent = folder / "demo.jsonl"
    shutil.copy(demo_session(), parent)
    _fix(parent, "2026-01-02T10:00:00+0000", 0.4)

    async def both() -> tuple[Path, Path]:
        made = await fork_of(parent, "self_debug:1", folder, progression=0, verdict=False)
        fork = made.rename(folder / "fork-reject.jsonl")
        _fix(fork, "2026-01-02T11:00:00+0000", 0.3)
        made = await fork_of(fork, "program_generator", folder, progression=1, verdict=True)
        grandchild = made.rename(folder / "fork-accept.jsonl")
        _fix(grandchild, "2026-01-02T12:00:00+0000", 0.1)
        return fork, grandchild

    fork, grandchild = asyncio.run(both())
    return Family(parent, fork, grandchild)
