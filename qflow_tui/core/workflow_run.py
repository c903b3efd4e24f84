"""Running a workflow end to end: build the model client and sandbox, open the
session file, emit the run's first and last events. Used alike by the app,
``qflow solve``, ``qflow bench`` and the tests."""

from __future__ import annotations

import asyncio
import datetime
import time
import traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from ..locations import sessions_dir
from .config import RunConfig
from .context import RunContext
from .events import Emitter, Notice, RunFailed, RunFinished, RunStarted, Sink
from .llm import LLMClient, LLMError, make_client, named_model
from .llm._http import is_local
from .llm.base import close_quietly
from .llm.prices import PriceError, load_prices, retirement_notice, run_cost
from .llm.retry import RetryWaits
from .problem import Problem
from .running import running_problem
from .sandbox import Sandbox, SandboxConfig, SandboxUnavailable, pool
from .session import SessionWriter, new_session_path
from .steer.edits import Steering
from .steer.gate import Gate, OpenGate
from .summary import RunSummary, SummaryRecord
from .visible_check import run_visible_tests
from .workflows import WORKFLOWS
from .workflows.values import recorded_config, validate


class RunError(Exception):
    """The run could not finish; the message is one line a user can act on."""

    session: str | None = None
    """The session file of the failed run (complete up to the failure), if one was written."""
    resumable: bool = True
    """False: a resume of the session would fail the same way (the recorded
    problem decides the failure, or a bug of ours ran on the recorded
    answers): ``qflow solve`` does not offer one."""

    def __init__(self, message: str, *, resumable: bool = True) -> None:
        super().__init__(message)
        self.resumable = resumable


@dataclass
class RunOutcome(RunSummary):
    """A run's summary plus what only a live run knows."""

    first_program: str = ""

    def summary(self) -> SummaryRecord:
        """The ``qflow solve --json`` object."""
        return self.to_dict()


class RunOptions(TypedDict, total=False):
    """The keyword arguments of :func:`run_workflow` that a caller such as
    ``qflow solve``'s ``run_headless`` passes on untouched."""

    client: LLMClient | None
    sandbox: Sandbox | None
    gate: Gate | None
    session_path: Path | None
    record: bool
    steering: Steering | None
    header: Mapping[str, object] | None
    close_client: bool
    retry_waits: RetryWaits | None
    visible_run: bool


def build_client(config: RunConfig) -> LLMClient:
    fallback = None
    window = config.context_window or None
    cache, effort = config.prompt_cache, config.effort
    if config.model.startswith("replay/") and config.fallback_model:
        fallback = make_client(
            config.fallback_model, base_url=config.base_url, context_window=window, prompt_cache=cache, effort=effort
        )
    return make_client(
        config.model,
        base_url=config.base_url,
        fallback=fallback,
        context_window=window,
        prompt_cache=cache,
        effort=effort,
        threads=config.threads,
    )


def build_sandbox(config: RunConfig) -> Sandbox:
    apply_sandbox_settings(config)
    return Sandbox(SandboxConfig(timeout=config.test_timeout))


def apply_sandbox_settings(config: RunConfig) -> None:
    """Warm sandbox children on or off for this process, as ``sandbox_warm`` says."""
    if pool.enabled() != config.sandbox_warm:
        pool.set_enabled(config.sandbox_warm)


def sampling_sent(client: LLMClient, config: RunConfig) -> dict[str, str]:
    """The sampling settings really sent to the model, in words, for the
    session header and the run's first event."""
    said = getattr(client, "sampling", None)
    if isinstance(said, dict):
        out = {str(k): str(v) for k, v in said.items()}
    else:  # script and replay models: nothing is sampled
        out = {"temperature": "not applicable (answers come from a script or a recording)"}
    if "seed" not in out:
        out["seed"] = f"sent: {config.seed}" if config.seed >= 0 else "not set"
    if getattr(client, "takes_effort", False):
        out["effort"] = f"sent: {config.effort}" if config.effort else "not set: the model's default"
    elif config.effort:  # asked for, and this provider has nowhere to send it: said, not dropped silently
        out["effort"] = f"not sent: {config.effort} (this provider takes none)"
    return out


