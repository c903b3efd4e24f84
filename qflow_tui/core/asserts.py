"""Reading assert-style tests as syntax: where the call under test is, which
question imagined execution asks about it, how to read the value out of a
model's answer, and how to rewrite an assert. Pure parsing: nothing here runs
the code it reads."""

from __future__ import annotations

import ast
import builtins
import functools
import gc
from collections import Counter
from dataclasses import dataclass

from . import pyparse

#: Names that are never the function under test even when called in an assert.
_NOT_ENTRY = set(dir(builtins)) | {"math", "isclose", "cmath", "np", "numpy", "re", "collections"}

#: Functions whose first two arguments are "actual, expected" in either order
#: (``math.isclose(f(x), 1.57, rel_tol=0.001)``, Appendix G example 3).
_CLOSE_FUNCS = {"isclose", "allclose", "assertAlmostEqual", "approx_equal"}

#: Stands for the ``?`` while an assert with a hole is handled as syntax.
HOLE = "__qflow_hole__"


class AssertSyntaxError(ValueError):
    """A test that is not a single assert statement; the message says why."""


#: Deepest expression a test may have. Every tool that walks an assert
#: (planning, rewriting, unparsing) recurses; honest tests stay far below.
MAX_NESTING = 100


#: Levels of a tree no character of the source stands for, with room to spare.
SHALLOW_SLACK = 10


def nesting_too_deep(node: ast.AST, limit: int = MAX_NESTING) -> bool:
    """Whether ``node``'s tree is deeper than ``limit`` (iterative: any depth is safe)."""
    stack = [(node, 0)]
    while stack:
        cur, depth = stack.pop()
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(cur))
    return False


def parse_python(src: str, mode: str = "exec") -> ast.AST:
    """``ast.parse`` for outside text: every failure is a SyntaxError whose
    message says what to change (null bytes, nesting the parser or the tools
    after it cannot take), never a RecursionError or MemoryError."""
    # The collector would rescan the growing tree again and again: parsing a
    # 10 MB file of asserts went superlinear with it on.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        tree = pyparse.parse(src, mode=mode)
        # Each level of a tree takes at least one character of source (``-``
        # and ``~`` take one), but for the few nodes no character stands for
        # (the module, the statement, a name's context): a short source
        # cannot be too deep, and the walk was a third of planning a test.
        too_deep = len(src) > MAX_NESTING - SHALLOW_SLACK and nesting_too_deep(tree, MAX_NESTING + 2)
    except SyntaxError:
        raise
    except (RecursionError, MemoryError):
        raise SyntaxError("an expression is nested too deeply (a long chain of operators?)") from None
    except ValueError as exc:  # null bytes
        raise SyntaxError(str(exc)) from None
    finally:
        if was_enabled:
            gc.enable()
    if too_deep:
        raise SyntaxError(f"an expression is nested more than {MAX_NESTING} levels deep")
    return tree


def parse_assert(src: str) -> ast.Assert:
    try:
        tree = parse_python(src.strip())
    except SyntaxError as exc:
        raise AssertSyntaxError(f"not valid Python: {exc.msg}") from None
    assert isinstance(tree, ast.Module)
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert):
        raise AssertSyntaxError("not a single assert statement")
    return tree.body[0]


