"""``qflow solve``: run a workflow headless, with a live progress display on a
terminal or one JSON object with ``--json``."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import events as ev
from ..core.config import EFFORTS
from ..core.pieces import RecordRow, record_line
from ..core.run_state import RunState
from ..core.run_text import RunText
from ..core.steps import decision_said
from . import Subparsers, fail
from .workflow_options import add_workflow_options, workflow_overrides

if TYPE_CHECKING:  # the run's modules load only when a command runs (``qflow --help`` stays fast)
    from typing import Unpack

    from ..core.config import RunConfig
    from ..core.problem import Problem
    from ..core.workflow_run import RunError, RunOptions, RunOutcome
    from ..core.workflows.base import Pane


def add_run_options(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """Options shared by every command that runs a workflow."""
    p.add_argument(
        "--model",
        help="provider/model (default: the config file's, else anthropic/claude-sonnet-5-5), "
        "e.g. openai/gpt-4.1, script/responder.py",
    )
    p.add_argument(
        "--base-url",
        help="the provider's API root, e.g. http://localhost:8080/v1, or a preset for a local server: "
        "ollama, vllm, lmstudio, llamacpp (default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL)",
    )
    p.add_argument(
        "--context-window",
        type=int,
        help="the model's context window in tokens, where the server does not report it (llama.cpp does)",
    )
    add_workflow_options(p)
    p.add_argument("--test-timeout", type=float, help="seconds each test may run in the sandbox (default 3)")
    p.add_argument(
        "--max-tokens", type=int, help="longest answer per model call (default 4096; lower it for small local contexts)"
    )
    p.add_argument(
        "--call-timeout",
        type=float,
        help="seconds one model call may take before it ends as that agent's failed answer (default 300; 0: none)",
    )
    p.add_argument(
        "--no-repetition-stop",
        dest="repetition_stop",
        action="store_const",
        const=False,
        help="let a model that repeats itself run on to max tokens (default: stop it and keep one copy)",
    )
    p.add_argument(
        "--no-prompt-cache",
        dest="prompt_cache",
        action="store_const",
        const=False,
        help="do not ask the provider to cache prompt prefixes (default: ask where it pays)",
    )
    p.add_argument(
        "--max-connections",
        dest="concurrency",
        type=int,
        help="most model calls in flight at once per provider; the limit adapts below it "
        "(halves on 429/overload, climbs back on success). Default: automatic",
    )
    p.add_argument("--seed", type=int, help="sampling seed where the API takes one (OpenAI, local servers)")
    p.add_argument(
        "--threads",
        type=int,
        help="CPU threads for a local/ model (default 0: chosen from the cores free when it starts)",
    )
    p.add_argument(
        "--effort",
        choices=EFFORTS,
        help="how much a reasoning model thinks before it answers (Claude 5: always thinks, billed as output; "
        "default: the model's own)",
    )
    p.add_argument(
        "--retries",
        type=int,
        help="attempts per model call when the provider is busy or the connection drops (default 5; 1: never retry)",
    )
    p.add_argument("--fallback-model", help="with a replay/ model: a live model for calls the recording lacks")


def config_overrides(args: argparse.Namespace) -> dict[str, Any]:
    keys = (
        "model",
        "base_url",
        "test_timeout",
        "fallback_model",
        "max_tokens",
        "call_timeout",
        "repetition_stop",
        "prompt_cache",
        "retries",
        "concurrency",
        "context_window",
        "seed",
        "effort",
        "threads",
    )
    return {**{k: getattr(args, k, None) for k in keys}, **workflow_overrides(args)}


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser("solve", help="solve a problem headless", description=__doc__)
    p.add_argument(
        "--problem",
        help="file with the problem statement ('-' for stdin), a judge's page (its samples are the tests), "
        "a problem file (JSON: statement and tests), or a benchmark id: mbpp/11, humaneval/12, a plugin "
        "dataset's, codecontests/0 (with --dataset-file)",
    )
    p.add_argument(
        "--resume",
        metavar="SESSION",
        help="run a recorded session's problem again with its settings, reusing every call it finished "
        "(no tokens spent on them); the rest is asked of its model (or --model)",
    )
    p.add_argument(
        "--tests",
        help="file with the visible tests, one assert each (multi-line asserts allowed); a benchmark id brings its own",
    )
    p.add_argument("--entry-point", help="name of the function under test (default: detected from the tests)")
    p.add_argument(
        "--dataset-file",
        metavar="FILE",
        help="a local copy of a dataset qflow does not ship, with --problem DATASET/N (0-based) or DATASET/NAME, "
        "e.g. --problem codecontests/3 --dataset-file test.jsonl",
    )
    add_run_options(p)
    p.add_argument("--session-dir", help="folder for the session file (default: the user data folder)")
    p.add_argument("--json", action="store_true", help="print one JSON object with the result")
    p.set_defaults(func=run)


def read_text(path: str, what: str) -> str:
    from ..core.userfiles import UserFileError, read_user_file

    try:
        return read_user_file(path, what)
    except UserFileError as exc:
        raise InputError(str(exc)) from None


class InputError(Exception):
    pass


def load_problem(
    problem_arg: str, tests_arg: str | None, entry_point: str | None, dataset_file: str | None = None
) -> Problem:
    """The problem ``--problem`` names (core/resolve.py: a file, a judge's
    page, a benchmark id, ``-`` for stdin), with ``--tests`` for a statement
    file. Raises :class:`InputError` with one line."""
    from ..core.problem import Problem
    from ..core.resolve import resolve_problem  # reads the datasets' registry: not for every --help

    found = resolve_problem(
        problem_arg, tests=tests_arg, entry_point=entry_point, dataset_file=dataset_file, stdin=True
    )
    if isinstance(found, Problem):
        return found
    if found.statement and not tests_arg:
        raise InputError(
            "the problem has no tests: give the visible tests with --tests FILE (one assert per test, or "
            "Input/Output blocks), write its samples as Input/Output blocks in it, or give a problem file "
            "(JSON, see docs/io-problems.md)"
        )
    raise InputError(found.message)


def run(args: argparse.Namespace) -> int:
    from ..core.config import ConfigError
    from ..core.problem import ProblemError
    from ..core.workflows.values import load_config

    if args.resume:
        return resume(args)
    if not args.problem:
        return fail("give the problem with --problem FILE (or a benchmark id such as mbpp/11), or --resume SESSION")
    try:
        problem = load_problem(args.problem, args.tests, args.entry_point, args.dataset_file)
        config = load_config(overrides=config_overrides(args))
    except (InputError, ProblemError, ConfigError) as exc:
        return fail(str(exc))
    session_dir = Path(args.session_dir).expanduser() if args.session_dir else None
    return run_headless(problem, config, json_out=args.json, session_dir=session_dir)


def resume(args: argparse.Namespace) -> int:
    """``--resume SESSION``: the recorded problem and settings, the recording as
    the model for every call it finished, a live model for the rest."""
    from ..core.resume import ResumeError, plan_resume

    if args.problem or args.tests:
        return fail("--resume runs the recorded problem: leave out --problem and --tests")
    try:
        plan = plan_resume(args.resume, model=args.model, base_url=args.base_url, overrides=config_overrides(args))
    except ResumeError as exc:
        return fail(str(exc))
    session_dir = Path(args.session_dir).expanduser() if args.session_dir else None
    return run_headless(plan.problem, plan.config, json_out=args.json, session_dir=session_dir)


def run_headless(
    problem: Problem, config: RunConfig, *, json_out: bool, session_dir: Path | None, **run_kwargs: Unpack[RunOptions]
) -> int:
    """Run a workflow without the app: live progress on a terminal, plain lines
    elsewhere, one JSON object with ``json_out``. Returns the exit code.
    ``run_kwargs`` go to :func:`run_workflow` (a fork's client, steering, header)."""
    from ..core.workflow_run import RunError, run_workflow

    sinks: list[ev.Sink] = []
    progress = None
    if not json_out and sys.stderr.isatty():
        progress = LiveProgress()
        sinks.append(progress)
    elif not json_out:
        sinks.append(PlainProgress())
    try:
        if progress:
            with progress:
                outcome = asyncio.run(run_workflow(problem, config, sinks=sinks, session_dir=session_dir, **run_kwargs))
        else:
            outcome = asyncio.run(run_workflow(problem, config, sinks=sinks, session_dir=session_dir, **run_kwargs))
    except RunError as exc:
        return run_failed(exc, json_out=json_out)
    if json_out:
        print(json.dumps(outcome.summary()))
    else:
        print_result(outcome)
    return 0


def run_failed(exc: RunError, *, json_out: bool) -> int:
    """A run that failed for good: its reason, its session (complete up to the
    failure) and how to resume it, unless a resume would fail the same way
    (:attr:`RunError.resumable`); with ``json_out`` one JSON object, the
    recorded summary of what finished plus ``error``."""
    session = getattr(exc, "session", None)
    if json_out:
        summary: dict[str, Any] = {"error": str(exc), "outcome": "failed", "session": session}
        if session:
            from ..core.session import SessionError, read_session

            try:
                summary = {**read_session(session).summary(), **summary}
            except SessionError:
                pass
        print(json.dumps(summary))
        return 1
    code = fail(str(exc), 1)
    if session and exc.resumable:
        print(f"qflow: session: {session} (resume it with: qflow solve --resume {session})", file=sys.stderr)
    elif session:
        # The recorded problem (or a bug of ours on the recorded answers) decides
        # the failure: a resume would fail the same way, so none is offered.
        print(f"qflow: session: {session}", file=sys.stderr)
    return code


def print_result(outcome: RunOutcome) -> None:
    """The result for a person, or for a pipe: piped, the program is written as
    it is and no line is wrapped, so ``> program.py`` and ``| tail -1`` (the
    session's path) give whole text."""
    from rich.console import Console
    from rich.syntax import Syntax

    from ..core.safe_text import clean

    console = Console()
    where = f" at {outcome.accepted_at}" if outcome.accepted_at else ""
    prog = f", progression {outcome.progression}" if outcome.progression is not None else ""
    style = {"accepted": "bold green", "reverted": "bold yellow"}.get(outcome.outcome, "bold")
    console.print(f"[{style}]{outcome.outcome.upper()}[/]{where}{prog}", soft_wrap=True)
    if getattr(outcome, "detail", ""):
        console.print(outcome.detail, markup=False, highlight=False, soft_wrap=True)
    if console.is_terminal:
        console.print(Syntax(outcome.final_program, "python", theme="ansi_dark", line_numbers=False, word_wrap=True))
    else:
        # Rich crops a highlighted line at the console's width (80 when piped).
        sys.stdout.write(clean(outcome.final_program).rstrip("\n") + "\n")
        sys.stdout.flush()
    tokens = outcome.total_tokens
    cut = ", ".join(
        f"{n} {reason.replace('_', ' ')}" for reason, n in sorted(outcome.stops.items()) if reason != "finished"
    )
    # Calls counted by qflow (no usage from the provider, a script, a cut call): said, so is the cost.
    n = tokens.estimated
    est = f" (the counts of {n} call{'s' if n != 1 else ''} estimated)" if n else ""
    console.print(
        f"{outcome.llm_calls} LLM calls, {tokens.input} tokens in, {tokens.output} out{est}, "
        f"{outcome.duration:.1f}s; "
        + (f"calls not finished: {cut}; " if cut else "")
        + _cost_text(outcome.cost).rstrip("; "),
        style="dim",
        soft_wrap=True,
    )
    console.print(f"session: {outcome.session}", style="dim", soft_wrap=True, markup=False, highlight=False)


def _cost_text(cost: dict[str, object]) -> str:
    if "total" in cost:
        dated = f", prices of {cost['prices_as_of']}" if cost.get("prices_as_of") else ""
        return f"cost ${cost['total']:.4f}{dated}; "
    if "unpriced" in cost:
        return "cost: unpriced; "
    return ""


def describe(event: ev.Event, decided: tuple[str, ...] = (), panes: tuple[Pane, ...] = ()) -> str | None:
    """One line for the events worth a line in a headless log: the quality
    checker's decisions, test design and filtering, skipped or failed steps,
    a workflow's records. ``decided``: the roles whose steps a decision event
    says (the workflow's spec names them), not logged twice; ``panes``: the
    workflow's panes, whose columns a record's line says."""
    prog = f"[p{event.progression}] " if event.progression is not None else ""
    match event:
        case ev.StepFinished(outcome="accepted" | "rejected" | "done") if event.agent in decided:
            return None  # the decision that follows says it
        case ev.StepFinished(outcome=outcome, detail=detail):
            # "stopped (stopped: the rule ...)": the outcome is said once.
            detail = detail.removeprefix(f"{outcome}: ") if detail else detail
            said = f" ({detail})" if detail else ""
            return f"{prog}{event.step} {event.agent or ''}: {outcome}{said}"
        case ev.Decision(reason=reason):
            verdict, word, rest = decision_said(event.said, reason)
            if verdict:
                return f"{prog}{event.step}: {verdict}, so {word.upper()}: {rest}"
            return f"{prog}{event.step}: {word.upper()}" + (f" - {rest}" if rest else "")
        case ev.Record():
            pane = next((p for p in panes if p.record == event.record), None)
            fields = [c.field for c in pane.table_columns] if pane is not None else None
            where = f"{event.step} " if event.step else ""
            row = RecordRow(event.record, event.fields, event.step, event.agent, event.progression)
            return f"{prog}{where}{record_line(row, fields)}"
        case ev.TestsDesigned(round=round_, tests=tests, total=total):
            return f"test designer round {round_}: {len(tests)} new, {total} in all"
        case ev.LLMCallFinished(stop_reason=stop) if stop != "finished":
            return f"{prog}{event.step} {event.agent}: answer cut: {event.detail or stop}"
        case ev.LLMCallFailed(stop_reason="timeout", error=error):
            return f"{prog}{event.step} {event.agent}: {error}"
        case ev.LLMCallRetry():
            return (
                f"{prog}{event.step} {event.agent}: {event.error}; retrying "
                f"(attempt {event.retry_attempt} of {event.retry_attempts}) in {event.wait:.1f} s"
            )
        case ev.Steered():
            from ..core.steer.edits import steered_words

            return f"{prog}{event.step}: {event.what} steered by {event.who} ({steered_words(event)})"
        case ev.RunFailed(error=error):
            return f"run failed: {error}"
        case ev.Notice(level=level, message=message):
            return f"{level}: {message}"
    return None


class OnceEach:
    """The log lines of a run, each failure said once: when many steps fail for
    the same reason (a server that cannot be reached fails every call), the
    first says why and the run's end says how many more failed alike; their
    retries are said once per round (attempt 2 of 5, 3 of 5, ...). The failures
    are counted by the run's projection, which the live status line reads too."""

    def __init__(self) -> None:
        self.state = RunState()
        self.retries: set[tuple[str, int]] = set()
        """(error, attempt) of the retries said: the calls of every progression
        retry alike when a server is down, and each round is said once."""

    def __call__(self, event: ev.Event) -> list[str]:
        self.state.apply(event)
        line = describe(event, self.state.decided, self.state.panes)
        match event:
            case ev.StepFinished(outcome="failed", detail=detail) if detail and self.state.failed_again(detail):
                return []
            case ev.Notice(cause=cause) if event.level != "info" and cause and self.state.failed_again(cause):
                return []
            case ev.LLMCallRetry(error=error, retry_attempt=attempt):
                if (error, attempt) in self.retries:
                    return []
                self.retries.add((error, attempt))
            case ev.RunFinished() | ev.RunFailed():
                again = sum(n - 1 for n in self.state.failures.values())
                lines = [f"({again} more failed for the same reason)"] if again else []
                # A failure said already: the command's last line repeats it, once.
                said = isinstance(event, ev.RunFailed) and event.error in self.state.failures
                return lines + ([line] if line and not said else [])
        return [line] if line else []


class PlainProgress:
    """Progress as plain lines on stderr (not a terminal: CI logs, pipes)."""

    def __init__(self) -> None:
        self.lines = OnceEach()

    def __call__(self, event: ev.Event) -> None:
        for line in self.lines(event):
            print(line, file=sys.stderr, flush=True)


class LiveProgress:
    """A live status line on a terminal (rich), with the decisions scrolling above."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.live import Live

        self.console = Console(stderr=True)
        self.live = Live(console=self.console, transient=True, refresh_per_second=8)
        self.started = time.monotonic()
        self.lines = OnceEach()

    def __enter__(self) -> LiveProgress:
        self.live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.live.__exit__(*exc)

    def __call__(self, event: ev.Event) -> None:
        from rich.text import Text

        for line in self.lines(event):
            self.console.print(line, highlight=False, markup=False)
        state = self.lines.state
        t = state.total_tokens()
        elapsed = time.monotonic() - self.started
        self.live.update(
            Text(
                f"{RunText(state).progress()}  |  {t.calls} calls  |  {t.input} in / {t.output} out  |  {elapsed:.1f}s",
                style="bold cyan",
            )
        )
