"""A programming problem: its statement, visible unit tests and the entry point."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from .asserts import AssertSyntaxError, detect_entry_point, find_call, parse_assert, parse_python

#: Longest block of tests read (about 10 MB); parsing is linear up to it.
MAX_TESTS_CHARS = 10_000_000


class ProblemError(ValueError):
    """Input that cannot make a problem; the message names the line and the reason."""


@dataclass(frozen=True)
class TestCase:
    """One visible (or synthesized) assert-style unit test."""

    source: str
    """The assert statement, stripped; may span several lines."""
    line: int = 0
    """Line where it starts in the text it was parsed from (1-based; 0 if unknown)."""
    call: str = ""
    """Source of the call to the function under test."""

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "line": self.line, "call": self.call}


@dataclass
class Problem:
    statement: str
    tests: list[TestCase]
    entry_point: str
    title: str = ""
    task_id: str | None = None
    setup: str = ""
    """Code the tests need before they run (imports; MBPP's test_setup_code)."""

    @property
    def test_sources(self) -> list[str]:
        return [t.source for t in self.tests]

    def to_dict(self) -> dict[str, Any]:
        return {
            "statement": self.statement,
            "tests": [t.source for t in self.tests],
            "entry_point": self.entry_point,
            "title": self.title,
            "task_id": self.task_id,
            "setup": self.setup,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Problem:
        return make_problem(
            data["statement"],
            "\n".join(data["tests"]),
            entry_point=data.get("entry_point") or None,
            title=data.get("title", ""),
            task_id=data.get("task_id"),
            setup=data.get("setup", ""),
            allow_no_tests=not data["tests"],
        )


_IMPORT_RE = re.compile(r"^\s*(import|from)\s")


def split_statements(text: str) -> list[tuple[int, str]]:
    """Split a block of tests into top-level statements with their first line.

    Multi-line asserts (open brackets, backslashes) stay whole. A line that does
    not parse is reported with its number.
    """
    src = text.replace("\r\n", "\n").replace("\t", "    ")
    if len(src) > MAX_TESTS_CHARS:
        raise ProblemError(
            f"the tests are {len(src):,} characters long; at most {MAX_TESTS_CHARS:,} are read: split them up"
        )
    try:
        tree = parse_python(src)
    except SyntaxError as exc:
        line = exc.lineno or 0
        lines = src.splitlines()
        snippet = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        where = f"tests, line {line}" if line else "tests"
        if snippet and not snippet.startswith(("assert", "import", "from", "#")):
            raise ProblemError(
                f"{where}: not an assert (write each test as assert f(...) == expected): {snippet[:80]}"
            ) from None
        raise ProblemError(f"{where}: not valid Python ({exc.msg}): {snippet[:80]}") from None
    assert isinstance(tree, ast.Module)
    lines = src.splitlines()
    out: list[tuple[int, str]] = []
    for node in tree.body:
        seg = "\n".join(lines[node.lineno - 1 : node.end_lineno or node.lineno])
        out.append((node.lineno, _dedent_block(seg)))
    return out


def _dedent_block(seg: str) -> str:
    import textwrap

    return textwrap.dedent(seg).strip()


def parse_tests(text: str, entry_point: str | None = None) -> tuple[list[TestCase], str, str]:
    """Parse visible tests. Returns (tests, entry_point, setup).

    Import lines become setup code; anything else that is not an assert is an
    error naming its line.
    """
    if not text.strip():
        raise ProblemError("no tests given: paste at least one assert, e.g. assert add(1, 2) == 3")
    statements = split_statements(text)
    asserts: list[tuple[int, str]] = []
    setup: list[str] = []
    for line, stmt in statements:
        if _IMPORT_RE.match(stmt):
            setup.append(stmt)
            continue
        try:
            parse_assert(stmt)
        except AssertSyntaxError as exc:
            first = stmt.splitlines()[0][:80]
            raise ProblemError(f"tests, line {line}: {exc} (every test must be one assert): {first}") from None
        asserts.append((line, stmt))
    if not asserts:
        raise ProblemError("no assert found in the tests: write each test as assert f(...) == expected")
    if entry_point is None:
        entry_point = detect_entry_point([s for _, s in asserts])
        if entry_point is None:
            raise ProblemError(
                "could not tell which function the tests call: "
                "give the entry point, the name of the function under test"
            )
    elif not entry_point.isidentifier():
        raise ProblemError(f"entry point {entry_point!r} is not a Python function name")
    tests: list[TestCase] = []
    for line, stmt in asserts:
        site = find_call(stmt, entry_point)
        if site is None:
            raise ProblemError(f"tests, line {line}: does not call {entry_point}(): {stmt.splitlines()[0][:80]}")
        tests.append(TestCase(stmt, line, site.source))
    return tests, entry_point, "\n".join(setup)


def make_problem(
    statement: str,
    tests_text: str,
    *,
    entry_point: str | None = None,
    title: str = "",
    task_id: str | None = None,
    setup: str = "",
    allow_no_tests: bool = False,
) -> Problem:
    """``allow_no_tests``: a benchmark problem whose statement shows no example
    runs with no visible test (a hidden test is never shown instead); it needs
    ``entry_point``."""
    statement = statement.strip()
    if not statement:
        raise ProblemError("the problem statement is empty: describe what the function should do")
    tests: list[TestCase]
    if allow_no_tests and not tests_text.strip() and entry_point and entry_point.isidentifier():
        tests, entry, test_setup = [], entry_point, ""
    else:
        tests, entry, test_setup = parse_tests(tests_text, entry_point)
    full_setup = "\n".join(s for s in (setup.strip(), test_setup, _implied_imports(tests, setup + test_setup)) if s)
    return Problem(
        statement=statement,
        tests=tests,
        entry_point=entry,
        title=title or title_from(statement, task_id, entry),
        task_id=task_id,
        setup=full_setup,
    )


_DEF_RE = re.compile(r"^\s*def\s+(\w+)\s*\(")


def title_from(statement: str, task_id: str | None = None, entry_point: str = "") -> str:
    """A short title: a benchmark problem's id and entry point first (``humaneval/12
    longest: ...``), then the statement's gist: its first line of prose, skipping
    the imports and the ``def`` line of a HumanEval-style prompt for its docstring."""
    gist = ""
    for line in statement.strip().splitlines():
        text = line.strip().strip('"').strip("'").strip()
        if not text or _IMPORT_RE.match(line) or _DEF_RE.match(line) or text.startswith(("#", "@")):
            continue
        gist = text
        break
    gist = re.sub(r"^(write|create|implement)\s+(a|an)\s+(python\s+)?function\s+(to|that)\s+", "", gist, flags=re.I)
    if task_id:
        gist = f"{task_id} {entry_point}: {gist}" if gist else f"{task_id} {entry_point}"
    return (gist[:60] + "…") if len(gist) > 61 else gist


_MODULE_USE_RE = re.compile(r"\b(math|cmath|re|collections|itertools|heapq|string)\.")


def _implied_imports(tests: list[TestCase], setup: str) -> str:
    """MBPP's tests use ``math.isclose`` without importing math (its harness did):
    import the stdlib modules the tests name but do not import."""
    used = sorted({m for t in tests for m in _MODULE_USE_RE.findall(t.source)})
    return "\n".join(f"import {m}" for m in used if not re.search(rf"\bimport\s+{m}\b", setup))
