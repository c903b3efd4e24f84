"""The check programs the bench's evaluator runs in the sandbox's trusted
oracle process (see ``evaluate``): real Python files, read as text and sent
to the oracle with the problem's values in place of their parameter block.

They run inside the oracle, never imported by the app: each file takes the
names the oracle binds for trusted check code (``__qf_limit__``,
``__qf_calls__``, ...; see ``sandbox.harness``) from its namespace. For mypy
and ruff each is an ordinary module: the oracle's names are declared in
``_oracle.pyi`` and imported under ``if __name__ == TYPE_CHECK``, a test
that is never true where the file runs, so the import costs nothing there.
Annotations that name a type from ``typing`` are quoted: the timed check is
appended to HumanEval's own check, where no ``from __future__`` can go.
"""

from __future__ import annotations

import functools
from pathlib import Path

#: The ``__name__`` under which a check file imports the oracle's names: never
#: the name of the namespace the oracle runs it in.
TYPE_CHECK = "qflow_tui.core.bench.checks.<type check>"

#: The lines that open and close a check file's parameters.
PARAMETERS_BEGIN = "# -- parameters: the evaluator writes the problem's values here --"
PARAMETERS_END = "# -- end of parameters --"

_HERE = Path(__file__).parent


class CheckFileError(RuntimeError):
    """A check file is missing or lacks its parameter block (a broken install)."""


@functools.cache
def _read(path: Path) -> str:
    """The file's text, read once a process (a bench judges every problem
    with it; an error is not kept, so a repaired install is read again)."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CheckFileError(f"the bench's check program {path} cannot be read ({exc}): reinstall qflow") from None


def source(name: str, **values: object) -> str:
    """The check file ``name`` (``timed`` or ``plus``) with its parameter
    block replaced by one ``NAME = repr(value)`` line per value; each
    parameter of the file must be given, and no other."""
    path = _HERE / f"{name}.py"
    text = _read(path)
    head, sep, rest = text.partition(PARAMETERS_BEGIN + "\n")
    block, sep2, tail = rest.partition(PARAMETERS_END + "\n")
    if not sep or not sep2:
        raise CheckFileError(f"the bench's check program {path} has no parameter block: reinstall qflow")
    names = [line.split(":", 1)[0].split("=", 1)[0].strip() for line in block.splitlines() if line.strip()]
    if sorted(names) != sorted(values):
        raise CheckFileError(f"{path}: parameters {sorted(names)}, given {sorted(values)}")
    lines = "".join(f"{n} = {values[n]!r}\n" for n in names)
    return head + lines + tail
