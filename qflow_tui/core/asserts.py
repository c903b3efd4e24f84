"""Reading assert-style tests as syntax: where the call under test is, where the
expected value is, and how to rewrite either. Pure parsing: nothing here runs
the code it reads."""

from __future__ import annotations

import ast
import builtins
import gc
from collections import Counter
from dataclasses import dataclass

#: Names that are never the function under test even when called in an assert.
_NOT_ENTRY = set(dir(builtins)) | {"math", "isclose", "cmath", "np", "numpy", "re", "collections"}


class AssertSyntaxError(ValueError):
    """A test that is not a single assert statement; the message says why."""


#: Deepest expression a test may have. Every tool that walks an assert
#: (planning, rewriting, unparsing) recurses; honest tests stay far below.
MAX_NESTING = 100


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
        tree = ast.parse(src, mode=mode)
        too_deep = nesting_too_deep(tree, MAX_NESTING + 2)
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
    node = parse_assert(src)
    names: list[str] = []
    for sub in ast.walk(node.test):
        if isinstance(sub, ast.Call):
            name = _called_name(sub)
            if name and name not in _NOT_ENTRY and name not in names:
                names.append(name)
    return names


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
    """The outermost call to the function under test inside an assert."""

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

    end_line = node.end_lineno if node.end_lineno is not None else node.lineno
    end_col = node.end_col_offset if node.end_col_offset is not None else node.col_offset
    return to_char(node.lineno, node.col_offset), to_char(end_line, end_col)


def find_call(src: str, entry_point: str | None = None) -> CallSite | None:
    src = src.strip()
    node = parse_assert(src)
    if entry_point is None:
        names = called_functions(src)
        if not names:
            return None
        entry_point = names[0]
    for sub in ast.walk(node.test):  # breadth first: the outermost call comes first
        if isinstance(sub, ast.Call) and _called_name(sub) == entry_point:
            start, end = _offsets(src, sub)
            return CallSite(src[start:end], start, end)
    return None


def _contains(node: ast.AST, target: ast.AST) -> bool:
    return any(sub is target for sub in ast.walk(node))


def _expected_node(test: ast.expr, call: ast.Call) -> ast.expr | None:
    """The sub-expression that holds the value the call is compared against."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right = test.left, test.comparators[0]
        if _contains(left, call) and not _contains(right, call):
            return right
        if _contains(right, call) and not _contains(left, call):
            return left
        return None
    if isinstance(test, ast.Call):
        # math.isclose(f(x), y, ...) / isclose(y, f(x))
        args = test.args
        if len(args) >= 2:
            if _contains(args[0], call) and not _contains(args[1], call):
                return args[1]
            if _contains(args[1], call) and not _contains(args[0], call):
                return args[0]
        return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _expected_node(test.operand, call)
    if isinstance(test, ast.BinOp):
        return None
    return None


def _find_call_node(node: ast.Assert, entry_point: str) -> ast.Call | None:
    for sub in ast.walk(node.test):
        if isinstance(sub, ast.Call) and _called_name(sub) == entry_point:
            return sub
    return None


def _abs_diff_expected(test: ast.expr, call: ast.Call) -> ast.expr | None:
    # abs(f(x) - y) < eps
    if isinstance(test, ast.Compare) and isinstance(test.left, ast.Call) and _called_name(test.left) == "abs":
        inner = test.left.args[0] if test.left.args else None
        if isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Sub):
            if _contains(inner.left, call) and not _contains(inner.right, call):
                return inner.right
            if _contains(inner.right, call) and not _contains(inner.left, call):
                return inner.left
    return None


def expected_source(src: str, entry_point: str | None = None) -> str | None:
    """Source of the expected value the call is compared with, or None for
    shapes without one (``assert f(x)``, ``assert not f(x)``)."""
    src = src.strip()
    node = parse_assert(src)
    site = find_call(src, entry_point)
    if site is None:
        return None
    call = _find_call_node(node, entry_point or called_functions(src)[0])
    assert call is not None
    target = _abs_diff_expected(node.test, call) or _expected_node(node.test, call)
    if target is None:
        return None
    start, end = _offsets(src, target)
    return src[start:end]


def question_form(src: str, entry_point: str | None = None) -> str:
    """The assert with its expected value replaced by ``?`` (Appendix G, turn two).
    For shapes with no expected value, ``assert <call> == ?``."""
    src = src.strip()
    node = parse_assert(src)
    site = find_call(src, entry_point)
    if site is None:
        raise AssertSyntaxError("no call to the function under test")
    call = _find_call_node(node, entry_point or called_functions(src)[0])
    assert call is not None
    target = _abs_diff_expected(node.test, call) or _expected_node(node.test, call)
    if target is None:
        return f"assert {site.source} == ?"
    start, end = _offsets(src, target)
    return src[:start] + "?" + src[end:]


def replace_call(src: str, value_src: str, entry_point: str | None = None) -> str:
    """The assert with the call under test replaced by ``(value_src)``."""
    src = src.strip()
    site = find_call(src, entry_point)
    if site is None:
        raise AssertSyntaxError("no call to the function under test")
    return src[: site.start] + "(" + value_src + ")" + src[site.end :]
