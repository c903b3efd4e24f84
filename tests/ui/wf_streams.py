"""Hand-made event streams of workflows other than QualityFlow, as the core's
contract (notes/WF-CONTRACT.md) describes them: the run's first event declares
the agents and the plan, the gate's stops are events, CodeTree's nodes are
``tree_node`` events. The UI must draw each from these events alone."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from rich.console import Console

from qflow_tui.core import events as ev
from qflow_tui.core.session.writer import SessionWriter

PROBLEM: dict[str, Any] = {
    "title": "Add two numbers",
    "statement": "Write a function add(a, b) that returns a + b.",
    "entry_point": "add",
    "tests": ["assert add(1, 2) == 3"],
}

GOOD = "def add(a, b):\n    return a + b\n"
BAD = "def add(a, b):\n    return a - b\n"


class Stream:
    """Numbers events like the core's Emitter, with a steady clock."""

    def __init__(self) -> None:
        self.events: list[ev.Event] = []

    def __call__(self, event: ev.Event) -> ev.Event:
        event.seq = len(self.events) + 1
        event.ts = 1000.0 + event.seq * 0.5
        self.events.append(event)
        return event

    def call(self, call_id: str, agent: str, step: str, text: str, progression: int | None = 0, **kw: Any) -> None:
        common = {"step": step, "agent": agent, "progression": progression}
        self(
            ev.LLMCallStarted(**common, call_id=call_id, model="script", system="", messages=[], temperature=0.0, **kw)
        )
        self(ev.TextDelta(**common, call_id=call_id, text=text))
        self(
            ev.LLMCallFinished(**common, call_id=call_id, response=text, input_tokens=10, output_tokens=5, latency=0.1)
        )


AGENTCODER_AGENTS = [
    {"role": "programmer", "label": "Programmer", "short": "prog"},
    {"role": "test_designer", "label": "Test designer", "short": "tests"},
    {"role": "test_executor", "label": "Test executor", "short": "exec"},
]


def agentcoder_stream() -> list[ev.Event]:
    """AgentCoder: write, design tests, run them (fail), refine, run them (pass)."""
    s = Stream()
    plan = [
        {"step": "programmer", "label": "write the program", "agents": ["programmer"]},
        {"step": "test_designer", "label": "design tests", "agents": ["test_designer"]},
        {"step": "test_executor:1", "label": "run tests 1", "agents": ["test_executor"]},
        {"step": "programmer:1", "label": "refine 1", "agents": ["programmer"]},
        {"step": "test_executor:2", "label": "run tests 2", "agents": ["test_executor"]},
    ]
    s(
        ev.RunStarted(
            workflow="agentcoder",
            model="script",
            config={"iterations": 1},
            problem=PROBLEM,
            agents=AGENTCODER_AGENTS,
            plan=plan,
            summary="AgentCoder: a programmer, a test designer and a test executor in a loop.",
            visible_tests="not used",
            progressions=1,
        )
    )
    s(ev.GateStop(step="programmer", progression=0))
    s(ev.StepStarted(step="programmer", agent="programmer", progression=0))
    s.call("c1", "programmer", "programmer", "Step 1: understand.\n```python\n" + BAD + "```")
    s(ev.ProgramCandidate(step="programmer", agent="programmer", progression=0, program=BAD))
    s(ev.StepFinished(step="programmer", agent="programmer", progression=0))
    s(ev.GateStop(step="test_designer"))
    s(ev.StepStarted(step="test_designer", agent="test_designer"))
    s.call("c2", "test_designer", "test_designer", "assert add(2, 2) == 4", progression=None, attempt=1)
    s(ev.StepFinished(step="test_designer", agent="test_designer", detail="1 tests"))
    for n, program in ((1, BAD), (2, GOOD)):
        step = f"test_executor:{n}"
        ok = program == GOOD
        s(ev.GateStop(step=step, progression=0))
        s(ev.StepStarted(step=step, agent="test_executor", progression=0))
        s(
            ev.SandboxRun(
                step=step,
                agent="test_executor",
                progression=0,
                purpose="agentcoder",
                program=program,
                results=[
                    {"test": "assert add(2, 2) == 4", "status": "pass" if ok else "fail", "actual": "4" if ok else "0"}
                ],
                passed=int(ok),
                total=1,
            )
        )
        s(ev.StepFinished(step=step, agent="test_executor", progression=0, outcome="accepted" if ok else "rejected"))
        s(
            ev.Decision(
                step=step,
                agent="test_executor",
                progression=0,
                decision="accept" if ok else "continue",
                reason="every designed test passes" if ok else "0/1 pass: back to the programmer",
            )
        )
        if not ok:
            s(ev.GateStop(step="programmer:1", progression=0))
            s(ev.StepStarted(step="programmer:1", agent="programmer", progression=0))
            s.call("c3", "programmer", "programmer:1", "Fixed:\n```python\n" + GOOD + "```", attempt=1)
            s(ev.ProgramCandidate(step="programmer:1", agent="programmer", progression=0, program=GOOD))
            s(ev.StepFinished(step="programmer:1", agent="programmer", progression=0))
    s(
        ev.RunFinished(
            final_program=GOOD, outcome="accepted", accepted_at="test_executor:2", first_program=BAD, llm_calls=3
        )
    )
    return s.events


