"""The typed, JSON-serialisable events a workflow run emits.

One vocabulary feeds three consumers: the live UI, the session file and replay.
Every event carries a sequence number, a timestamp, the workflow step, the agent
and the progression index; the rest is specific to its kind.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

# The closed sets of values some fields take; readers match on them.
StepOutcomeWord = Literal["accepted", "rejected", "skipped", "done", "stopped", "failed"]
RunOutcomeWord = Literal["accepted", "reverted", "rejected", "unchecked"]
CheckVerdict = Literal["pass", "fail"]
TestVerdict = Literal["kept", "rejected"]
DecisionWord = Literal["accept", "continue", "clarify", "revert"]
"""The decisions the core acts on, as a ``Decision`` event says them: ``accept``
(the program stands), ``continue`` (on to the next step), ``clarify`` (ask the
clarifier) and ``revert`` (fall back to the first program)."""
NoticeLevel = Literal["info", "warning", "error"]
SteeredWhat = Literal["program", "verdict", "test verdict", "test", "tests", "statement"]
CriticAction = Literal["refine", "abort", "accept", ""]

#: Bumped when an event's fields change incompatibly; session readers check it.
EVENT_FORMAT_VERSION = 1

_REGISTRY: dict[str, type[Event]] = {}


@dataclass(kw_only=True)
class Event:
    """Base of all events. Subclasses set ``kind`` and add their own fields."""

    kind: ClassVar[str] = "event"

    seq: int = 0
    """Position in the run's stream, from 1; assigned by the :class:`Emitter`."""
    ts: float = 0.0
    """Seconds since the epoch when the event was emitted."""
    step: str | None = None
    """Workflow step, in the paper's words: ``program_generator``, ``test_designer``,
    ``test_quality_checker``, ``self_debug:2``, ``clarifier:1``, ``revert``."""
    agent: str | None = None
    """Agent role that produced the event, e.g. ``code_quality_checker``."""
    progression: int | None = None
    """Index of the parallel progression (diversified prompt), from 0; None when
    the event belongs to the whole run (test design, TQC, the final result)."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        _REGISTRY[cls.kind] = cls

    def to_dict(self) -> dict[str, object]:
        """The event as plain data, ``kind`` first: what ``dataclasses.asdict``
        gives (nested dataclasses as dicts, containers copied), made without
        its deep copy of every string and number (a quarter of a bench's
        writing of its sessions)."""
        return {"kind": self.kind, **{name: _plain_copy(getattr(self, name)) for name in _field_names(type(self))}}

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Event:
        """Rebuild an event; unknown fields are dropped, unknown kinds raise KeyError."""
        cls = _REGISTRY[data["kind"]]
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}

_ATOMS = (str, int, float, bool, type(None))


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def _plain_copy(value: object) -> object:
    """``value`` as ``dataclasses.asdict`` copies a field: a dataclass as a
    dict of its fields, lists, tuples and dicts rebuilt item by item (a named
    tuple as itself), anything else deep-copied; strings, numbers, booleans
    and None as they are (immutable: asdict's copy of them is themselves)."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    if isinstance(value, list) and kind is list:
        return [_plain_copy(v) for v in value]
    if isinstance(value, dict) and kind is dict:
        return {_plain_copy(k): _plain_copy(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: _plain_copy(getattr(value, name)) for name in _field_names(kind)}
    make: Any = kind  # a subclass of list, tuple or dict is rebuilt as itself, as asdict does
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return make(*[_plain_copy(v) for v in value])
    if isinstance(value, (list, tuple)):
        return make(_plain_copy(v) for v in value)
    if isinstance(value, dict):
        return make((_plain_copy(k), _plain_copy(v)) for k, v in value.items())
    return copy.deepcopy(value)


def event_kinds() -> dict[str, type[Event]]:
    return dict(_REGISTRY)


@dataclass(kw_only=True)
class RunStarted(Event):
    kind: ClassVar[str] = "run_started"
    workflow: str
    model: str
    config: dict[str, Any]
    problem: dict[str, Any]
    isolation: str = ""
    """What the sandbox could isolate with on this machine."""
    agents: list[dict[str, str]] = field(default_factory=list)
    """The workflow's agents in the order it calls them, each
    ``{"role": "program_generator", "label": "Program generator", "short": "gen"}``."""
    plan: list[dict[str, Any]] = field(default_factory=list)
    """The planned steps for these settings, in order, each
    ``{"step": "self_debug:1", "label": "self-debug 1", "agents": [...]}``; steps that
    run per progression are listed once."""
    summary: str = ""
    """The workflow's one-line summary."""
    visible_tests: str = ""
    """What the workflow does with the visible tests, in words."""
    progressions: int = 1
    """How many progressions run (1 for workflows without them)."""
    tabs: list[str] | None = None
    """The run screen's tabs the workflow uses beyond the timeline, the agents
    and the program (``imagined``, ``tests``, ``tree``); None: an older
    session, whose reader fills them in."""
    checker: str = ""
    """The role whose accepted or rejected step is a quality verdict on its
    progression's program (empty: no such agent)."""
    test_judge: str = ""
    """The role whose verdict each synthesized test gets (a column of the
    Tests tab; empty: no such agent)."""
    decided: list[str] = field(default_factory=list)
    """The roles whose steps end in a decision (the timeline lists them)."""
    panes: list[dict[str, Any]] | None = None
    """The workflow's own panes (:class:`~qflow_tui.core.workflows.base.Pane`
    as dicts), so a replay shows them without the plugin; None: an older
    session, whose reader fills them in."""
    stage_words: dict[str, str] = field(default_factory=dict)
    """The workflow's stages in words (its spec's ``stage_words``)."""
    step_words: dict[str, str] = field(default_factory=dict)
    """Whole step names in words (its spec's ``step_words``)."""
    sampling: dict[str, str] = field(default_factory=dict)
    """The sampling settings really sent to the model, in words
    (``{"temperature": "not sent: the provider's default"}``): the workflow asks
    for the paper's temperatures, and not every API takes them."""


@dataclass(kw_only=True)
class StepStarted(Event):
    kind: ClassVar[str] = "step_started"
    detail: str = ""
    node: str | None = None
    """The search-tree node the step works on (CodeTree), else None."""


@dataclass(kw_only=True)
class StepFinished(Event):
    kind: ClassVar[str] = "step_finished"
    outcome: StepOutcomeWord = "done"
    detail: str = ""
    node: str | None = None
    """The search-tree node the step worked on (CodeTree), else None."""


@dataclass(kw_only=True)
class LLMCallStarted(Event):
    kind: ClassVar[str] = "llm_call_started"
    call_id: str
    model: str
    system: str
    messages: list[dict[str, str]]
    temperature: float
    turn: int = 1
    epoch: int | None = None
    attempt: int | None = None
    test: str | None = None
    prompt_hash: str = ""
    node: str | None = None
    """The search-tree node the call works on (CodeTree), else None."""
    retry_of: str | None = None
    """The failed attempt this call tries again (the retry policy), else None."""


@dataclass(kw_only=True)
class TextDelta(Event):
    kind: ClassVar[str] = "text_delta"
    call_id: str
    text: str


@dataclass(kw_only=True)
class LLMCallFinished(Event):
    kind: ClassVar[str] = "llm_call_finished"
    call_id: str
    response: str
    input_tokens: int | None
    output_tokens: int | None
    latency: float
    prompt_hash: str = ""
    tokens_estimated: bool = False
    """True when the counts are estimates (script models, a cut call counted
    without the server's tokenizer); a provider that reported no usage leaves
    the counts ``None``: unknown, not 0."""
    cache_read_tokens: int | None = None
    """Of ``input_tokens``, those read from the provider's prompt cache."""
    cache_write_tokens: int | None = None
    """Of ``input_tokens``, those written to the provider's prompt cache."""
    thinking_tokens: int | None = None
    """Of ``output_tokens``, those the model spent thinking before its answer
    (a reasoning model's; billed as output, not in ``response``)."""
    stop_reason: str = "finished"
    """Why the answer ended: ``finished``; cut at ``max_tokens``; stopped for
    ``repetition`` (the response holds the repeated span once)."""
    time_to_first_token: float | None = None
    """Seconds from the request to the first streamed text."""
    detail: str = ""
    """What a cut answer lost, in words (e.g. "a 42-character span repeated 30 times")."""
    usage_reported: bool = True
    """False when the provider reported no usable token counts (none, or
    impossible ones such as ``10**400``): the counts are then the app's own
    (``tokens_estimated`` says whether by estimate)."""


@dataclass(kw_only=True)
class LLMCallFailed(Event):
    kind: ClassVar[str] = "llm_call_failed"
    call_id: str
    error: str
    stop_reason: str = "failed"
    """``failed``, ``timeout`` (the per-call time limit) or ``cancelled``."""
    partial_chars: int = 0
    """Characters streamed before the call ended (they are in its text deltas)."""
    latency: float | None = None
    will_retry: bool = False
    """The retry policy calls again (an ``llm_call_retry`` event follows): this
    attempt's partial text is not the agent's answer."""
    input_tokens: int | None = None
    """A call cut by the time limit or a person still cost its prompt: counted
    here (``None`` for a call the provider refused)."""
    output_tokens: int | None = None
    """The tokens streamed before the cut, counted."""
    tokens_estimated: bool = False
    """True when the counts are estimates, not the server's tokenizer."""


@dataclass(kw_only=True)
class LLMCallRetry(Event):
    """A failed call is tried again after a wait (the app's retry policy)."""

    kind: ClassVar[str] = "llm_call_retry"
    call_id: str
    """The attempt that failed."""
    retry_attempt: int
    """The attempt about to start, from 2."""
    retry_attempts: int
    """Attempts the policy allows in all."""
    wait: float
    """Seconds until that attempt starts."""
    error: str
    status: int | None = None


@dataclass(kw_only=True)
class LLMCallGivenUp(Event):
    """A person gave up a waiting retry: the call ends as failed, with the error of
    its last attempt, and the workflow takes that as the agent's failed answer."""

    kind: ClassVar[str] = "llm_call_given_up"
    call_id: str
    """The failed attempt whose retry was waited for."""
    retry_attempt: int
    """The attempt that will not be made."""
    retry_attempts: int
    error: str
    """The last attempt's error."""


@dataclass(kw_only=True)
class ProgramCandidate(Event):
    """A program produced by an agent (generator, self-debugger, clarified
    generator): emit one for each program a step writes, with the step, the
    role and the progression. The program view, compare and the bench's
    pass@1 after each step read these. ``steered_program`` emits its own for
    a person's program."""

    kind: ClassVar[str] = "program_candidate"
    program: str
    """The program, as extracted from the agent's answer (``extract_program``)."""


@dataclass(kw_only=True)
class SandboxRun(Event):
    kind: ClassVar[str] = "sandbox_run"
    purpose: str
    """Why the tests ran, in the workflow's own word; QualityFlow's:
    ``self_debug`` (the kept synthesized tests, feeding the debugger),
    ``after_debug`` (the same tests on the debugger's fix), ``python_checker``
    (the visible tests, relaxed setting)."""
    program: str
    results: list[dict[str, Any]]
    passed: int
    total: int
    load_error: str | None = None
    duration: float = 0.0
    isolation: str = ""


@dataclass(kw_only=True)
class ImaginedCheck(Event):
    """One visible test checked by imagined execution (Appendix G)."""

    kind: ClassVar[str] = "imagined_check"
    test: str
    function_call: str
    reasoning: str
    answer: str
    """The completed assert the model answered, as parsed from its reply."""
    value: str | None
    """The model's value expression that replaced the function call."""
    verdict: CheckVerdict
    detail: str = ""


@dataclass(kw_only=True)
class TestsDesigned(Event):
    kind: ClassVar[str] = "tests_designed"
    round: int
    tests: list[str]
    total: int
    """Distinct tests designed so far, after de-duplication."""
    rounds: int = 0
    """The rounds the design runs at most (0: not said)."""
    most: int = 0
    """The most tests the run keeps (0: not said)."""


@dataclass(kw_only=True)
class TQCVerdict(Event):
    kind: ClassVar[str] = "tqc_verdict"
    index: int
    test: str
    verdict: TestVerdict
    reasoning: str = ""
    value: str | None = None
    detail: str = ""


@dataclass(kw_only=True)
class Decision(Event):
    """A checker's control-flow decision after a check, emitted by the run
    function (``ctx.event(Decision(...))``) for the roles its spec lists in
    ``decided``: ``accept`` (the program stands), ``continue`` (on to the next
    step: a fix, another epoch), ``clarify`` (QualityFlow's clarifier) or
    ``revert`` (back to the first program)."""

    kind: ClassVar[str] = "decision"
    decision: DecisionWord
    """``accept``, ``continue``, ``clarify`` or ``revert``: what the core acts on."""
    reason: str = ""
    """Why, in a few words (the run screen and the headless log show it)."""
    word: str = ""
    """The workflow's own word for it (MapCoder's ``next plan`` for ``continue``),
    one its spec declares in ``decision_words``: the timeline, the headless log
    and the transcript say it; empty: the core's word."""

    @property
    def said(self) -> str:
        """The word a reader is shown: the workflow's own, else the core's."""
        return self.word or self.decision


RecordValue = str | int | float | bool | None
"""What a record's field may hold: a JSON scalar."""

#: What a record's kind and its fields' names may be.
RECORD_WORD = re.compile(r"[a-z][a-z0-9_]{0,63}\Z")


def record_problem(record: str, fields: object) -> str:
    """What is wrong with a record's kind or fields, in one line; empty: nothing."""
    if not isinstance(record, str) or not RECORD_WORD.match(record):
        return f"the record kind {record!r:.60} is not a word (a-z, 0-9, _)"
    if not isinstance(fields, dict):
        return f"record {record!r}: fields is a {type(fields).__name__}, not a dict"
    for name, value in fields.items():
        if not isinstance(name, str) or not RECORD_WORD.match(name):
            return f"record {record!r}: the field name {name!r:.60} is not a word (a-z, 0-9, _)"
        if value is not None and not isinstance(value, (str, int, float, bool)):
            return (
                f"record {record!r}: field {name!r:.60} is a {type(value).__name__}; "
                "give str, int, float, bool or None (a record is a flat row)"
            )
        if isinstance(value, float) and not math.isfinite(value):
            return f"record {record!r}: field {name!r:.60} is {value}, which JSON cannot hold"
    return ""


@dataclass(kw_only=True)
class Record(Event):
    """A row of a workflow's own data (MapCoder's recalled problems, a plan's
    confidence): a kind and a flat dict of JSON scalars. Saved in the session,
    replayed and forked like any event; a workflow's :class:`Pane
    <qflow_tui.core.workflows.base.Pane>` of that kind shows the rows, and
    ``qflow solve`` prints a line for each. Emit it with ``ctx.event(Record(...))``.

    A bad kind or field raises :class:`ValueError` when the record is made."""

    kind: ClassVar[str] = "record"
    record: str
    """The record's kind, a word (a-z, 0-9, _): ``plan``, ``recalled``."""
    fields: dict[str, RecordValue] = field(default_factory=dict)
    """Its fields, in the order a pane shows them by default: ``{"plan": 2,
    "confidence": 85}``. Names are words (a-z, 0-9, _); values are str, int,
    float (finite), bool or None."""
    key: str = ""
    """A later record of the same kind, progression and key replaces this one
    (a plan's confidence updated); empty: always a row of its own."""

    def __post_init__(self) -> None:
        problem = record_problem(self.record, self.fields)
        if problem:
            raise ValueError(problem)


@dataclass(kw_only=True)
class GateStop(Event):
    """The run reached a step gate (emitted before the gate is awaited, whether
    the gate is stepping or open), so replay can stop exactly where a live run
    stopped: before ``agent``'s work at ``step``."""

    kind: ClassVar[str] = "gate_stop"
    check: bool = False
    """The agent checks the program the step's first agent wrote (the
    workflow's checker), rather than starting the step."""


@dataclass(kw_only=True)
class Steered(Event):
    """A person changed what the workflow carries on with: who, what, from what, to what.

    ``what`` is ``program`` (the progression's program at ``step``, in place of
    the agent's answer), ``verdict`` (the Code Quality Checker's decision),
    ``test verdict`` (a synthesized test kept or dropped over the Test Quality
    Checker), ``test`` (a synthesized test edited, added (``before`` empty) or
    deleted (``after`` empty)), ``tests`` (every synthesized test replaced) or
    ``statement`` (the problem statement the clarifier path reads)."""

    kind: ClassVar[str] = "steered"
    who: str = "user"
    what: SteeredWhat
    before: str = ""
    after: str = ""
    test: str = ""
    """The synthesized test a ``test verdict`` or ``test`` edit is about (its text before the edit)."""


@dataclass(kw_only=True)
class TreeNode(Event):
    """A search-tree node (CodeTree) created or updated; the latest event for a
    node id wins."""

    kind: ClassVar[str] = "tree_node"
    node: str
    parent: str | None = None
    strategy: str = ""
    code: str = ""
    passed: int = 0
    total: int = 0
    score: float | None = None
    """The Critic's score (or the pass rate when no Critic runs), None until scored."""
    action: CriticAction = ""
    """The Critic's action; ``""``: none yet."""
    feedback: str = ""
    """Execution feedback on the visible tests."""
    critique: str = ""
    """What the Critic said."""


@dataclass(kw_only=True)
class Notice(Event):
    kind: ClassVar[str] = "notice"
    level: NoticeLevel = "info"
    message: str = ""
    cause: str = ""
    """The error it reports, word for word, when it reports one (a failed call
    or round): a reader groups failures by it and never parses ``message``."""


@dataclass(kw_only=True)
class VisibleTestsRun(Event):
    """The final program run on the problem's visible tests in the sandbox,
    after the workflow decided (just before ``run_finished``): what a person
    reads of how the program did on the samples. It changes no verdict and the
    workflow never sees it (on MBPP the visible tests are the evaluation's, so
    nothing of it may feed back). The app's runs emit it (``run_workflow``'s
    ``visible_run``); a bench's do not, as the bench judges its programs itself."""

    kind: ClassVar[str] = "visible_tests_run"
    program: str
    problem_kind: Literal["function", "io"] = "function"
    """``io``: a stdin/stdout problem (its tests are input/output pairs)."""
    passed: int = 0
    total: int = 0
    results: list[dict[str, Any]] = field(default_factory=list)
    """One :class:`~qflow_tui.core.sandbox.report.TestOutcome` per visible test, as a dict."""
    load_error: str | None = None
    """Why the program could not load (a syntax error, an exception at import), if it could not."""
    never_read: int = 0
    """Failing stdin/stdout tests on which the program never read its input."""
    printed_nothing: int = 0
    """Failing stdin/stdout tests on which the program printed nothing."""
    timed_out: int = 0
    """Tests that ran out of time."""
    isolation: str = ""


@dataclass(kw_only=True)
class RunFinished(Event):
    kind: ClassVar[str] = "run_finished"
    final_program: str
    outcome: RunOutcomeWord
    """``unchecked``: no quality checker ran; ``rejected``: none accepted and no revert."""
    accepted_at: str | None
    first_program: str = ""
    llm_calls: int = 0
    tokens: dict[str, dict[str, int]] = field(default_factory=dict)
    duration: float = 0.0
    detail: str = ""
    """More about the result in words (CodeTree: which node was returned and why)."""
    node: str | None = None
    """The search-tree node whose program was returned (CodeTree), else None."""
    stops: dict[str, int] = field(default_factory=dict)
    """Model calls by how they ended (``finished``, ``max_tokens``, ``repetition``, ...)."""


@dataclass(kw_only=True)
class RunFailed(Event):
    kind: ClassVar[str] = "run_failed"
    error: str
    cancelled: bool = False


Sink = Callable[[Event], None]


class Emitter:
    """Numbers events and hands each one to every sink, in order.

    Sinks are plain callables; a sink that raises is reported once and dropped so
    that a broken consumer (say, a full disk under the session writer) cannot stop
    the run or starve the others.
    """

    def __init__(self, *sinks: Sink) -> None:
        self._sinks: list[Sink] = list(sinks)
        self._seq = 0
        self.errors: list[str] = []

    def add_sink(self, sink: Sink) -> None:
        self._sinks.append(sink)

    def __call__(self, event: Event) -> Event:
        self._seq += 1
        event.seq = self._seq
        if not event.ts:
            event.ts = time.time()
        for sink in list(self._sinks):
            try:
                sink(event)
            except Exception as exc:
                self.errors.append(f"{getattr(sink, '__name__', sink)!s}: {exc}")
                self._sinks.remove(sink)
        return event
