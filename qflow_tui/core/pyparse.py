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
"""

from __future__ import annotations

import ast
import threading
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
    with _ONE_AT_A_TIME:
        return ast.parse(source, mode=mode)
