"""Fork a recorded session at a step: the new run takes every model call the
recording made before that step from the recording (prompt-hash matching of
:class:`~qflow_tui.core.session.replay.ReplayClient`, no tokens) and asks the live
model for everything from the step on, even where the recording has an answer."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import pyparse
from ..config import ConfigError, RunConfig
from ..events import Event, LLMCallStarted, StepStarted
from ..llm import Completion, DeltaCallback, LLMClient, LLMRequest, make_client
from ..problem import Problem, ProblemError
from ..session import SessionData
from ..session.replay import RecordedCall, ReplayClient, describe_call
from ..workflows import WORKFLOWS, Edit, Steerable
from ..workflows.values import config_from_record, validate
from .edits import Steering


class ForkError(Exception):
    """A fork that cannot be made as asked (one line for the user)."""


@dataclass(frozen=True)
class BranchPoint:
    step: str
    """The step's name in events: ``self_debug:1``."""
    progression: int | None
    """The progression whose step starts the branch (None: a shared step)."""
    event_index: int
    """Index of that step's first ``step_started`` in the recording's events."""
    prefix_calls: frozenset[str]
    """Call ids the recording started before the branch: answered from it."""
    prefix_steps: frozenset[tuple[str, int | None]] = frozenset()
    """(step, progression) the recording started before the branch."""


def session_steps(events: list[Event]) -> list[str]:
    """The steps a session took, in the order they first started."""
    seen: dict[str, None] = {}
    for e in events:
        if isinstance(e, StepStarted) and e.step:
            seen.setdefault(e.step, None)
    return list(seen)


def _calls_started(events: list[Event]) -> frozenset[str]:
    return frozenset(x.call_id for x in events if isinstance(x, LLMCallStarted))


def branch_point(events: list[Event], step: str, progression: int | None = None) -> BranchPoint:
    """Where ``step`` (of ``progression`` when given) first started; raises
    :class:`ForkError` naming the steps the session has."""
    for i, e in enumerate(events):
        if isinstance(e, StepStarted) and e.step == step and progression in (None, e.progression):
            before = events[:i]
            prefix = _calls_started(before)
            started = frozenset(
                (x.step, x.progression)
                for x in before
                if isinstance(x, StepStarted) and x.step is not None and x.step != step
            )
            return BranchPoint(
                step=step, progression=e.progression, event_index=i, prefix_calls=prefix, prefix_steps=started
            )
    steps = session_steps(events)
    where = f" for progression {progression}" if progression is not None else ""
    raise ForkError(f"the session has no step {step!r}{where}; its steps: {', '.join(steps) if steps else 'none'}")


class ForkClient(ReplayClient):
    """A replay model that answers only the calls made before the branch point;
    every other call goes to ``fallback`` (the live model)."""

    def __init__(self, path: str | Path, fallback: LLMClient, point: BranchPoint) -> None:
        super().__init__(path, fallback)
        self.point = point
        self.prefix_calls = point.prefix_calls
        self.live_before: list[str] = []
        """Calls of steps the recording took before the branch that it could not
        answer (other settings changed their prompts): asked of the live model."""
        # Calls from the branch on are spent already as far as matching goes.
        self._used.update(c.call_id for c in self.calls if c.call_id not in self.prefix_calls)

    def _match(self, request: LLMRequest, prompt_hash: str) -> RecordedCall | None:
        call = super()._match(request, prompt_hash)
        return call if call is not None and call.call_id in self.prefix_calls else None

    async def complete(self, request: LLMRequest, on_delta: DeltaCallback) -> Completion:
        fell_back = self.fell_back
        completion = await super().complete(request, on_delta)
        if self.fell_back > fell_back and (request.step, request.progression) in self.point.prefix_steps:
            self.live_before.append(describe_call(request, request.step))
        return completion


def branch_at_end(events: list[Event], step: str, progression: int | None = None) -> BranchPoint:
    """A branch at the end of a recording still being written: a live run
    stopped at its gate before ``step``. Every call it has finished is answered
    from the recording; the fork goes live from where the run stands."""
    prefix = _calls_started(events)
    # No prefix steps: the settings are the run's own, so a call the session
    # cannot answer is one that was still to come (another progression's, or
    # in flight at the stop), not one whose prompt changed.
    return BranchPoint(step=step, progression=progression, event_index=len(events), prefix_calls=prefix)


