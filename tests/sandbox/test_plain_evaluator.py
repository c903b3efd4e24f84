"""The app's own evaluator of an assert's spine (``verdict`` + ``plainops``),
run in-process over plain values (no program, no child): where it computes
it agrees with Python, and where it refuses (a value of the wrong type) it
says so in Python's own words, as the oracle process would."""

from __future__ import annotations

import cmath
import math

import pytest

from qflow_tui.core.sandbox.plainops import EvalError
from qflow_tui.core.sandbox.verdict import Ctx, plan_test


def _app(test: str, value: object) -> object:
    """The app's verdict: True/False, or the EvalError's text."""
    plan = plan_test(0, test, "f", [], local_names=frozenset())
    assert plan.mode == "parent" and plan.evaluate is not None, test
    try:
        return bool(plan.evaluate(Ctx([value], [])))
    except EvalError as exc:
        return str(exc)


def _python(test: str, value: object) -> object:
    """Python's verdict for the same assert, with ``f(...)`` giving ``value``."""
    expr = test.removeprefix("assert ")
    try:
        return bool(eval(expr, {"f": lambda *a: value, "math": math, "cmath": cmath}))
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


# (assert, value of f(1)): each runs wholly in the app's evaluator
CASES = [
    # ordering: values with no order get Python's words, mixed ones too
    ("assert f(1) < 2", None),
    ("assert f(1) <= 2", 1j),
    ("assert f(1) > {}", {}),
    ("assert f(1) >= None", 1),
    ("assert 2 < f(1)", None),
    ("assert f(1) < 2", [1]),
    ("assert f(1) < [2]", (1,)),
    ("assert f(1) < 2", 1.5),
    ("assert f(1) <= [1, 2]", [1, 2]),
    ("assert f(1) < {1, 2}", {1}),
    ("assert f(1) > 'a'", "b"),
    ("assert f(1) < b'b'", b"a"),
    ("assert f(1) < True", False),
    # indexing: a key of the wrong type, for each sequence
    ("assert f(1)['x'] == 1", [1]),
    ("assert f(1)[None] == 1", (1,)),
    ("assert f(1)[1.5] == 1", "abc"),
    ("assert f(1)[[0]] == 1", b"abc"),
    ("assert f(1)[True] == 2", [1, 2]),
    ("assert f(1)[1:] == [2]", [1, 2]),
    ("assert f(1)[::-1] == 'cba'", "abc"),
    ("assert f(1)['k'] == 2", {"k": 2}),
    ("assert f(1)[5] == 1", [1]),
    ("assert f(1)[0] == 1", 1),
    # arithmetic
    ("assert f(1) + [2] == [1, 2]", [1]),
    ("assert f(1) + (2,) == (1, 2)", (1,)),
    ("assert f(1) + 'b' == 'ab'", "a"),
    ("assert f(1) + b'b' == b'ab'", b"a"),
    ("assert f(1) * 2 == [1, 1]", [1]),
    ("assert 2 * f(1) == 'aa'", "a"),
    ("assert f(1) - {1} == {2}", {1, 2}),
    ("assert f(1) ** 2 == 9", 3),
    ("assert f(1) // 2 == 2", 5),
    ("assert -f(1) == -2", 2),
    ("assert ~f(1) == -3", 2),
    ("assert f(1) + 1j == 2 + 1j", 2),
    # builtins
    ("assert round(f(1)) == 2", 1.6),
    ("assert round(f(1), 1) == 1.5", 1.46),
    ("assert round(f(1)) == 1", 1j),
    ("assert abs(f(1)) == 5.0", 3 + 4j),
    ("assert sorted(f(1)) == [1, 2, 3]", [3, 1, 2]),
    ("assert sorted(f(1), reverse=True) == [3, 2, 1]", (3, 1, 2)),
    ("assert min(f(1)) == 1", [3, 1, 2]),
    ("assert max(f(1)) == 'b'", "ab"),
    ("assert sum(f(1)) == 6", [1, 2, 3]),
    ("assert int(f(1)) == 12", "12"),
    ("assert float(f(1)) == 1.5", "1.5"),
    ("assert dict(f(1)) == {1: 2}", [(1, 2)]),
    ("assert len(f(1)) == 2", {1: 2, 3: 4}),
    ("assert math.isclose(f(1), 1.0, rel_tol=1e-3)", 1.0001),
    ("assert cmath.isclose(f(1), 1j)", 1j),
    ("assert math.isclose(f(1), 1.0, rel_tol=1j)", 1.0),
    ("assert f(1).replace('a', 'bb') == 'bbc'", "ac"),
    ("assert f(1).real == 2", 2 + 3j),
]


@pytest.mark.parametrize(("test", "value"), CASES)
def test_the_evaluator_agrees_with_python(test: str, value: object) -> None:
    assert _app(test, value) == _python(test, value)


@pytest.mark.parametrize(
    ("test", "value", "words"),
    [
        ("assert f(1) < 2", None, "TypeError: '<' not supported between instances of 'NoneType' and 'int'"),
        ("assert f(1)['x'] == 1", "abc", "TypeError: string indices must be integers, not 'str'"),
        ("assert f(1)[None] == 1", b"a", "TypeError: byte indices must be integers or slices, not NoneType"),
        ("assert round(f(1)) == 1", 1j, "TypeError: type complex doesn't define __round__ method"),
        ("assert math.isclose(f(1), 1.0, rel_tol=1j)", 1.0, "TypeError: must be real number, not complex"),
        ("assert math.isclose(f(1), 1.0)", "1", "TypeError: isclose() needs numbers, got str"),
        ("assert f(1) + 'a' == 1", [1], "unsupported operand types for Add: list, str"),
    ],
)
def test_refusals_are_errors_in_pythons_words(test: str, value: object, words: str) -> None:
    assert _app(test, value) == words
