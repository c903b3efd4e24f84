"""``qflow check``: run a program against its tests in the sandbox and print one
verdict per test (a table, or one JSON object with ``--json``): assert tests
for a function, or Input/Output blocks (a judge's samples) for a stdin/stdout
program, judged as the bench judges one. Exits 0 whenever the check ran,
whatever the verdicts."""

from __future__ import annotations

import argparse
import ast
import json
from typing import TYPE_CHECKING

from ..core.asserts import parse_python
from ..core.problem import MAX_TESTS_CHARS, ProblemError, looks_like_io_tests, parse_io_tests
from ..core.userfiles import UserFileError, read_user_file
from . import Subparsers, fail

if TYPE_CHECKING:  # types only: the modules load when the command runs
    from ..core.sandbox import SandboxReport


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser(
        "check", help="run a program against assert tests or stdin/stdout samples in the sandbox", description=__doc__
    )
    p.add_argument("--code", required=True, metavar="FILE", help="the program ('-' for stdin)")
    p.add_argument(
        "--tests",
        required=True,
        metavar="FILE",
        help="assert statements, one per test (multi-line asserts allowed; blank and comment lines ignored), "
        "or Input/Output blocks for a stdin/stdout program (docs/io-problems.md)",
    )
    p.add_argument("--setup", metavar="FILE", help="code run before the program (imports, helpers the tests use)")
    p.add_argument("--timeout", type=float, default=3.0, metavar="SECONDS", help="seconds per test (default 3)")
    p.add_argument("--entry-point", metavar="NAME", help="the function under test (default: the one most tests call)")
    p.add_argument(
        "--json",
        action="store_true",
        help='print {"results": [{"test", "status", "actual", "error"}], "passed", "total", "isolation"}',
    )
    p.set_defaults(func=run)


class TestFileError(ValueError):
    """A tests file that is not a sequence of assert statements."""

    __test__ = False  # not a pytest test class


def split_asserts(text: str) -> list[str]:
    """The top-level assert statements of ``text``, each as its source text.
    Linear in the size of ``text`` (a 10 MB file, a 1M-character line)."""
    if len(text) > MAX_TESTS_CHARS:
        raise TestFileError(f"{len(text):,} characters; at most {MAX_TESTS_CHARS:,} are read: split the file")
    try:
        tree = parse_python(text)
    except SyntaxError as exc:
        where = f"line {exc.lineno}: " if exc.lineno else ""
        raise TestFileError(f"{where}not valid Python ({exc.msg})") from None
    assert isinstance(tree, ast.Module)
    segments = _Segments(text)
    tests: list[str] = []
    for node in tree.body:
        if not isinstance(node, ast.Assert):
            raise TestFileError(
                f"line {node.lineno}: expected an assert statement, found {type(node).__name__.lower()}"
            )
        tests.append(segments.of(node))
    return tests