@dataclass
class ForkPlan:
    """Everything a fork's run needs, checked: the app and ``qflow fork`` start
    it the same way (:func:`qflow_tui.core.workflow_run.run_workflow` with
    ``client=plan.client(...)``, ``steering=plan.steering``, ``header=plan.header``)."""

    parent: Path
    problem: Problem
    """The recorded :class:`~qflow_tui.core.problem.Problem`."""
    config: RunConfig
    """The recorded settings (a :class:`~qflow_tui.core.config.RunConfig`), the
    recording as the model and the live model as its fallback."""
    point: BranchPoint
    steering: Steering
    """The edits (a :class:`~qflow_tui.core.steer.Steering`)."""
    header: dict[str, Any]
    live_model: str
    edits: list[str]

    def client(self, fallback: LLMClient | None = None) -> ForkClient:
        """The fork's model: the recording before the branch, ``fallback`` (the
        live model built from its name when None) from it on. Raises LLMError."""
        if fallback is None:
            window = self.config.context_window or None
            fallback = make_client(self.live_model, base_url=self.config.base_url, context_window=window)
        return ForkClient(self.parent, fallback, self.point)


def plan_fork(
    data: SessionData,
    at: str,
    *,
    progression: int | None = None,
    program: str | None = None,
    program_source: str = "the editor",
    verdict: bool | None = None,
    model: str | None = None,
    live: bool = False,
) -> ForkPlan:
    """Check a fork of the read session ``data`` (a
    :class:`~qflow_tui.core.session.SessionData`) at step ``at`` with the given
    edits and model, and build its run; ``live``: the session is a run stopped
    at its gate before ``at`` (the branch is where it stands). Raises
    :class:`ForkError` with one line for the user (the same refusals as ``qflow fork``)."""
    name = data.path.name
    point = branch_at_end(data.events, at, progression) if live else branch_point(data.events, at, progression)
    try:
        problem = Problem.from_dict(data.header["problem"])
    except (KeyError, TypeError, ProblemError) as exc:
        raise ForkError(f"{name}: the recorded problem cannot be read ({exc})") from None
    if progression is None:
        progression = point.progression
    steering = Steering()
    edits: list[str] = []
    editing = program is not None or verdict is not None
    workflow = str(data.header.get("workflow") or RunConfig.workflow)
    if editing and progression is None:
        raise ForkError(f"{at} is a step of the whole run, not of a progression: edits apply to a progression's step")
    raw = data.header.get("config")
    recorded: dict[str, Any] = raw if isinstance(raw, dict) else {}
    kinds: list[Edit] = []
    if program is not None:
        kinds.append("program")
    if verdict is not None:
        kinds.append("verdict")
    why = refusal(workflow, config_from_record(recorded, workflow, strict=False), kinds)
    if why:
        raise ForkError(why)
    stages = program_stages(workflow)
    if kinds and at.partition(":")[0] not in stages:
        raise ForkError(f"edits replace a program or its quality verdict at {', '.join(stages)} steps, not {at}")
    target = 0 if progression is None else progression
    if program is not None:
        try:
            pyparse.parse(program)
        except SyntaxError as exc:
            raise ForkError(f"the edited program is not valid Python (line {exc.lineno}: {exc.msg}); fix it") from None
        steering.programs[(at, target)] = program
        edits.append(f"program of progression {progression} at {at} from {program_source}")
    if verdict is not None:
        steering.verdicts[(at, target)] = verdict
        edits.append(f"quality verdict of progression {progression} at {at}: {'accept' if verdict else 'reject'}")
    chosen = model or str(data.header.get("model") or "")
    if chosen.startswith("replay/"):
        chosen = str(recorded.get("fallback_model") or "")
    if not chosen:
        raise ForkError(f"{name}: the session names no live model; give one for the calls from {at} on")
    try:
        kept = {k: v for k, v in recorded.items() if k not in ("model", "base_url", "fallback_model")}
        base_url = recorded.get("base_url")
        config = config_from_record(kept, workflow, where=f"{name} config").replace(
            model=f"replay/{Path(data.path).resolve()}",
            fallback_model=chosen,
            base_url=str(base_url) if base_url else None,
        )
        validate(config)
    except ConfigError as exc:
        raise ForkError(str(exc)) from None
    header = {
        "parent": {"session": str(Path(data.path).resolve()), "forked_at": at, "progression": progression},
        "forked_at": at,
        "edits": edits,
    }
    return ForkPlan(Path(data.path).resolve(), problem, config, point, steering, header, chosen, edits)


# -- what a workflow takes at a fork ----------------------------------------------

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
