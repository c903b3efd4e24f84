"""``call_values_sync`` gives the program's values as plain values (as APPS's
``output == expected`` compares them): a numpy scalar as its value, a
Counter-like as a dict, inside containers too; a numpy array, a deque and a
program's subclass of a built-in are refused with what they are. Honest
programs, at the default level."""

from __future__ import annotations

from sbhelpers import make

from qflow_tui.core.sandbox import Sandbox

PROGRAM = """\
from collections import Counter, OrderedDict, deque, namedtuple
P = namedtuple("P", "x y")
class MyInt(int):
    pass
try:
    import numpy as np
except ImportError:
    np = None
"""


def _values(sb: Sandbox, calls: list[str]) -> list[tuple[str, object, str | None]]:
    return [(r.status, r.value, r.error) for r in sb.call_values_sync(PROGRAM, calls)]


def test_stdlib_values_by_value() -> None:
    sb = make("auto", timeout=10.0)
    got = _values(
        sb,
        [
            "Counter('aab')",
            "[OrderedDict(a=1), (Counter(b=2),), {3: Counter()}]",
            "deque([1])",
            "P(1, 2)",
            "[MyInt(3)]",
            "{1, 2}",
            "frozenset({(1, OrderedDict(a=1)['a'])})",
            "[np.int64(2), {np.float64(0.5)}] if np else [2, {0.5}]",
            "np.array([1, 2]) if np else P(0, 0)",
        ],
    )
    assert got[0] == ("ok", {"a": 2, "b": 1}, None)
    assert got[1] == ("ok", [{"a": 1}, ({"b": 2},), {3: {}}], None)
    assert isinstance(got[1][1], list) and type(got[1][1][1]) is tuple
    assert got[2][0] == "error" and "deque" in str(got[2][2])
    assert got[3][0] == "error" and "P (a tuple subclass)" in str(got[3][2])
    assert got[4][0] == "error" and "MyInt (a int subclass)" in str(got[4][2])
    assert got[5] == ("ok", {1, 2}, None)
    assert got[6] == ("ok", frozenset({(1, 1)}), None) and type(got[6][1]) is frozenset
    assert got[7] == ("ok", [2, {0.5}], None)
    assert got[8][0] == "error" and ("numpy.ndarray (2,)" in str(got[8][2]) or "P (a tuple" in str(got[8][2]))