async def run_workflow(
    problem: Problem,
    config: RunConfig,
    *,
    client: LLMClient | None = None,
    sandbox: Sandbox | None = None,
    sinks: Iterable[Sink] = (),
    gate: Gate | None = None,
    session_dir: Path | None = None,
    session_path: Path | None = None,
    record: bool = True,
    steering: Steering | None = None,
    header: Mapping[str, object] | None = None,
    close_client: bool = False,
    retry_waits: RetryWaits | None = None,
    visible_run: bool = False,
) -> RunOutcome:
    """Run ``config.workflow`` on ``problem``. Events go to ``sinks`` and, with
    ``record``, to a new session file. Raises :class:`RunError` (the session is
    kept, ending in a ``run_failed`` event) or ``asyncio.CancelledError``.
    ``steering`` (a :class:`qflow_tui.core.steer.Steering`) carries a person's
    edits; ``close_client`` closes a given ``client`` at the end; ``header``
    adds fields to the session header (a fork names its ``parent`` and ``forked_at``);
    ``retry_waits`` lets the caller give up a retry the run is waiting to make;
    ``visible_run``: once the workflow has decided, run its final program on the
    visible tests in the sandbox and tell how it did (a ``visible_tests_run``
    event, for the person only: the outcome stands as the workflow decided)."""
    validate(config)
    workflow = WORKFLOWS.get(config.workflow)
    if workflow is None:
        raise RunError(
            f"unknown workflow {config.workflow!r}: choose one of {', '.join(WORKFLOWS)} (`qflow workflows` lists them)"
        )
    try:
        sandbox = sandbox or build_sandbox(config)
    except SandboxUnavailable as exc:  # a weak level refused as root, or none at all
        raise RunError(f"the sandbox cannot run programs: {exc}") from None
    own_client = client is None or close_client
    try:
        client = client or build_client(config)
    except LLMError as exc:
        raise RunError(str(exc)) from None
    emitter = Emitter(*sinks)
    writer: SessionWriter | None = None
    if record:
        path = session_path or new_session_path(session_dir or sessions_dir(), problem.title or problem.entry_point)
        try:
            writer = SessionWriter(
                path,
                workflow=config.workflow,
                model=config.model,
                config=recorded_config(config),
                problem=problem.to_dict(),
                extra={"sampling": sampling_sent(client, config), **(header or {})},
            )
        except OSError as exc:
            raise RunError(f"cannot write the session file {path}: {exc.strerror}") from None
        emitter.add_sink(writer)
    ctx = RunContext(
        problem=problem,
        config=config,
        client=client,
        sandbox=sandbox,
        emit=emitter,
        gate=gate or OpenGate(),
        steering=steering,
        retry_waits=retry_waits or RetryWaits(),
    )
    started = time.monotonic()
    emitter(
        RunStarted(
            workflow=config.workflow,
            model=config.model,
            config=recorded_config(config),
            problem=problem.to_dict(),
            isolation=getattr(sandbox, "isolation", ""),
            sampling=sampling_sent(client, config),
            **workflow.described(config),
        )
    )
    named = named_model(config.model)
    if named is not None and named.note:
        emitter(Notice(level="info", message=named.note))  # its provider's word on it
    if retiring := retirement_notice(config.model, datetime.datetime.now(datetime.UTC).date().isoformat()):
        emitter(Notice(level="warning", message=retiring))
    try:
        running = running_problem.set(problem)
        try:
            result = await workflow.run(ctx)
            if visible_run:
                await _run_visible_tests(ctx, sandbox, result.final_program)
        except asyncio.CancelledError:
            emitter(RunFailed(error="cancelled by the user", cancelled=True))
            raise
        except LLMError as exc:
            emitter(RunFailed(error=str(exc)))
            raise RunError(str(exc), resumable=exc.resumable) from None
        except SandboxUnavailable as exc:
            message = f"the sandbox could not run the code: {exc}; `qflow doctor` shows what it found"
            emitter(RunFailed(error=message))
            raise RunError(message) from None
        except Exception as exc:  # a bug of ours: keep the session, say what happened
            # The whole traceback goes into the session (for a bug report); the
            # user gets one line.
            emitter(Notice(level="error", message="".join(traceback.format_exception(exc)).rstrip()))
            message = f"internal error: {type(exc).__name__}: {exc}"
            emitter(RunFailed(error=message))
            where = f"; the session with the details is {writer.path}" if writer is not None else ""
            raise RunError(f"{message} (a bug in qflow-tui, please report it{where})", resumable=False) from None
        finally:
            running_problem.reset(running)
    except BaseException as exc:
        if writer is not None:
            writer.close()
            if isinstance(exc, RunError):
                exc.session = str(writer.path)
        raise
    finally:
        if own_client:
            await close_quietly(client)
    duration = time.monotonic() - started
    replayed = getattr(client, "replayed", None)
    if isinstance(replayed, int) and getattr(client, "fallback", None) is not None:
        emitter(
            Notice(
                level="info",
                message=f"{_calls(replayed)} answered from the recording, {getattr(client, 'fell_back', 0)} "
                f"asked of {getattr(client.fallback, 'name', 'the live model')}",  # type: ignore[attr-defined]
            )
        )
    tokens = ctx.token_summary()
    cost = _cost(config.model, tokens, client)
    for err in emitter.errors:
        emitter(Notice(level="warning", message=f"an event consumer failed: {err}"))
    emitter(
        RunFinished(
            final_program=result.final_program,
            outcome=result.outcome,
            accepted_at=result.accepted_at,
            progression=result.progression,
            first_program=result.first_program,
            llm_calls=ctx.llm_calls,
            tokens=tokens,
            duration=duration,
            detail=result.detail,
            node=result.node,
            stops=dict(ctx.stops),
        )
    )
    if writer is not None:
        writer.close()
    return RunOutcome(
        final_program=result.final_program,
        outcome=result.outcome,
        accepted_at=result.accepted_at,
        progression=result.progression,
        llm_calls=ctx.llm_calls,
        tokens=tokens,
        session=str(writer.path) if writer else None,
        duration=duration,
        first_program=result.first_program,
        warnings=list(emitter.errors),
        detail=result.detail,
        stops=dict(ctx.stops),
        cost=cost,
    )


async def _run_visible_tests(ctx: RunContext, sandbox: Sandbox, program: str) -> None:
    """The final program on the visible tests (see :mod:`.visible_check`); a
    sandbox that cannot run it costs the run nothing but a notice."""
    try:
        event = await run_visible_tests(sandbox, ctx.problem, program)
    except Exception as exc:  # information only: the run has already decided
        ctx.emit(Notice(level="warning", message=f"the final program was not run on the visible tests: {exc}"))
        return
    if event is not None:
        ctx.emit(event)


def _cost(model: str, tokens: dict[str, dict[str, int]], client: LLMClient) -> dict[str, Any]:
    try:
        prices = load_prices()
    except PriceError as exc:
        return {"unpriced": model, "error": str(exc)}
    return run_cost(model, tokens, prices, local=is_local(str(getattr(client, "base_url", "") or "")))


def _calls(n: int) -> str:
    """``1 call``, ``2 calls``: a count a person reads ("1 calls" read as a slip)."""
    return f"{n} call" if n == 1 else f"{n} calls"