def _called_name(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    return None


def called_functions(src: str) -> list[str]:
    """Names of plain functions called in the assert, outermost first, excluding
    builtins and math helpers: the candidates for the function under test."""
    return list(_called_functions(src))


@functools.lru_cache(maxsize=4096)
def _called_functions(src: str) -> tuple[str, ...]:
    # Cached: every run of the sandbox reads its tests' entry point first,
    # and a run's tests are the same from one program to the next (a
    # workflow's iterations, a bench's samples); parsing them again was a
    # tenth of the app's part of a run.
    node = parse_assert(src)
    names: list[str] = []
    for sub in ast.walk(node.test):
        if isinstance(sub, ast.Call):
            name = _called_name(sub)
            if name and name not in _NOT_ENTRY and name not in names:
                names.append(name)
    return tuple(names)


def detect_entry_point(tests: list[str]) -> str | None:
    """The function most tests call (ties: the one called first)."""
    counts: Counter[str] = Counter()
    order: list[str] = []
    for t in tests:
        try:
            names = called_functions(t)
        except AssertSyntaxError:
            continue
        for n in names[:1]:
            counts[n] += 1
            if n not in order:
                order.append(n)
    if not counts:
        return None
    best = max(counts.values())
    return next(n for n in order if counts[n] == best)


@dataclass(frozen=True)
class CallSite:
    """The call to the function under test inside an assert: the first one in
    source order that is not nested in another (the one the sandbox replaces)."""

    source: str
    """Source text of the call, e.g. ``remove_Occ("hello","l")``."""
    start: int
    end: int
    """Character offsets of the call in the stripped assert source."""


def _offsets(src: str, node: ast.expr) -> tuple[int, int]:
    lines = src.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    # ast offsets are in UTF-8 bytes within a line; convert per line.
    def to_char(lineno: int, col: int) -> int:
        line = lines[lineno - 1]
        return starts[lineno - 1] + len(line.encode()[:col].decode(errors="ignore"))

    end_lineno = node.end_lineno if node.end_lineno is not None else node.lineno
    end_col = node.end_col_offset if node.end_col_offset is not None else node.col_offset
    return to_char(node.lineno, node.col_offset), to_char(end_lineno, end_col)


def _entry_calls(expr: ast.AST, entry_point: str) -> list[ast.Call]:
    """Calls to ``entry_point`` not nested inside another such call, in source
    order (the same order the sandbox uses to substitute an imagined value)."""
    found: list[ast.Call] = []

    def walk(node: ast.AST) -> None:
        if isinstance(node, ast.Call) and _called_name(node) == entry_point:
            found.append(node)
            return
        for child in ast.iter_child_nodes(node):
            walk(child)

    walk(expr)
    return found


def _call_node(node: ast.Assert, entry_point: str | None, src: str) -> ast.Call | None:
    if entry_point is None:
        names = called_functions(src)
        if not names:
            return None
        entry_point = names[0]
    calls = _entry_calls(node.test, entry_point)
    return calls[0] if calls else None


def find_call(src: str, entry_point: str | None = None) -> CallSite | None:
    src = src.strip()
    node = parse_assert(src)
    call = _call_node(node, entry_point, src)
    if call is None:
        return None
    start, end = _offsets(src, call)
    return CallSite(src[start:end], start, end)


def _func_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _direct_expected(test: ast.expr, call: ast.Call) -> ast.expr | None:
    """The expected value the call's own value is compared with, in the shapes
    where the call stands alone on one side: ``f(x) == y`` / ``y == f(x)``,
    ``isclose(f(x), y, ...)`` either way round, ``abs(f(x) - y) < eps`` either
    way round. In every other shape (``len(f(x)) == 3``, ``f(x)[0] == 1``,
    ``f(x) != 5``, ``f(x) in (3, 4)``, ``isinstance(f(x), list)``, ``f(x) is
    None``, ``not f(x)``) the assert does not hold the call's value, so there is
    no expected side to ask about."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        left, right = test.left, test.comparators[0]
        if left is call and not _contains(right, call):
            return right
        if right is call and not _contains(left, call):
            return left
        return None
    if isinstance(test, ast.Call) and _func_name(test.func) in _CLOSE_FUNCS and len(test.args) >= 2:
        first, second = test.args[0], test.args[1]
        if first is call:
            return second
        if second is call:
            return first
        return None
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], (ast.Lt, ast.LtE))
        and isinstance(test.left, ast.Call)
        and _func_name(test.left.func) == "abs"
        and len(test.left.args) == 1
        and isinstance(test.left.args[0], ast.BinOp)
        and isinstance(test.left.args[0].op, ast.Sub)
    ):
        diff = test.left.args[0]
        if diff.left is call:
            return diff.right
        if diff.right is call:
            return diff.left
    return None


def _contains(node: ast.AST, target: ast.AST) -> bool:
    return any(sub is target for sub in ast.walk(node))


def expected_source(src: str, entry_point: str | None = None) -> str | None:
    """Source of the expected value the call's value is compared with, or None
    for shapes that do not compare the call's own value with one (see
    :func:`_direct_expected`)."""
    src = src.strip()
    node = parse_assert(src)
    call = _call_node(node, entry_point, src)
    if call is None:
        return None
    target = _direct_expected(node.test, call)
    if target is None:
        return None
    start, end = _offsets(src, target)
    return src[start:end]


def question_form(src: str, entry_point: str | None = None) -> str:
    """Appendix G, turn two: the assert with ``?`` where the call's value goes.

    When the assert compares the call's own value with an expected value, the
    ``?`` replaces that value (``assert f(x) == ?``, ``assert
    math.isclose(f(x), ?, rel_tol=0.001)``). In every other shape the question
    asks for the call's value itself, ``assert f(x) == ?``; the value is then
    put in place of the call in the original assert, which is judged whole.
    """
    src = src.strip()
    node = parse_assert(src)
    call = _call_node(node, entry_point, src)
    if call is None:
        raise AssertSyntaxError("no call to the function under test")
    target = _direct_expected(node.test, call)
    if target is None:
        start, end = _offsets(src, call)
        return f"assert {src[start:end]} == ?"
    start, end = _offsets(src, target)
    return src[:start] + "?" + src[end:]


def replace_call(src: str, value_src: str, entry_point: str | None = None) -> str:
    """The assert with the call under test replaced by ``(value_src)``."""
    src = src.strip()
    site = find_call(src, entry_point)
    if site is None:
        raise AssertSyntaxError("no call to the function under test")
    return src[: site.start] + "(" + value_src + ")" + src[site.end :]


# -- reading a completed question ------------------------------------------------


def _fill(pattern: ast.AST, answer: ast.AST) -> ast.AST | bool | None:
    """Match ``answer`` against ``pattern`` (a question whose ``?`` is the name
    :data:`HOLE`): the sub-tree of ``answer`` standing in the hole, ``True``
    when they match without a hole, ``None`` when they differ."""
    if isinstance(pattern, ast.Name) and pattern.id == HOLE:
        return answer
    if type(pattern) is not type(answer):
        return None
    found: ast.AST | bool | None = True
    for name, pv in ast.iter_fields(pattern):
        if name == "ctx":
            continue
        av = getattr(answer, name, None)
        pairs: list[tuple[object, object]]
        if isinstance(pv, list):
            if not isinstance(av, list) or len(av) != len(pv):
                return None
            pairs = list(zip(pv, av, strict=True))
        else:
            pairs = [(pv, av)]
        for p, a in pairs:
            if isinstance(p, ast.AST):
                if not isinstance(a, ast.AST):
                    return None
                sub = _fill(p, a)
                if sub is None:
                    return None
                if isinstance(sub, ast.AST):
                    found = sub
            elif p != a:
                return None
    return found


def _segment(src: str, node: ast.expr) -> str:
    start, end = _offsets(src, node)
    return src[start:end].strip()


def value_from_assert(answer: str, question: str, entry_point: str) -> str | None:
    """The value a completed assert gives for the ``?`` of ``question``.

    The answer is matched against the question's shape first; an answer that
    reshaped it is still read when it compares the call's value directly
    (``assert f(x) == v``), or, when it renamed the function, from the right of
    its ``==``. None when no value can be read.
    """
    answer = answer.strip()
    try:
        node = parse_assert(answer)
    except AssertSyntaxError:
        return None
    try:
        pattern = parse_assert(question.replace("?", HOLE, 1))
    except AssertSyntaxError:
        pattern = None
    if pattern is not None:
        got = _fill(pattern.test, node.test)
        if isinstance(got, ast.expr):
            return _segment(answer, got) or None
    call = _call_node(node, entry_point, answer) if entry_point else None
    if call is not None:
        target = _direct_expected(node.test, call)
        return _segment(answer, target) if target is not None else None
    test = node.test
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        return _segment(answer, test.comparators[0]) or None
    return None
