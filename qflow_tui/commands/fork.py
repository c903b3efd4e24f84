"""``qflow fork SESSION --at STEP``: a new run of a recorded session's problem
and settings that takes every model call made before STEP from the recording
(no model calls, no tokens) and runs live from STEP on, with your edits and, if
asked, another model or other settings. The original session is never changed;
the fork's session names it (``parent``) and the step (``forked_at``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import pyparse
from ..core.events import Event, TestsDesigned, TQCVerdict
from . import Subparsers, fail
from .solve import add_run_options

if TYPE_CHECKING:  # types only: the steering module loads when the command runs
    from ..core.steer.edits import Steering


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser("fork", help="fork a saved session at a step, with edits", description=__doc__)
    p.add_argument(
        "session",
        metavar="SESSION",
        help="the session to fork (never changed): its file, its number in `qflow sessions` (the # column) or its id",
    )
    p.add_argument(
        "--at",
        required=True,
        metavar="STEP",
        help="the step to branch at, by its name in the session: program_generator, self_debug:1, clarifier:2",
    )
    p.add_argument(
        "--progression",
        type=int,
        metavar="N",
        help="the progression whose step starts the branch and takes the edits (default: the first to reach STEP)",
    )
    p.add_argument(
        "--program-file",
        metavar="FILE",
        help="the program the progression ends STEP with, in place of the agent's answer (no model call for it)",
    )
    verdict = p.add_mutually_exclusive_group()
    verdict.add_argument(
        "--accept",
        dest="verdict",
        action="store_const",
        const=True,
        help="the Code Quality Checker's verdict on STEP's program: accept it (no model call for it)",
    )
    verdict.add_argument(
        "--reject",
        dest="verdict",
        action="store_const",
        const=False,
        help="the Code Quality Checker's verdict on STEP's program: reject it (no model call for it)",
    )
    tests = p.add_argument_group(
        "synthesized tests (taken into the kept set the self-debugger runs, at the first self-debug step "
        "from STEP on); N is the test's number on the app's Tests tab, 1 for the first the run designed"
    )
    tests.add_argument(
        "--keep-test",
        type=int,
        action="append",
        default=[],
        metavar="N",
        help="keep synthesized test N although the Test Quality Checker dropped it (repeatable)",
    )
    tests.add_argument(
        "--drop-test",
        type=int,
        action="append",
        default=[],
        metavar="N",
        help="drop synthesized test N although the Test Quality Checker kept it (repeatable)",
    )
    tests.add_argument(
        "--delete-test", type=int, action="append", default=[], metavar="N", help="delete synthesized test N"
    )
    tests.add_argument(
        "--add-test",
        action="append",
        default=[],
        metavar="ASSERT",
        help="add a test to the kept set, e.g. 'assert f(1) == 2' (repeatable)",
    )
    tests.add_argument(
        "--tests-file",
        metavar="FILE",
        help="replace every synthesized test by the asserts in FILE (all kept)",
    )
    p.add_argument(
        "--statement-file",
        metavar="FILE",
        help="the problem statement the clarifier and the clarified generator read (from the first clarifier "
        "step on); the other agents keep the original",
    )
    add_run_options(p)
    p.add_argument("--session-dir", help="folder for the fork's session file (default: the user data folder)")
    p.add_argument("--json", action="store_true", help="print one JSON object with the result")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..core.config import ConfigError, RunConfig
    from ..core.llm import LLMError, make_client
    from ..core.problem import Problem, ProblemError
    from ..core.session import SessionError, read_session
    from ..core.steer.edits import SteerError, Steering
    from ..core.steer.fork import ForkClient, ForkError, branch_point, program_stages, refusal
    from ..core.workflows import Edit
    from ..core.workflows.values import config_from_record, validate
    from .replay import recorded_config
    from .sessions import resolve_session_arg
    from .solve import InputError, read_text, run_headless

    try:
        path = resolve_session_arg(args.session)
        data = read_session(path)
    except SessionError as exc:
        return fail(str(exc))
    try:
        point = branch_point(data.events, args.at, args.progression)
    except ForkError as exc:
        return fail(f"{path.name}: {exc}")
    try:
        problem = Problem.from_dict(data.header["problem"])
    except (KeyError, TypeError, ProblemError) as exc:
        return fail(f"{path}: the recorded problem cannot be read ({exc})")
    progression = args.progression if args.progression is not None else point.progression
    steering = Steering()
    edits: list[str] = []
    stage = args.at.partition(":")[0]
    if (args.program_file or args.verdict is not None) and progression is None:
        return fail(f"{args.at} is a step of the whole run, not of a progression: edits apply to a progression's step")
    workflow = str(args.workflow or data.header.get("workflow") or RunConfig.workflow)
    raw = data.header.get("config")
    recorded: dict[str, Any] = raw if isinstance(raw, dict) else {}
    settings = config_from_record(recorded, workflow, strict=False)
    stages = ", ".join(program_stages(workflow))
    kinds: list[Edit] = []
    if args.program_file:
        kinds.append("program")
    if args.verdict is not None:
        kinds.append("verdict")
    why = refusal(workflow, settings, kinds)
    if why:
        return fail(why)
    target = 0 if progression is None else progression
    if args.program_file:
        if stage not in program_stages(workflow):
            return fail(f"--program-file replaces a program at {stages} steps, not at {args.at}")
        try:
            program = read_text(args.program_file, "program")
        except InputError as exc:
            return fail(str(exc))
        try:
            pyparse.parse(program)
        except SyntaxError as exc:
            return fail(f"{args.program_file}: not valid Python (line {exc.lineno}: {exc.msg}); fix it and fork again")
        steering.programs[(args.at, target)] = program
        edits.append(f"program of progression {progression} at {args.at} from {Path(args.program_file).name}")
    if args.verdict is not None:
        if stage not in program_stages(workflow):
            return fail(f"--accept/--reject override the quality check of {stages} steps, not {args.at}")
        steering.verdicts[(args.at, target)] = args.verdict
        edits.append(
            f"quality verdict of progression {progression} at {args.at}: {'accept' if args.verdict else 'reject'}"
        )
    try:
        edits += _test_and_statement_edits(args, steering, data.events, problem.entry_point, path.name)
    except (SteerError, InputError) as exc:
        return fail(str(exc))
    later: list[Edit] = []
    if steering.has_test_edits():
        later.append("tests")
    if steering.statement is not None:
        later.append("statement")
    why = refusal(workflow, settings, later)
    if why:
        return fail(why)
    live = args.model or str(data.header.get("model") or "")
    if live.startswith("replay/"):
        live = str(recorded.get("fallback_model") or "")
    if not live:
        return fail(f"{path.name}: the session names no live model; give --model for the calls from {args.at} on")
    base_url = args.base_url or recorded.get("base_url")
    try:
        config = recorded_config(data, args).replace(fallback_model=live, base_url=base_url)
        validate(config)
        fallback = make_client(live, base_url=base_url, context_window=config.context_window or None)
        client = ForkClient(path, fallback, point)
    except (ConfigError, LLMError) as exc:
        return fail(str(exc))
    header = {
        "parent": {"session": str(path.resolve()), "forked_at": args.at, "progression": progression},
        "forked_at": args.at,
        "edits": edits,
    }
    session_dir = Path(args.session_dir).expanduser() if args.session_dir else None
    code = run_headless(
        problem,
        config,
        json_out=args.json,
        session_dir=session_dir,
        client=client,
        close_client=True,
        steering=steering,
        header=header,
    )
    if client.live_before:
        fail(
            f"{len(client.live_before)} calls before {args.at} were not in the recording (other settings changed "
            f"their prompts) and were asked of {live}, the first: {client.live_before[0]}"
        )
    if steering:
        left = "; ".join(steering.pending())
        fail(f"an edit was not taken: the fork never reached where it applies ({left}); the run went another way")
    return code


def synthesized_tests(events: list[Event]) -> list[str]:
    """The run's synthesized tests in the order it designed them (the Tests tab's numbers, from 1)."""
    out: list[str] = []
    for e in events:
        if isinstance(e, TestsDesigned):
            out += [t for t in e.tests if t not in out]
    return out


def _test_and_statement_edits(
    args: argparse.Namespace, steering: Steering, events: list[Event], entry_point: str, name: str
) -> list[str]:
    """Put the test and statement flags into ``steering``; the edits in words. Raises
    SteerError / InputError (one line) for a number the session has no test for, a bad file."""
    from ..core.steer.edits import SteerError, check_test, check_tests
    from .solve import read_text

    edits: list[str] = []
    numbered = args.keep_test + args.drop_test + args.delete_test
    designed = synthesized_tests(events) if numbered else []

    def test(n: int, flag: str) -> str:
        if not designed:
            raise SteerError(f"{flag} {n}: {name} has no synthesized tests (its run designed none); use --tests-file")
        if not 1 <= n <= len(designed):
            raise SteerError(f"{flag} {n}: {name} has synthesized tests 1 to {len(designed)}")
        return designed[n - 1]

    verdicts = {e.test: e.verdict for e in events if isinstance(e, TQCVerdict)}
    for n in args.keep_test:
        t = test(n, "--keep-test")
        if verdicts.get(t) != "rejected":
            raise SteerError(f"--keep-test {n}: the Test Quality Checker did not drop test {n}; keep a test it dropped")
        steering.test_verdicts[t] = True
        edits.append(f"keep synthesized test {n}")
    for n in args.drop_test:
        t = test(n, "--drop-test")
        if steering.test_verdicts.get(t):
            raise SteerError(f"--drop-test {n}: test {n} is also given to --keep-test; choose one")
        if verdicts.get(t) == "rejected":
            raise SteerError(f"--drop-test {n}: the Test Quality Checker dropped test {n} already")
        steering.test_verdicts[t] = False
        edits.append(f"drop synthesized test {n}")
    for n in args.delete_test:
        steering.test_edits[test(n, "--delete-test")] = ""
        edits.append(f"delete synthesized test {n}")
    for text in args.add_test:
        steering.added_tests.append(check_test(text, entry_point))
        edits.append(f"add test {text.strip()}")
    if args.tests_file:
        if numbered or args.add_test:
            raise SteerError(
                "--tests-file replaces every synthesized test: give it without --keep/--drop/--delete/--add-test"
            )
        steering.tests = check_tests(read_text(args.tests_file, "tests"), entry_point, args.tests_file)
        edits.append(f"synthesized tests replaced by {Path(args.tests_file).name} ({len(steering.tests)})")
    if args.statement_file:
        statement = read_text(args.statement_file, "statement")
        if not statement.strip():
            raise SteerError(f"{args.statement_file} is empty: write the statement the clarifier should read")
        steering.statement = statement.strip()
        edits.append(f"statement for the clarifier from {Path(args.statement_file).name}")
    return edits
