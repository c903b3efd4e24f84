"""``qflow`` with no command: load the settings and open the terminal app.

The bare ``qflow`` parser may carry these optional flags (each read with getattr,
so any subset works): ``--model``, ``--workflow`` and every workflow setting's
flag (``--checker``, ``--prompts``, ``--budget``, ...), ``--base-url``,
``--theme``, ``--step``, ``--break WHERE``, ``--problem FILE``, ``--tests FILE``, ``--replay SESSION``.
``python -m qflow_tui.commands.app`` accepts them all today.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from . import fail
from .workflow_options import add_workflow_options, workflow_overrides

_CONFIG_KEYS = ("model", "base_url", "test_timeout", "fallback_model", "theme", "max_tokens", "threads")


def add_app_options(p: argparse.ArgumentParser) -> None:
    """The flags the app understands (for the bare ``qflow`` parser too)."""
    p.add_argument("--model", help="provider/model, e.g. anthropic/claude-sonnet-5-5, script/tests/scripts/mbpp11.py")
    p.add_argument(
        "--base-url", help="the provider's API root (http://host:port/v1) or a preset: ollama, vllm, lmstudio, llamacpp"
    )
    add_workflow_options(p)
    p.add_argument(
        "--max-tokens", type=int, help="longest answer per model call (default 4096; lower it for small local contexts)"
    )
    p.add_argument(
        "--threads",
        type=int,
        help="CPU threads for a local/ model (default 0: chosen from the cores free when it starts)",
    )
    p.add_argument("--theme", help="qflow-dark, qflow-light or any Textual theme (remembered when changed in the app)")
    p.add_argument("--step", dest="step", action="store_true", default=None, help="start runs in step mode")
    p.add_argument(
        "--break",
        dest="breakpoints",
        action="append",
        metavar="WHERE",
        help="stop a run there (repeatable): agent:NAME (before each step of that agent), step:NAME "
        "(a step or stage: self_debug:2, self_debug), check:NAME (its program's check; check:all: every check), "
        "progression:N, decision:reject, decision:revert",
    )
    p.add_argument(
        "--problem",
        help="the problem: a file (statement + tests, a judge's page with its samples, JSON) "
        "or a benchmark id (humaneval/12, mbpp/11)",
    )
    p.add_argument("--tests", help="file with the visible tests")
    p.add_argument("--replay", help="open a session file in replay")


def problem_texts(problem: str | None, tests: str | None) -> tuple[str | None, str | None, str | None]:
    """The form's statement, tests and entry point for ``--problem`` (and
    ``--tests``), read as ``qflow solve`` reads them (core/resolve.py): a
    judge's page opens as a stdin/stdout problem with its samples, a benchmark
    id as that problem. A statement with no test opens for the tests to be
    typed. Raises :class:`ProblemError` with one line."""
    from ..core.problem import Problem, ProblemError
    from ..core.resolve import form_texts, resolve_problem
    from ..core.userfiles import read_user_file

    if problem is None:
        return None, (read_user_file(tests, "tests", stdin=False) if tests else None), None
    found = resolve_problem(problem, tests=tests)
    if isinstance(found, Problem):
        return form_texts(found)
    if found.statement:
        return found.statement, "", None
    raise ProblemError(found.message)


def run(args: argparse.Namespace) -> int:
    from ..core.config import ConfigError
    from ..core.problem import ProblemError
    from ..core.userfiles import UserFileError
    from ..core.workflows.values import load_config, model_named
    from ..ui.app import create_app

    overrides: dict[str, Any] = {k: getattr(args, k, None) for k in _CONFIG_KEYS}
    overrides.update(workflow_overrides(args))
    try:
        config = load_config(overrides=overrides)
    except ConfigError as exc:
        return fail(str(exc))
    from ..core.steer.gate import Breakpoint, BreakpointError

    try:
        breakpoints = [Breakpoint.parse(text) for text in getattr(args, "breakpoints", None) or []]
    except BreakpointError as exc:
        return fail(f"--break: {exc}")
    try:
        problem_text, tests_text, entry_point = problem_texts(
            getattr(args, "problem", None), getattr(args, "tests", None)
        )
    except (ProblemError, UserFileError) as exc:
        return fail(str(exc))
    app = create_app(
        config,
        problem_text=problem_text,
        tests_text=tests_text,
        replay_path=getattr(args, "replay", None),
        stepping=bool(getattr(args, "step", False)),
        breakpoints=breakpoints,
        entry_point=entry_point,
        model_named=getattr(args, "model", None) is not None or model_named(),
    )
    result = app.run()
    return int(result or 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="qflow", description=__doc__)
    add_app_options(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