def write_session(path: Path, events: list[ev.Event]) -> Path:
    """A session file of these events, as the runner would write it."""
    first = events[0]
    assert isinstance(first, ev.RunStarted)
    with SessionWriter(
        path, workflow=first.workflow, model=first.model, config=first.config, problem=first.problem, index=False
    ) as writer:
        for e in events:
            writer(e)
    return path


def screen_text(app: Any) -> str:
    """The text on the app's screen, as a user sees it."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, record=True)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text(styles=False)


CODETREE_AGENTS = [
    {"role": "thinker", "label": "Thinker", "short": "think"},
    {"role": "solver", "label": "Solver", "short": "solve"},
    {"role": "debugger", "label": "Debugger", "short": "debug"},
    {"role": "critic", "label": "Critic", "short": "critic"},
]


def codetree_stream(finish: bool = True) -> list[ev.Event]:
    """CodeTree: two strategies; the first's code fails and the critic asks for a
    refinement, whose child passes and is accepted; the second is aborted."""
    s = Stream()
    s(
        ev.RunStarted(
            workflow="codetree",
            model="script",
            config={"budget": 20},
            problem=PROBLEM,
            agents=CODETREE_AGENTS,
            plan=[
                {"step": "thinker", "label": "strategies", "agents": ["thinker"]},
                {"step": "solver", "label": "solve", "agents": ["solver", "critic"]},
                {"step": "debugger", "label": "refine", "agents": ["debugger", "critic"]},
            ],
            summary="CodeTree: a tree search over strategies, guided by a critic.",
            visible_tests="executed in the sandbox",
            progressions=1,
        )
    )

    def node(node: str, parent: str | None, strategy: str, code: str, passed: int, score, action: str, **kw) -> None:
        s(
            ev.TreeNode(
                step="solver",
                agent="critic",
                node=node,
                parent=parent,
                strategy=strategy,
                code=code,
                passed=passed,
                total=1,
                score=score,
                action=action,
                feedback=kw.get("feedback", ""),
                critique=kw.get("critique", ""),
            )
        )

    s(ev.GateStop(step="thinker"))
    s(ev.StepStarted(step="thinker", agent="thinker"))
    s.call("c1", "thinker", "thinker", "1. Add with +.\n2. Subtract the negation.", progression=None)
    s(ev.StepFinished(step="thinker", agent="thinker", detail="2 strategies"))
    for n, strategy in (("1", "Add with the + operator"), ("2", "Subtract the negation")):
        s(ev.GateStop(step="solver"))
        s(ev.StepStarted(step="solver", agent="solver", node=n))
        s.call(f"c{n}s", "solver", "solver", "```python\n" + BAD + "```", node=n)
        node(n, None, strategy, BAD, 0, None, "")
        s(ev.StepStarted(step="solver", agent="critic", node=n))
        s.call(f"c{n}c", "critic", "solver", "Score 0.4: wrong operator.", node=n)
        action = "refine" if n == "1" else "abort"
        node(
            n,
            None,
            strategy,
            BAD,
            0,
            0.4 if n == "1" else 0.1,
            action,
            feedback="assert add(1, 2) == 3 failed: got -1",
            critique="It subtracts where the statement says add." if n == "1" else "The strategy is not worth it.",
        )
        s(ev.StepFinished(step="solver", agent="critic", node=n, outcome="rejected"))
    s(ev.GateStop(step="debugger"))
    s(ev.StepStarted(step="debugger", agent="debugger", node="1.1"))
    s.call("c3", "debugger", "debugger", "```python\n" + GOOD + "```", node="1.1")
    node(
        "1.1",
        "1",
        "Add with the + operator",
        GOOD,
        1,
        1.0,
        "accept",
        feedback="all visible tests pass",
        critique="Correct.",
    )
    s(ev.StepFinished(step="debugger", agent="debugger", node="1.1", outcome="accepted"))
    if finish:
        s(ev.RunFinished(final_program=GOOD, outcome="accepted", accepted_at="1.1", first_program=BAD, llm_calls=6))
    return s.events
