"""The child side of the sandbox: a stdlib-only script that runs inside the
limited process, evaluates test sub-expressions and the program's values, and
reports them as plain data on a private pipe. It never decides a verdict for an
untrusted program; the parent does (see ``verdict.py``).

The script is kept as parts, one file each, in :data:`PARTS`' order:
``prelude`` (the builtins bound before any untrusted code runs, the imports,
the JSON helpers), ``codec`` (the value codec and the strict comparison),
``channel`` (the pipe, the requests, alarms, limits and the guardian),
``lockdown`` (Landlock and seccomp), ``values`` (a program's values as plain
data), ``oracle`` (the trusted oracle), ``modes`` (the program and oracle
modes), ``main`` (the child's entry) and ``zygote`` (the forking zygote, and
the script's last line). :func:`joined_source` joins them into the one script
the launcher compiles (``launch.harness_source``): each part without its
header.

A part's header (between :data:`HEADER_BEGIN` and :data:`HEADER_END`) holds its
docstring and imports the names it uses from the parts before it: that makes
each part a module that ruff and mypy read on its own, and that the parent
imports (``sandbox.codec`` imports the codec; tests import the oracle's
pieces). In the joined script every part shares one namespace, so the headers
are left out. Keep every part importable without side effects, stdlib only,
and valid Python 3.8+ (the child interpreter may be the system one); a part
imports only from parts before it.
"""

from __future__ import annotations

from pathlib import Path

#: The parts of the child script, in the order they are joined.
PARTS = ("prelude", "wire", "codec", "channel", "lockdown", "values", "oracle", "modes", "main", "zygote")

#: The lines that open and close a part's header (left out of the joined script).
HEADER_BEGIN = "# -- part header: for ruff and mypy; the launcher leaves it out --\n"
HEADER_END = "# -- end of part header --\n"

_HERE = Path(__file__).parent


class MissingPart(RuntimeError):
    """A part of the child script is missing or malformed (a broken install)."""


def joined_source(folder: Path | None = None) -> str:
    """The child script: every part of :data:`PARTS` (from ``folder``, this
    package's by default) in order, each without its header."""
    folder = folder or _HERE
    pieces = []
    for name in PARTS:
        path = folder / f"{name}.py"
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise MissingPart(f"the sandbox's child script lacks its part {path} ({exc}): reinstall qflow") from None
        head, sep, rest = text.partition(HEADER_BEGIN)
        if sep:
            _, sep, rest = rest.partition(HEADER_END)
            if not sep or head.strip():
                raise MissingPart(f"the sandbox's child script part {path} has a broken header: reinstall qflow")
            text = rest
        pieces.append(text.strip("\n") + "\n")
    return "\n\n".join(pieces)
