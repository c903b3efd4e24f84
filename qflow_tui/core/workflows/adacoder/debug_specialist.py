"""AdaCoder's Debug Specialist (Zhu et al., IV-D, Algorithm 3): a rule-based
agent that fixes superficial errors with no model call. Three rules, in the
paper's order: code filtering (indentation normalisation), code truncation (an
overflowing last function is cut line by line until the code compiles) and
missing-module injection (a NameError naming a standard-library module or one
of its functions gets its import).

The code is only compiled here (``compile``, never run): compiling parses it
and runs none of it; running stays in the sandbox.
"""

from __future__ import annotations

import builtins
import importlib
import re
from dataclasses import dataclass, field

AGENT = "debug_specialist"

#: Longest program the rules work on: compiling is cheap, but not for any size.
MAX_CHARS = 200_000
_INDENT = 4

#: Standard-library modules a generated program commonly forgets to import, in
#: the order a name found in several of them is resolved (``sqrt``: math).
MODULES: tuple[str, ...] = (
    "math",
    "re",
    "collections",
    "itertools",
    "functools",
    "heapq",
    "bisect",
    "string",
    "operator",
    "statistics",
    "random",
    "copy",
    "fractions",
    "decimal",
    "datetime",
    "json",
    "sys",
    "typing",
    "cmath",
)

_NAME_ERROR = re.compile(r"NameError: name '(.+?)' is not defined")


def _build_database() -> dict[str, str]:
    """Every name -> the import that defines it: the modules themselves, then
    their public functions and classes (first module in :data:`MODULES` wins)."""
    db: dict[str, str] = {m: f"import {m}" for m in MODULES}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", None) or dir(module):
            if name.startswith("_") or name in db or hasattr(builtins, name):
                continue
            db[name] = f"from {module_name} import {name}"
    return db


#: The pre-built name database of Algorithm 3, line 34.
NAME_DATABASE: dict[str, str] = _build_database()


@dataclass
class DebugResult:
    code: str
    rules: list[str] = field(default_factory=list)
    """What was applied, in words: ``indentation normalised``, ``truncated 3 lines``,
    ``import math added``."""


def compiles(code: str) -> bool:
    """Whether ``code`` compiles (it is parsed and compiled, never run)."""
    if len(code) > MAX_CHARS:
        return False
    try:
        compile(code, "<program>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    return True


def compile_error(code: str) -> str | None:
    """The compiler's message (``IndentationError: ...``), or None when it compiles."""
    try:
        compile(code, "<program>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def normalise_indentation(code: str) -> str:
    """Algorithm 3, step 1 (code filtering): every indentation rounded down to
    a multiple of four spaces (tabs count four), and a block opened by a line
    ending in ``:`` indented one level deeper than that line when it is not."""
    lines = code.expandtabs(_INDENT).splitlines()
    levels: list[int | None] = []
    for line in lines:
        if line.strip():
            levels.append((len(line) - len(line.lstrip(" "))) // _INDENT)
        else:
            levels.append(None)
    stripped = [line.strip() for line in lines]
    for i in range(len(lines) - 1):
        current = levels[i]
        if current is None or not _opens_block(stripped[i]):
            continue
        j = i + 1
        while j < len(lines) and levels[j] is None:
            j += 1
        if j < len(lines):
            following = levels[j]
            if following is not None and following <= current:
                levels[j] = current + 1
    out = [" " * (_INDENT * lvl) + s if lvl is not None else "" for lvl, s in zip(levels, stripped, strict=True)]
    return "\n".join(_drop_fences(out)) + "\n"


def _opens_block(line: str) -> bool:
    code = line.split("#", 1)[0].rstrip() if "#" in line and not ("'" in line or '"' in line) else line.rstrip()
    return code.endswith(":") and not code.startswith(("#", "@"))


def _drop_fences(lines: list[str]) -> list[str]:
    """RemoveExtraneousBlocks: markdown fences left in the code."""
    return [line for line in lines if not line.strip().startswith("```")]


def _function_count(code: str) -> int:
    return len(re.findall(r"^\s*(?:async\s+)?def\s", code, flags=re.M))


def truncate_overflow(code: str) -> tuple[str, int]:
    """Algorithm 3, step 2 (code truncation): while the code does not compile and
    has more than one function, remove its last line. Returns the code and the
    number of lines removed; when no cut makes it compile, the code is returned
    unchanged (cutting would only lose code)."""
    lines = code.rstrip("\n").splitlines()
    removed = 0
    candidate = code
    while not compiles(candidate) and _function_count(candidate) > 1 and lines:
        lines.pop()
        removed += 1
        candidate = "\n".join(lines) + "\n"
    if removed and compiles(candidate):
        return candidate, removed
    return code, 0


def inject_missing_import(code: str, error: str) -> tuple[str, str | None]:
    """Algorithm 3, step 3 (missing-module injection): for a NameError whose
    name is in :data:`NAME_DATABASE`, the import goes first. Returns the code
    and the import added (None when the name is not a module or library name)."""
    found = _NAME_ERROR.search(error or "")
    if not found:
        return code, None
    statement = NAME_DATABASE.get(found.group(1))
    if statement is None or re.search(rf"^{re.escape(statement)}\s*$", code, flags=re.M):
        return code, None
    return f"{statement}\n{code}", statement


def debug(code: str, error: str) -> DebugResult:
    """Algorithm 3 on ``code`` with the Code Evaluator's ``error``. Each rule is
    applied where it has something to fix: indentation only when the compiler
    reports an indentation error, truncation only when the code still does not
    compile, the import only for a NameError."""
    result = DebugResult(code)
    if len(code) > MAX_CHARS:
        return result
    problem = compile_error(result.code)
    if problem and problem.startswith(("IndentationError", "TabError")):
        fixed = normalise_indentation(result.code)
        if fixed != result.code:
            result.code = fixed
            result.rules.append("indentation normalised")
    if not compiles(result.code):
        cut, removed = truncate_overflow(result.code)
        if removed:
            result.code = cut
            result.rules.append(f"overflowing last function truncated ({removed} lines removed)")
    result.code, added = inject_missing_import(result.code, error)
    if added:
        result.rules.append(f"missing import added: {added}")
    return result
