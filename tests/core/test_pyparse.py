"""Parsing from several threads at once: CPython 3.11's AST constructor keeps its
recursion depth per interpreter, so two threads' parses can fail each other with
``SystemError: AST constructor recursion depth mismatch`` (a run in the app
failed so: the sandbox's executor thread and the app's thread parsed together).
qflow parses through ``core.pyparse.parse``, one thread at a time."""

from __future__ import annotations

import ast
import gc
import sys
import threading
import time
from pathlib import Path

import qflow_tui
from qflow_tui.core import pyparse

PACKAGE = Path(qflow_tui.__file__).parent

#: Runs in the sandbox's child process (one thread), and must not import qflow.
EXEMPT = {*(PACKAGE / "core" / "sandbox" / "harness").glob("*.py"), PACKAGE / "core" / "pyparse.py"}


def test_no_module_calls_ast_parse_itself():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path in EXEMPT:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "parse"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "ast"
            ):
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert not offenders, f"use qflow_tui.core.pyparse.parse: {offenders}"


SOURCE = "\n".join(
    f"def f{i}(x):\n    return [(a, {{b: (c, d)}}) for a in x if a for b in a for c, d in b]" for i in range(40)
)


class _Finalized:
    """Garbage whose finalizer runs Python code: where the interpreter may switch threads."""

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        sum(range(50))


def test_two_threads_parse_at_once_with_finalizers_running():
    errors: list[BaseException] = []
    stop = threading.Event()

    def parse_loop() -> None:
        while not stop.is_set():
            try:
                assert len(pyparse.parse(SOURCE).body) == 40
            except BaseException as exc:  # reported below
                errors.append(exc)
                stop.set()

    def churn() -> None:
        while not stop.is_set():
            for _ in range(200):
                _Finalized()

    # Unserialized, this failed within the second in every one of seven runs here.
    thresholds, switch = gc.get_threshold(), sys.getswitchinterval()
    gc.set_threshold(50, 5, 5)
    sys.setswitchinterval(1e-5)  # threads switch inside the finalizers far more often
    threads = [threading.Thread(target=parse_loop) for _ in range(2)] + [threading.Thread(target=churn)]
    try:
        for t in threads:
            t.start()
        time.sleep(1.0)
    finally:
        stop.set()
        for t in threads:
            t.join()
        gc.set_threshold(*thresholds)
        sys.setswitchinterval(switch)
    assert not errors, errors[0]


def test_eval_mode_and_errors_are_ast_parses():
    assert isinstance(pyparse.parse("f(1) == 2", mode="eval"), ast.Expression)
    try:
        pyparse.parse("def (")
    except SyntaxError as exc:
        assert exc.lineno == 1
    else:  # pragma: no cover
        raise AssertionError("no SyntaxError")


def test_a_program_with_an_invalid_escape_parses_without_a_warning():
    """MBPP's programs write regexes as "\\w": Python warns while parsing
    (a SyntaxWarning from 3.12, shown by default on the terminal). qflow's
    parse says nothing, whatever the filters."""
    import warnings

    from qflow_tui.core.pyparse import parse

    source = 'import re\ndef words(s):\n    return re.findall("\\w+", s)\n'
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would raise (as SyntaxError)
        tree = parse(source)
    assert tree.body[1].name == "words"  # type: ignore[attr-defined]
