"""``ast.parse``, one thread at a time.

CPython 3.11 counts the AST constructor's recursion depth per interpreter, not
per thread. When a collection during one thread's parse runs a finalizer, the
interpreter may switch to another thread's parse, and either may then fail with
``SystemError: AST constructor recursion depth mismatch`` (python/cpython#106905
and its reports). qflow parses programs and tests on the event loop's thread,
in workflow threads and in the sandbox's executor threads at once: a run failed
with that error. Every parse in qflow goes through :func:`parse` (a test checks
that no module calls ``ast.parse`` itself); the sandbox's harness, a one-thread
child process, is the exception.

A parse never warns. Python warns of an invalid escape in a string (``"\\w"``,
common in MBPP's programs) while it parses; from 3.12 that is a SyntaxWarning,
printed by default to stderr, where the app's terminal is: a program's text
would reach the terminal, and a headless run's output would carry it.
"""

from __future__ import annotations

import ast
import threading
import warnings
from collections import OrderedDict
from typing import Literal, overload

_ONE_AT_A_TIME = threading.RLock()  # a finalizer that parses, on the same thread, must not deadlock

#: The top-level functions of the programs parsed lately, by their text: a
#: bench's extraction parses each answer on the event loop, and the sandbox's
#: thread that judges the program asks which functions it defines (see
#: ``verdict.callable_helpers``); the second parse of the same text was a
#: tenth of a millisecond of the app's time per check.
_TOP_LEVEL: OrderedDict[str, frozenset[str]] = OrderedDict()
_TOP_LEVEL_KEPT = 64
_TOP_LEVEL_LOCK = threading.Lock()


@overload
def parse(source: str, mode: Literal["exec"] = "exec") -> ast.Module: ...


@overload
def parse(source: str, mode: Literal["eval"]) -> ast.Expression: ...


@overload
def parse(source: str, mode: str) -> ast.AST: ...


def parse(source: str, mode: str = "exec") -> ast.AST:
    """``ast.parse(source, mode=mode)``, serialized across threads."""
    with _ONE_AT_A_TIME, warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return ast.parse(source, mode=mode)


def _functions_of(tree: ast.Module) -> frozenset[str]:
    return frozenset(n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))


def remember_functions(source: str, tree: ast.Module) -> None:
    """Keep ``tree``'s top-level functions for :func:`top_level_functions`
    (``tree`` is ``source``'s module, parsed by :func:`parse`)."""
    functions = _functions_of(tree)
    with _TOP_LEVEL_LOCK:
        _TOP_LEVEL[source] = functions
        _TOP_LEVEL.move_to_end(source)
        while len(_TOP_LEVEL) > _TOP_LEVEL_KEPT:
            _TOP_LEVEL.popitem(last=False)


def top_level_functions(source: str) -> frozenset[str]:
    """The names of the functions ``source`` defines at its top level (a
    ``def`` or an ``async def``); none when it does not parse. Parsed once
    for a text parsed lately (see :func:`remember_functions`)."""
    with _TOP_LEVEL_LOCK:
        known = _TOP_LEVEL.get(source)
    if known is not None:
        return known
    try:
        tree = parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    remember_functions(source, tree)
    return _functions_of(tree)
