"""One way from what a user gives to a :class:`~qflow_tui.core.problem.Problem`.

``qflow solve --problem``, the app's ``--problem``, its Load field (Ctrl+O)
and its Run key (the text pasted in the form) all go through here, so one
input means one problem everywhere:

- a file: a problem file (``.json``: ``statement`` and ``tests``; one line of
  ``.jsonl``), a text or markdown file (the statement, then its asserts), or a
  judge's page (the statement with ``Sample Input``/``Sample Output`` blocks
  and no assert: a stdin/stdout problem whose tests are its samples);
- a benchmark id, ``<dataset>/<id>``, of any dataset installed whose data
  ships (``humaneval/12``, ``mbpp/11``, a plugin's with ``shipped=True``), or
  of one read from a local copy (``codecontests/3`` with ``dataset_file``);
- pasted text (:func:`problem_from_text`): the statement and the tests box.

An existing file always wins over a benchmark id of the same spelling. What
cannot make a problem is an :class:`Unresolved`: one line saying what was
wrong and what to do, never an exception.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .bench.datasets import DATASETS, load_bench_problem
from .bench.sources import jsonl_problem, load_from_source, sources
from .problem import (
    Problem,
    ProblemError,
    ProblemKind,
    io_tests_text,
    looks_like_io_tests,
    make_io_problem,
    make_problem,
    parse_io_tests,
    problem_from_file_data,
    split_samples,
)
from .safe_text import one_line, valid_json_text
from .userfiles import UserFileError, read_user_file, split_problem_file

#: Which part of the input an :class:`Unresolved` is about (a form marks that field).
Where = Literal["spec", "statement", "tests", "entry_point"]


@dataclass(frozen=True)
class Unresolved:
    """Input that makes no problem, and why."""

    message: str
    """One line: what was wrong and what to do."""
    where: Where = "spec"
    statement: str = ""
    """The statement that was read when only the tests are missing (a form
    opens with it, for the user to type the tests)."""
    samples: bool = False
    """The statement shows sample blocks (a judge's page): a form names the
    key that takes them out."""


Resolution = Problem | Unresolved


def resolve_problem(
    spec: str,
    *,
    tests: str | None = None,
    entry_point: str | None = None,
    dataset_file: str | Path | None = None,
    stdin: bool = False,
    local_copy: str = "with --dataset-file FILE",
) -> Resolution:
    """The problem ``spec`` names: a file, a benchmark id or (``-`` with
    ``stdin``) standard input; ``tests`` is a file of visible tests (asserts,
    or Input/Output blocks) for a statement file; ``dataset_file`` a local
    copy of the dataset a ``<dataset>/<id>`` spec names; ``local_copy`` says
    how to give one (``{name}`` is the dataset's name)."""
    try:
        return _resolve(spec.strip(), tests, entry_point, dataset_file, stdin, local_copy)
    except (ProblemError, UserFileError) as exc:
        return Unresolved(one_line(str(exc), 600))


def _resolve(
    spec: str, tests: str | None, entry_point: str | None, dataset_file: str | Path | None, stdin: bool, copy: str
) -> Resolution:
    if not spec:
        return Unresolved("give a problem: a file, or a benchmark id such as mbpp/11 or humaneval/12")
    if dataset_file is not None or is_dataset_id(spec):
        if tests:
            return Unresolved(f"{spec} is a dataset problem with its own visible tests: leave out the tests")
        return dataset_problem(spec, dataset_file, copy)
    if spec == "-" and stdin:
        text, name = read_user_file("-", "problem"), "-"
    else:
        try:
            text = read_user_file(spec, "problem", stdin=False)
        except UserFileError as exc:
            if str(exc).endswith("no such file") and "/" in spec:
                name = spec.partition("/")[0]
                return Unresolved(
                    f"{exc}, and {name!r} is not a dataset installed: give a file, or a benchmark id "
                    f"(<dataset>/<id>) of one of {', '.join(sources())}"
                )
            raise
        name = spec
    if tests is not None:
        return problem_from_text(text, read_user_file(tests, "tests", stdin=stdin), entry_point=entry_point)
    return problem_from_file(text, name, entry_point)


def is_dataset_id(spec: str) -> bool:
    """``<dataset>/<id>`` naming a dataset installed (or shipped), and not an
    existing file (a file always wins)."""
    name, sep, ident = spec.strip().partition("/")
    if not sep or not ident.strip() or " " in name:
        return False
    if name.lower() not in DATASETS and name.lower() not in sources():
        return False
    return not Path(spec).expanduser().exists()


def dataset_problem(
    spec: str, dataset_file: str | Path | None = None, local_copy: str = "with --dataset-file FILE"
) -> Resolution:
    """``<dataset>/<id>``: a shipped set's problem by its id, a dataset read
    from a local copy by its 0-based index or name."""
    name, sep, ident = spec.strip().partition("/")
    name, ident = name.lower(), ident.strip()
    if not sep or not ident:
        return Unresolved(f"give the problem as DATASET/N (0-based) or DATASET/NAME, not {spec!r}")
    if dataset_file is None and name in DATASETS:
        return load_bench_problem(f"{name}/{ident}").problem
    found = sources().get(name)
    if found is None:
        return Unresolved(f"unknown dataset {name!r}: choose one of {', '.join(sources())}")
    if dataset_file is None and not found.shipped:
        where = f"; {found.where}" if found.where else ""
        return Unresolved(f"{name} is not shipped: give its local copy {local_copy.format(name=name)}{where}")
    path = Path(dataset_file).expanduser() if dataset_file is not None else None
    return load_from_source(name, path, ids=[ident])[0].problem


def problem_from_file(text: str, name: str, entry_point: str | None = None) -> Resolution:
    """A problem file's text as the problem it holds (``name`` says its kind
    by its suffix and names it in messages)."""
    suffix = Path(name).suffix.lower()
    if suffix == ".json" or (suffix not in (".md", ".markdown", ".jsonl") and text.lstrip().startswith("{")):
        return problem_from_json(text, f"problem file {name}")
    if suffix == ".jsonl":
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) != 1:
            return Unresolved(
                f"problem file {name}: holds {len(lines)} problems; give one with --problem jsonl/<task_id> "
                f"--dataset-file {name} (docs/guide/bring-a-dataset.md)"
            )
        return problem_from_json(lines[0], f"problem file {name}")
    if suffix in (".md", ".markdown"):
        text = plain_markdown(text)
    statement, tests = split_problem_file(text)
    if tests.strip():
        return problem_from_text(statement, tests, entry_point=entry_point)
    return problem_from_text(text, "", entry_point=entry_point)


def problem_from_json(text: str, where: str) -> Resolution:
    """A JSON problem (docs/io-problems.md): ``statement`` and ``tests`` (a
    list of asserts or of ``{"input", "output"}`` objects, or one text of
    either), or a record of qflow's JSONL dataset format (``hidden`` tests)."""
    try:
        data: object = json.loads(valid_json_text(text))
    except json.JSONDecodeError as exc:
        return Unresolved(
            f"{where}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            'a JSON problem is an object with "statement" and "tests"'
        )
    except (ValueError, RecursionError):
        return Unresolved(f"{where}: not valid JSON")
    if isinstance(data, dict) and "hidden" in data and "tests" not in data:
        return jsonl_problem(data, 0).problem
    if isinstance(data, dict) and isinstance(data.get("tests"), str):
        statement, tests, entry = data.get("statement"), str(data["tests"]), data.get("entry_point")
        if not isinstance(statement, str) or not (entry is None or isinstance(entry, str)):
            return Unresolved(f"{where}: 'statement' must be the problem's text and 'entry_point' a function name")
        return problem_from_text(statement, tests, entry_point=entry or None)
    return problem_from_file_data(data, where)


def problem_from_text(
    statement: str, tests: str, *, entry_point: str | None = None, kind: ProblemKind | None = None
) -> Resolution:
    """A problem from a statement and a block of tests, as pasted: asserts
    make a function problem, Input/Output blocks a stdin/stdout one. No tests
    and a statement with sample blocks (a judge's page): the samples are the
    tests and the rest the statement. ``kind``: the kind the user chose (None:
    read from the tests)."""
    if not statement.strip():
        return Unresolved(
            "the problem statement is empty: describe what the program should do", "statement", samples=False
        )
    io = looks_like_io_tests(tests) if kind is None else kind == "io"
    if not tests.strip():
        found = split_samples(statement)
        if found is None:
            what = (
                "write a line 'Input', the test's stdin, a line 'Output', its expected stdout"
                if io
                else "give at least one assert, e.g. assert add(1, 2) == 3, or Input/Output blocks "
                "for a program on stdin/stdout"
            )
            return Unresolved(f"no tests given: {what}", "tests", statement=statement)
        page, samples = found
        try:
            return make_io_problem(page, parse_io_tests(samples))
        except ProblemError as exc:
            return Unresolved(
                f"the statement's samples (stdin/stdout) cannot be read: {exc}", "statement", samples=True
            )
    if kind == "function" and looks_like_io_tests(tests):
        return Unresolved(
            "tests, line 1: these are Input/Output blocks of a stdin/stdout program, not asserts", "tests"
        )
    try:
        if io:
            if entry_point:
                return Unresolved("an entry point is for function problems: a stdin/stdout program has none")
            return make_io_problem(statement, parse_io_tests(tests))
        return make_problem(statement, tests, entry_point=entry_point)
    except ProblemError as exc:
        message = str(exc)
        where: Where = "tests"
        if message.startswith("the problem statement"):
            where = "statement"
        elif "entry point" in message.lower() and not message.startswith("tests"):
            where = "entry_point"
        return Unresolved(message, where)


_FENCE = re.compile(r"^\s*(```|~~~)[\w+-]*\s*$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_BOLD_LINE = re.compile(r"^\s*(\*\*|__)(.+?)\1\s*:?\s*$")


def plain_markdown(text: str) -> str:
    """A markdown problem as plain text: code fences dropped, heading marks
    and a whole-line bold taken off (``### Sample Input 1`` reads as the
    sample header it is; the asserts in a fence as asserts)."""
    out = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if _FENCE.match(line):
            continue
        line = _HEADING.sub("", line)
        bold = _BOLD_LINE.match(line)
        out.append(bold.group(2) if bold else line)
    return "\n".join(out)


def form_texts(problem: Problem) -> tuple[str, str, str | None]:
    """A problem as a form shows it: the statement, the tests box's text
    (asserts, after their imports; or Input/Output blocks) and the entry
    point (None for a stdin/stdout program)."""
    if problem.is_io:
        return problem.statement, io_tests_text([(t.input or "", t.output or "") for t in problem.tests]), None
    setup = "\n".join(line for line in problem.setup.splitlines() if line.strip().startswith(("import ", "from ")))
    tests = (setup + "\n" if setup else "") + "\n".join(problem.test_sources) + "\n"
    return problem.statement, tests, problem.entry_point


__all__ = [
    "Resolution",
    "Unresolved",
    "dataset_problem",
    "form_texts",
    "is_dataset_id",
    "plain_markdown",
    "problem_from_file",
    "problem_from_json",
    "problem_from_text",
    "resolve_problem",
]
