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
from typing import Literal, overload

_ONE_AT_A_TIME = threading.RLock()  # a finalizer that parses, on the same thread, must not deadlock


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