class _Segments:
    """Source text of nodes, by their positions: each line is split and
    encoded once (``ast.get_source_segment`` re-splits the whole text per
    call, which is quadratic over a file of asserts)."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines(keepends=True)
        self._encoded: dict[int, bytes] = {}

    def _line(self, lineno: int) -> bytes:
        data = self._encoded.get(lineno)
        if data is None:
            data = self._encoded[lineno] = self.lines[lineno - 1].encode("utf-8")
        return data

    def of(self, node: ast.stmt) -> str:
        end_lineno = node.end_lineno or node.lineno
        end_col = node.end_col_offset if node.end_col_offset is not None else len(self._line(end_lineno))
        if node.lineno == end_lineno:
            return self._line(node.lineno)[node.col_offset : end_col].decode("utf-8", "replace")
        first = self._line(node.lineno)[node.col_offset :].decode("utf-8", "replace")
        middle = "".join(self.lines[node.lineno : end_lineno - 1])
        last = self._line(end_lineno)[:end_col].decode("utf-8", "replace")
        return first + middle + last


def _read(path: str, what: str) -> str:
    return read_user_file(path, what)


def run(args: argparse.Namespace) -> int:
    from ..core.sandbox.config import timeout_problem

    # One rule for both kinds of tests, checked before any file is read.
    problem = timeout_problem(args.timeout)
    if problem is not None:
        return fail(f"--timeout {args.timeout:g}: {problem}")
    try:
        code = _read(args.code, "code")
        text = _read(args.tests, "tests")
        if looks_like_io_tests(text):
            return _run_io(args, code, text)
        tests = split_asserts(text)
        setup = _read(args.setup, "setup") if getattr(args, "setup", None) else ""
    except UserFileError as exc:
        return fail(str(exc))
    except TestFileError as exc:
        return fail(f"{args.tests}: {exc}")
    except OSError as exc:
        return fail(f"cannot read input: {exc}")
    if not tests:
        return fail(f"{args.tests}: no assert statements found")

    from ..core.sandbox import Sandbox, SandboxConfig, SandboxUnavailable

    try:
        sandbox = Sandbox(SandboxConfig(timeout=args.timeout))
        report = sandbox.run_tests_sync(code, tests, entry_point=getattr(args, "entry_point", None), setup=setup)
    except (SandboxUnavailable, ValueError) as exc:
        return fail(f"sandbox unavailable: {exc}", code=3)

    if args.json:
        out = {
            "results": [
                {"test": r.test, "status": r.status, "actual": r.actual, "error": r.error} for r in report.results
            ],
            "passed": report.passed,
            "total": report.total,
            "isolation": report.isolation,
        }
        if report.load_error:
            out["load_error"] = report.load_error
        print(json.dumps(out))
        return 0
    _print_table(report)
    return 0


def _run_io(args: argparse.Namespace, code: str, text: str) -> int:
    """The program on Input/Output samples, each in a fresh sandboxed process,
    its output compared as the bench compares a stdin/stdout problem's."""
    for flag in ("setup", "entry_point"):
        if getattr(args, flag, None):
            return fail(f"--{flag.replace('_', '-')} is for assert tests: a stdin/stdout program has neither")
    try:
        pairs = parse_io_tests(text)
    except ProblemError as exc:
        return fail(f"{args.tests}: {exc}")
    if not pairs:
        return fail(f"{args.tests}: no Input/Output pair found (an Input block, then an Output block)")
    from ..core.iojudge import io_config, judge_io_sync
    from ..core.sandbox import Sandbox, SandboxConfig, SandboxUnavailable

    try:
        report = judge_io_sync(Sandbox(io_config(SandboxConfig(timeout=args.timeout))), code, pairs)
    except (SandboxUnavailable, ValueError) as exc:
        return fail(f"sandbox unavailable: {exc}", code=3)
    if args.json:
        results = [
            {"input": i, "expected": o, "status": r.status, "actual": r.actual, "error": r.error}
            for (i, o), r in zip(pairs, report.results, strict=True)
        ]
        out = {"kind": "io", "results": results, "passed": report.passed, "total": report.total}
        print(json.dumps({**out, "isolation": report.isolation}))
        return 0
    _print_table(report, io=True)
    return 0


def _print_table(report: SandboxReport, io: bool = False) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from ..core.safe_text import clean, one_line

    console = Console(highlight=False)
    style = {"pass": "green", "fail": "red", "error": "yellow", "timeout": "magenta"}
    table = Table(show_lines=False, expand=False)
    table.add_column("#", justify="right")
    table.add_column("status")
    table.add_column("test", overflow="fold")
    table.add_column("actual / error", overflow="fold")
    for i, r in enumerate(report.results, 1):
        detail = r.actual if r.status == "fail" and r.actual is not None else (r.error or r.actual or "")
        if r.status == "fail" and r.actual is not None:
            detail = f"got {r.actual}"
        if io and r.status != "pass" and r.error and r.error != "wrong output":
            detail = r.error  # "the program printed nothing; it never read its input ..." says more
        first = detail.splitlines()[0] if detail else ""
        # Tests, values and errors come from files and programs: plain Text
        # (never markup), control sequences removed.
        table.add_row(
            str(i), Text(r.status, style=style.get(r.status, "")), Text(clean(r.test)), Text(one_line(first, 300))
        )
    if report.load_error:
        first_line = report.load_error.splitlines()[0] if report.load_error.strip() else report.load_error
        console.print(Text(f"program did not load: {one_line(first_line, 500)}", style="red"))
    console.print(table)
    # A stdin/stdout judge times each test's own process: the report's total is theirs.
    took = sum(r.duration or 0.0 for r in report.results) if io else report.duration
    console.print(
        Text(
            f"{report.passed}/{report.total} passed in {took * 1000:.0f} ms  ·  isolation: {one_line(report.isolation)}"
        )
    )
