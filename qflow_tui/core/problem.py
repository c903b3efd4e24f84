"""A programming problem: its statement, visible tests and how a program is judged.

Two kinds (``Problem.kind``):

- ``"function"``: the program defines ``entry_point``; each visible test is an
  assert (``TestCase.source``) calling it. HumanEval, MBPP, APPS's call-based
  problems.
- ``"io"``: the program is a whole script that reads stdin and writes stdout
  (CodeContests, APPS's standard-input problems, a judge's samples). Each test
  is a pair ``TestCase.input`` / ``TestCase.output`` (both plain text), and
  ``TestCase.source`` is a one-line rendering of it, ``input '1 2\\n' ->
  output '3\\n'``, used wherever a test needs a label (tables, events,
  sessions). ``entry_point`` is empty. ``time_limit`` (seconds per test) and
  ``memory_mb`` say what the problem allows, when it says.

How a workflow reads a problem: branch on ``problem.kind`` (or
``problem.is_io``); for ``"io"`` send ``problem.tests`` to the sandbox's
``run_io`` (see ``core/iojudge.py``) instead of ``run_tests``, and use the
prompts under ``prompts/<workflow>/io/``. How a screen reads it: show
``test.input`` and ``test.output`` (``test.is_io``) as two text blocks, else
``test.source``; ``test.source`` is always a safe one-line label.

Sessions store ``Problem.to_dict()``; ``Problem.from_dict`` reads both kinds and
the older function-only records (no ``kind`` field).
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from typing import Any, Literal

from .asserts import AssertSyntaxError, detect_entry_point, find_call, parse_assert, parse_python
from .jsontypes import JSONObject

#: Longest block of tests read (about 10 MB); parsing is linear up to it.
MAX_TESTS_CHARS = 10_000_000


class ProblemError(ValueError):
    """Input that cannot make a problem; the message names the line and the reason."""


@dataclass(frozen=True)
class TestCase:
    """One visible (or synthesized) test: an assert (a function problem's) or
    an input/output pair (an I/O problem's; ``input`` and ``output`` set)."""

    source: str
    """The assert statement, stripped; may span several lines. For an I/O
    test, its one-line rendering (see :func:`io_source`)."""
    line: int = 0
    """Line where it starts in the text it was parsed from (1-based; 0 if unknown)."""
    call: str = ""
    """Source of the call to the function under test."""
    input: str | None = None
    """An I/O test's stdin, exactly as given."""
    output: str | None = None
    """An I/O test's expected stdout, exactly as given."""

    @property
    def is_io(self) -> bool:
        """An input/output pair (``input`` and ``output`` set), not an assert."""
        return self.input is not None

    def to_dict(self) -> dict[str, object]:
        if self.is_io:
            return {"source": self.source, "line": self.line, "input": self.input, "output": self.output}
        return {"source": self.source, "line": self.line, "call": self.call}


#: Longest stretch of each of an I/O test's input and output shown in its one-line rendering.
IO_SOURCE_CHARS = 60


def _short_repr(text: str) -> str:
    shown = repr(text[:IO_SOURCE_CHARS])
    return shown + "…" if len(text) > IO_SOURCE_CHARS else shown


def io_source(input_text: str, output_text: str, *, whole: bool = False) -> str:
    """An I/O test's one-line label: ``input '1 2\\n' -> output '3\\n'``
    (each side cut to ``IO_SOURCE_CHARS`` characters unless ``whole``; escapes
    keep it one line). A whole label reads back as its pair
    (``iojudge.parse_io_source``): synthesized tests are labelled whole."""
    if whole:
        return f"input {input_text!r} -> output {output_text!r}"
    return f"input {_short_repr(input_text)} -> output {_short_repr(output_text)}"


def io_test(input_text: str, output_text: str, line: int = 0) -> TestCase:
    """An I/O test from its stdin and expected stdout."""
    if not isinstance(input_text, str) or not isinstance(output_text, str):
        raise ProblemError("an input/output test needs text for both its input and its output")
    return TestCase(io_source(input_text, output_text), line, "", input_text, output_text)


ProblemKind = Literal["function", "io"]
KINDS: tuple[ProblemKind, ...] = ("function", "io")


@dataclass
class Problem:
    """What a run is asked to solve: ``ctx.problem`` in a workflow's run
    function. Make one with :func:`make_problem` (asserts) or
    :func:`make_io_problem` (stdin/stdout samples), which check their input and
    raise :class:`ProblemError` with one line; a dataset's reader gets one from
    ``jsonl_problem``."""

    statement: str
    """The problem's text as the agents are shown it (a function problem's
    often ends with the signature or the docstring)."""
    tests: list[TestCase]
    """The visible tests: what the agents may see and a workflow may run.
    The tests that judge a program in a bench are the dataset's, not these."""
    entry_point: str
    """A function problem's function under test (``remove_Occ``); empty for an
    ``io`` problem, whose program is a whole script."""
    title: str = ""
    """A short name for lists and headings; empty: the statement's first words."""
    task_id: str | None = None
    """The dataset's id (``mbpp/11``, ``mycontest/leap``); None for a problem
    typed or pasted."""
    setup: str = ""
    """Code the tests need before they run (imports; MBPP's test_setup_code)."""
    kind: ProblemKind = "function"
    """``function`` (asserts on ``entry_point``) or ``io`` (a script on stdin/stdout)."""
    time_limit: float | None = None
    """Seconds each test may take, when the problem says (CodeContests does); None: the sandbox's."""
    memory_mb: int | None = None
    """Memory the problem allows in MB, when it says; the sandbox's caps still bound it."""

    @property
    def is_io(self) -> bool:
        """``kind == "io"``: the program reads stdin and writes stdout. A
        workflow branches on it for its prompts (``PromptLibrary.for_kind``;
        ``ctx.prompts`` is made for the kind already), for the program it
        extracts (a whole script, ``extract_program(answer, "")``) and for the
        feedback it gives (``execute_tests`` judges each input/output pair)."""
        return self.kind == "io"

    @property
    def test_sources(self) -> list[str]:
        """Each visible test as text: an assert, or an I/O pair's one-line label
        (``input '1 2\\n' -> output '3\\n'``). What ``execute_tests`` takes:
        for an ``io`` problem it finds the pairs again from the labels."""
        return [t.source for t in self.tests]

    def to_dict(self) -> JSONObject:
        out: dict[str, Any] = {
            "statement": self.statement,
            "tests": [t.source for t in self.tests],
            "entry_point": self.entry_point,
            "title": self.title,
            "task_id": self.task_id,
            "setup": self.setup,
        }
        if self.is_io:
            out["kind"] = "io"
            out["tests"] = [{"input": t.input, "output": t.output} for t in self.tests]
            out["time_limit"] = self.time_limit
            out["memory_mb"] = self.memory_mb
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Problem:
        if data.get("kind", "function") == "io":
            return make_io_problem(
                data["statement"],
                [(t["input"], t["output"]) for t in data["tests"]],
                title=data.get("title", ""),
                task_id=data.get("task_id"),
                time_limit=data.get("time_limit"),
                memory_mb=data.get("memory_mb"),
                allow_no_tests=True,
            )
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
    return cut_at_word(gist, 60)


def cut_at_word(text: str, width: int) -> str:
    """``text`` within ``width`` characters and an ellipsis, cut after a whole
    word where one ends in its last third (a title cut mid-word, "print thei…",
    reads as a typo in every heading and list that shows it)."""
    if len(text) <= width + 1:
        return text
    head = text[: width + 1]
    space = head.rfind(" ")
    cut = head[:space] if space >= width * 2 // 3 else text[:width]
    return cut.rstrip(" ,;:.-") + "…"


def whole_words(title: str, statement: str) -> str:
    """A title recorded before titles were cut at a word ("… print thei…"), cut
    back to its last whole word when ``statement`` shows the cut fell inside
    one; any other title as it is."""
    head = title[:-1]
    at = statement.find(head) if title.endswith("…") and head else -1
    if at < 0 or not statement[at + len(head) : at + len(head) + 1].isalnum():
        return title
    space = head.rfind(" ")
    return head[:space].rstrip(" ,;:.-") + "…" if space >= len(head) * 2 // 3 else title


_MODULE_USE_RE = re.compile(r"\b(math|cmath|re|collections|itertools|heapq|string)\.")


def _implied_imports(tests: list[TestCase], setup: str) -> str:
    """MBPP's tests use ``math.isclose`` without importing math (its harness did):
    import the stdlib modules the tests name but do not import."""
    used = sorted({m for t in tests for m in _MODULE_USE_RE.findall(t.source)})
    return "\n".join(f"import {m}" for m in used if not re.search(rf"\bimport\s+{m}\b", setup))


#: A per-test time limit a problem may ask for (seconds), and its memory (MB).
MAX_TIME_LIMIT = 600.0
MAX_MEMORY_MB = 1 << 20


def make_io_problem(
    statement: str,
    pairs: list[tuple[str, str]],
    *,
    title: str = "",
    task_id: str | None = None,
    time_limit: float | None = None,
    memory_mb: int | None = None,
    allow_no_tests: bool = False,
) -> Problem:
    """A stdin/stdout problem from its statement and (input, expected output)
    pairs. ``allow_no_tests``: a benchmark problem may show no sample (its
    statement then holds the examples, if any)."""
    statement = statement.strip() if isinstance(statement, str) else ""
    if not statement:
        raise ProblemError("the problem statement is empty: describe what the program should read and print")
    if not pairs and not allow_no_tests:
        raise ProblemError("no tests given: give at least one sample input and its expected output")
    tests = [io_test(i, o, n + 1) for n, (i, o) in enumerate(pairs)]
    if time_limit is not None:
        if (
            isinstance(time_limit, bool)
            or not isinstance(time_limit, (int, float))
            or not 0 < time_limit <= MAX_TIME_LIMIT
        ):
            raise ProblemError(
                f"time_limit {time_limit!r}: give seconds per test, more than 0 and at most {MAX_TIME_LIMIT:g}"
            )
        time_limit = float(time_limit)
    if memory_mb is not None and (
        isinstance(memory_mb, bool) or not isinstance(memory_mb, int) or not 0 < memory_mb <= MAX_MEMORY_MB
    ):
        raise ProblemError(f"memory_mb {memory_mb!r}: give a whole number of megabytes, more than 0")
    return Problem(
        statement=statement,
        tests=tests,
        entry_point="",
        title=title or title_from(statement, task_id, ""),
        task_id=task_id,
        kind="io",
        time_limit=time_limit,
        memory_mb=memory_mb,
    )


_IO_HEADER_RE = re.compile(
    r"^\s*(?:-+\s*)?(?:sample\s+|example\s+)?(input|output)(?:\s*#?\s*\d+)?\s*:?\s*(?:-+)?\s*$", re.I
)


def parse_io_tests(text: str) -> list[tuple[str, str]]:
    """Input/output pairs from pasted text (the paste format, docs/io-problems.md):
    a line ``Input`` (or ``Sample Input 1``, ``input:``, ``Example input``, any
    case) starts a test's stdin, a line ``Output`` its expected stdout; the
    lines between are taken as they are, each ending in a newline. Pairs come
    in order, input first."""
    if len(text) > MAX_TESTS_CHARS:
        raise ProblemError(
            f"the tests are {len(text):,} characters long; at most {MAX_TESTS_CHARS:,} are read: split them up"
        )
    pairs: list[tuple[str, str]] = []
    want = "input"
    current: str | None = None
    body: list[str] = []
    pending_input: str | None = None

    def close() -> None:
        nonlocal pending_input
        if current is None:
            return
        block = "".join(line + "\n" for line in _trim_blank(body))
        if current == "input":
            pending_input = block
        else:
            assert pending_input is not None
            pairs.append((pending_input, block))
            pending_input = None

    for n, line in enumerate(text.replace("\r\n", "\n").split("\n"), 1):
        m = _IO_HEADER_RE.match(line)
        if m:
            which = m.group(1).lower()
            if which != want:
                raise ProblemError(
                    f"tests, line {n}: {'an Output' if want == 'output' else 'an Input'} line was expected here, "
                    f"each test being an Input block then an Output block: {line.strip()[:80]}"
                )
            close()
            current, body, want = which, [], "output" if which == "input" else "input"
            continue
        if current is None:
            if line.strip():
                raise ProblemError(
                    f"tests, line {n}: text before the first Input line; start each test with a line "
                    f"'Input' and its expected stdout with a line 'Output': {line.strip()[:80]}"
                )
            continue
        body.append(line)
    close()
    if pending_input is not None:
        raise ProblemError("the last test has an Input block but no Output block: add a line 'Output' and its text")
    if not pairs:
        raise ProblemError(
            "no tests found: write a line 'Input', the test's stdin, a line 'Output', its expected stdout"
        )
    return pairs


def _trim_blank(lines: list[str]) -> list[str]:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def looks_like_io_tests(text: str) -> bool:
    """Whether a block of tests is in the paste format (its first non-blank
    line an ``Input`` header) rather than asserts."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    return bool(_IO_HEADER_RE.match(first))


def io_tests_text(pairs: list[tuple[str, str]]) -> str:
    """Input/output pairs in the paste format, read back by :func:`parse_io_tests`
    (a blank line between tests)."""
    blocks = []
    for n, (given, expected) in enumerate(pairs, 1):
        blocks.append(f"Input {n}\n{given.rstrip(chr(10))}\nOutput {n}\n{expected.rstrip(chr(10))}\n")
    return "\n".join(blocks)


#: A line after the last sample that starts prose again (a judge's "Note"):
#: it and what follows stay in the statement when samples are split off.
_SAMPLES_END_RE = re.compile(r"^\s*(notes?|explanations?|hints?)\s*:?\s*$", re.I)


#: A header that names itself a sample's (``Sample Input 1``, ``Example input``).
_SAMPLE_WORD_RE = re.compile(r"\b(sample|example)\b", re.I)

#: The title a judge's page puts over its samples.
_SAMPLES_TITLE_RE = re.compile(r"^\s*(examples?|samples?|sample tests?)\s*:?\s*$", re.I)


def split_samples(text: str) -> tuple[str, str] | None:
    """A pasted statement with its sample blocks (``Input``/``Output``
    headers) split in two: the statement (the text before the samples'
    first ``Input`` header, and any ``Note`` section after the samples) and the samples in the
    paste format; None when it has no ``Input`` header. The samples are read
    by :func:`parse_io_tests`, which says what is wrong with them."""
    lines = text.replace("\r\n", "\n").split("\n")
    inputs = [i for i, line in enumerate(lines) if (m := _IO_HEADER_RE.match(line)) and m.group(1).lower() == "input"]
    if not inputs:
        return None
    # A judge's page describes its Input and Output formats under headers of
    # those names before the samples: the samples start at the first header
    # that says so ("Sample Input 1"), or after the samples' title ("Examples").
    titled = [i for i in inputs if _SAMPLE_WORD_RE.search(lines[i])]
    title = next((i for i, line in enumerate(lines) if _SAMPLES_TITLE_RE.match(line)), len(lines))
    after_title = [i for i in inputs if i > title]
    start = (titled or after_title or inputs)[0]
    end = next((i for i in range(start, len(lines)) if _SAMPLES_END_RE.match(lines[i])), len(lines))
    head = lines[:start]
    while head and not head[-1].strip():
        head.pop()
    if head and _SAMPLES_TITLE_RE.match(head[-1]):
        head.pop()  # the samples' own title ("Examples") goes with them
    statement = "\n".join([*head, *lines[end:]]).strip()
    samples = "\n".join(lines[start:end]).strip("\n") + "\n"
    return statement, samples


def problem_from_file_data(data: object, where: str = "the problem file") -> Problem:
    """A problem from a problem file's JSON (docs/io-problems.md): ``statement``
    and ``tests`` are required; ``tests`` holds ``{"input": ..., "output": ...}``
    objects (an I/O problem) or assert strings (a function problem)."""
    if not isinstance(data, dict):
        raise ProblemError(f"{where}: expected a JSON object with 'statement' and 'tests'")
    statement, tests = data.get("statement"), data.get("tests")
    if not isinstance(statement, str) or not statement.strip():
        raise ProblemError(f"{where}: 'statement' must be the problem's text")
    if not isinstance(tests, list):
        raise ProblemError(f'{where}: \'tests\' must be a list of {{"input": ..., "output": ...}} objects or asserts')
    title = data.get("title", "")
    task_id = data.get("task_id")
    if not isinstance(title, str) or (task_id is not None and not isinstance(task_id, str)):
        raise ProblemError(f"{where}: 'title' and 'task_id' must be text")
    kind = data.get("kind") or ("io" if tests and all(isinstance(t, dict) for t in tests) else "function")
    if kind not in KINDS:
        raise ProblemError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
    if kind == "io":
        pairs = []
        for n, t in enumerate(tests, 1):
            if not isinstance(t, dict) or not isinstance(t.get("input"), str) or not isinstance(t.get("output"), str):
                raise ProblemError(f"{where}: test {n} must be an object with text 'input' and 'output'")
            pairs.append((t["input"], t["output"]))
        return make_io_problem(
            statement,
            pairs,
            title=title,
            task_id=task_id,
            time_limit=data.get("time_limit"),
            memory_mb=data.get("memory_mb"),
        )
    if not all(isinstance(t, str) for t in tests):
        raise ProblemError(f"{where}: a function problem's tests are assert strings")
    entry = data.get("entry_point") or None
    if entry is not None and not isinstance(entry, str):
        raise ProblemError(f"{where}: 'entry_point' must be a function name")
    return make_problem(statement, "\n".join(tests), entry_point=entry, title=title, task_id=task_id)
