"""Honest programs pass, wrong ones fail, across the assert shapes tests use;
imagined-execution verdicts (check_values); the strict comparison itself."""

from __future__ import annotations

import asyncio
import math
import threading

import pytest
from sbhelpers import live_harness_processes, make

from qflow_tui.core.sandbox import Sandbox, SandboxConfig, SandboxReport, TestOutcome
from qflow_tui.core.sandbox.harness.codec import decode_value, encode_value, strict_eq


@pytest.fixture(scope="module")
def strong() -> Sandbox:
    return make("auto", timeout=2.0)


@pytest.fixture(scope="module")
def weak() -> Sandbox:
    return make("rlimits", timeout=2.0)


PROGRAM = """
import math
def f(x):
    if x == "list":
        return [3, 1, 2]
    if x == "dict":
        return {"R": "Red", "B": "Blue"}
    if x == "float":
        return 0.1 + 0.2
    if x == "str":
        return "Hello"
    if x == "none":
        return None
    if x == "tuple":
        return (1, "a")
    if x == "bool":
        return True
    if x == "set":
        return {1, 2}
    return x * 2
"""

PASSING = [
    "assert f(2) == 4",
    "assert f(2) == 4.0",  # numbers compare by value, as in Python (MBPP relies on it)
    "assert f('bool') == 1",
    "assert f('set') == frozenset({1, 2})",
    "assert f(2) != 5",
    "assert f('list') == [3, 1, 2]",
    "assert sorted(f('list')) == [1, 2, 3]",
    "assert set(f('list')) == set([1, 2, 3])",
    "assert set(f('list')) == {1, 2, 3}",
    "assert len(f('list')) == 3",
    "assert f('dict') == {'B': 'Blue', 'R': 'Red'}",
    "assert math.isclose(f('float'), 0.3, rel_tol=1e-9)",
    "assert math.isclose(f('float'), 0.3)",
    "assert abs(f('float') - 0.3) < 1e-9",
    "assert abs(0.3 - f('float')) <= 1e-9",
    "assert f('str').lower() == 'hello'",
    "assert f('str')[0] == 'H'",
    "assert f('str')[1:3] == 'el'",
    "assert f('none') is None",
    "assert f('none') == None",
    "assert f('tuple') == (1, 'a')",
    "assert f('bool')",
    "assert f('bool') is True",
    "assert not f(0)",
    "assert f(3) in [5, 6, 7]",
    "assert 'ell' in f('str')",
    "assert f(2) > 3 and f(2) < 5",
    "assert f(1) + f(2) == 6",
    "assert f('set') == {2, 1}",
    "assert isinstance(f('list'), list)",
    "assert f(\n    2\n) == (\n    4\n)",
    "assert f(2) == 4, 'message'",
    "assert f(10**30) == 2 * 10**30",
    "assert f(2) == int(math.sqrt(16))",
    "assert f('str').zfill(7) == '00Hello'",  # unknown method: judged in a clean child
    "assert list(map(str, f('list'))) == ['3', '1', '2']",  # judged in a clean child
]

FAILING = [
    "assert f(2) == 5",
    "assert f(2) == '4'",  # strict: str is not int
    "assert f('tuple') == [1, 'a']",  # strict: tuple is not list
    "assert f('float') == 0.3",  # floats exact without a tolerance
    "assert f('list') == (3, 1, 2)",
    "assert f('list') == [1, 2, 3]",
    "assert f('dict') == {'R': 'Red', 'B': 'Black'}",
    "assert math.isclose(f('float'), 0.4, rel_tol=0.01)",
    "assert abs(f('float') - 0.4) < 0.01",
    "assert not f(2)",
    "assert f(0)",
    "assert f('none') is not None",
    "assert f(2) in [1, 2, 3]",
    "assert set(f('list')) == {1, 2}",
    "assert f('str').zfill(7) == 'Hello'",
    "assert list(map(str, f('list'))) == [3, 1, 2]",
]


@pytest.mark.parametrize("level", ["strong", "weak"])
def test_honest_shapes(level, request):
    sb = request.getfixturevalue(level)
    r = sb.run_tests_sync(PROGRAM, PASSING + FAILING, entry_point="f")
    got = {o.test: o for o in r.results}
    for t in PASSING:
        assert got[t].status == "pass", got[t]
    for t in FAILING:
        assert got[t].status == "fail", got[t]
    assert r.passed == len(PASSING)
    assert r.load_error is None
    assert got["assert f(2) == 5"].actual == "4"
    assert got["assert f('float') == 0.3"].actual == "0.30000000000000004"


def test_fifty_tests_one_process(strong):
    prog = "def add(a, b):\n    return a + b\n"
    tests = [f"assert add({i}, 1) == {i + 1}" for i in range(50)]
    r = strong.run_tests_sync(prog, tests)
    assert r.passed == 50
    assert r.duration < 2.0


def test_exceptions_and_load_errors(strong):
    r = strong.run_tests_sync("def f(x):\n    return 1 / x\n", ["assert f(0) == 1", "assert f(1) == 1.0"])
    assert r.results[0].status == "error" and "ZeroDivisionError" in r.results[0].error
    assert r.results[1].status == "pass"
    r = strong.run_tests_sync("def f(x) return x", ["assert f(1) == 1"])
    assert r.load_error and "SyntaxError" in r.load_error
    assert r.results[0].status == "error"
    r = strong.run_tests_sync("raise ValueError('at import')\n", ["assert f(1) == 1"])
    assert "ValueError: at import" in r.load_error


def test_output_is_captured(strong):
    r = strong.run_tests_sync(
        "import sys\nprint('hello')\ndef f(x):\n    print('err', file=sys.stderr)\n    return x\n", ["assert f(1) == 1"]
    )
    assert r.stdout == "hello\n" and r.stderr == "err\n"


def test_setup_code_and_helpers(strong):
    setup = "import math\nLIMIT = 10\n"
    r = strong.run_tests_sync(
        "def f(x):\n    return min(x, LIMIT)\n",
        ["assert f(20) == LIMIT", "assert f(3) == math.floor(3.5)"],
        setup=setup,
    )
    assert [o.status for o in r.results] == ["pass", "pass"]


def test_bad_tests_are_errors(strong):
    r = strong.run_tests_sync("def f(x):\n    return x\n", ["f(1) == 1", "assert (", "assert f(1) == 1"])
    assert [o.status for o in r.results] == ["error", "error", "pass"]


def test_recursion_and_large_values(strong):
    prog = "import sys\nsys.setrecursionlimit(10**6)\ndef f(n):\n    return f(n + 1)\ndef g(n):\n    return list(range(n))\n"
    r = strong.run_tests_sync(prog, ["assert f(1) == 1", "assert g(10**6) == []", "assert len(g(5)) == 5"])
    assert r.results[0].status in ("error", "timeout")  # RecursionError, a crash, or out of time
    assert r.results[1].status in ("fail", "error")  # too large to report
    assert r.results[2].status == "pass"


# ----------------------------------------------------------- imagined values
ANGLE = "assert math.isclose(angle_complex(0, 1j), 1.5707963267948966, rel_tol=0.001)"
COLORS = "assert color_dict('RB') == {'R': 'Red', 'B': 'Blue'}"


async def test_check_values_appendix_g(strong):
    r = await strong.check_values(
        [
            (ANGLE, "math.pi / 2"),
            (COLORS, "{'R': 'Red', 'B': 'Black'}"),
            (COLORS, "{'R': 'Red', 'B': 'Blue'}"),
            ("assert f(3) == 'polygon'", "polgon"),
            ("assert f(3) == 'polygon'", "'polygon"),
            ("assert f(3) == 'polygon'", "'polygon'"),
        ]
    )
    assert [o.status for o in r.results] == ["pass", "fail", "pass", "error", "error", "pass"]
    assert r.results[0].actual == "1.5707963267948966"
    assert "NameError" in r.results[3].error


async def test_check_values_never_runs_a_program(strong):
    # The value expression is untrusted too: it runs in the child, and a
    # non-plain value cannot pass.
    r = await strong.check_values(
        [
            ("assert f(1) == 3", "type('E', (), {'__eq__': lambda s, o: True})()"),
            ("assert f(1) == 3", "__import__('os')._exit(0)"),
            ("assert f(1) == 3", "3"),
        ]
    )
    assert [o.status for o in r.results] == ["fail", "error", "pass"]


async def test_concurrent_calls(strong):
    prog = "def add(a, b):\n    return a + b\n"
    reports = await asyncio.gather(
        *[strong.run_tests(prog, [f"assert add({i}, 1) == {i + 1}", "assert add(1, 1) == 3"]) for i in range(12)]
    )
    for r in reports:
        assert [o.status for o in r.results] == ["pass", "fail"]


@pytest.mark.parametrize("level", ["auto", "rlimits"])
async def test_cancel_kills_the_child(level, monkeypatch):
    # Cancel a run whose call under test is really in progress (the program
    # process is asked for it), then check that no process of it is left.
    from qflow_tui.core.sandbox.servers import Servers

    asked = threading.Event()
    original = Servers.call_many

    def call_many(self, srcs):
        asked.set()
        return original(self, srcs)

    monkeypatch.setattr(Servers, "call_many", call_many)
    sb = make(level, timeout=5.0)
    task = asyncio.ensure_future(sb.run_tests("def f(x):\n    while True: pass\n", ["assert f(1) == 1"]))
    assert await asyncio.get_running_loop().run_in_executor(None, asked.wait, 10)
    assert live_harness_processes()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not live_harness_processes()


def test_report_round_trip(strong):
    r = strong.run_tests_sync("def f(x):\n    return x\n", ["assert f(1) == 1", "assert f(1) == 2"])
    d = r.to_dict()
    assert d["passed"] == 1 and d["total"] == 2 and d["isolation"] == strong.isolation
    back = SandboxReport.from_dict(d)
    assert back.results[1] == TestOutcome(**d["results"][1])


def test_env_var_forces_a_level(monkeypatch):
    monkeypatch.setenv("QFLOW_SANDBOX_ISOLATION", "rlimits")
    monkeypatch.setenv("QFLOW_SANDBOX_WEAK_AS_ROOT", "1")  # as root the weak level needs it (test_weak_level.py)
    assert Sandbox(SandboxConfig()).isolation.startswith("rlimits only")
    with pytest.raises(ValueError):
        Sandbox(SandboxConfig(isolation="chroot"))


# ------------------------------------------------------ strict comparison
@pytest.mark.parametrize(
    "a,b,eq",
    [
        (1, 1, True),
        (1, 1.0, True),
        (True, 1, True),
        (0, False, True),
        (0.1 + 0.2, 0.3, False),
        ("1", 1, False),
        (float("nan"), float("nan"), False),
        ([float("nan")], [float("nan")], False),
        ({1: "a"}, {1: "a"}, True),
        ({1: "a"}, {1.0: "a"}, True),
        ({1, 2}, {2, 1}, True),
        ({1, 2}, {1.0, 2}, True),
        ([1], (1,), False),
        ({"a": [1]}, {"a": (1,)}, False),
        ((1, [2]), (1, [2]), True),
        ((1, [2]), (1, (2,)), False),
        ("a", b"a", False),
        (None, None, True),
        (complex(1, 2), complex(1, 2), True),
        (frozenset({1}), {1}, True),
        (-0.0, 0.0, True),
        (math.inf, math.inf, True),
    ],
)
def test_strict_eq(a, b, eq):
    assert strict_eq(a, b) is eq
    assert strict_eq(b, a) is eq


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        0,
        -5,
        pytest.param(1 << 20000, id="bigint"),
        1.5,
        float("nan"),
        float("-inf"),
        complex(1, -2),
        "é\n",
        b"\x00\xff",
        [1, (2, 3)],
        {"a": {1, 2}},
        frozenset({(1, 2)}),
        {(1, 2): [None]},
    ],
)
def test_codec_round_trip(value):
    back = decode_value(encode_value(value))
    if value != value:  # nan
        assert back != back
    else:
        assert strict_eq(back, value)


@pytest.mark.parametrize(
    "bad", [[], ["x"], ["i", 5], ["S", [["l", []]]], ["d", [[["l", []], ["n"]]]], "s", ["f", "x" * 100]]
)
def test_decoder_rejects_malformed(bad):
    with pytest.raises(ValueError):
        decode_value(bad)


def test_stdlib_dict_subclasses_compare_as_dicts(strong):
    prog = (
        "from collections import Counter, OrderedDict, defaultdict\n"
        "def f(x):\n"
        "    return {'c': Counter('aab'), 'o': OrderedDict(a=1), 'd': defaultdict(int, a=1)}[x]\n"
        "class MyCounter(Counter):\n"
        "    def __eq__(self, o): return True\n"
        "def g(x):\n"
        "    return MyCounter('a')\n"
    )
    r = strong.run_tests_sync(
        prog,
        [
            "assert f('c') == {'a': 2, 'b': 1}",
            "assert f('o') == {'a': 1}",
            "assert f('d') == {'a': 1}",
            "assert f('c') == {'a': 2}",
            "assert g(1) == {'z': 9}",
        ],
    )
    assert [o.status for o in r.results] == ["pass", "pass", "pass", "fail", "fail"]


def test_function_named_like_a_builtin(strong):
    r = strong.run_tests_sync("def sum(a, b):\n    return a + b\n", ["assert sum(10, 15) == 25"])
    assert r.results[0].status == "pass"


def test_setup_that_needs_the_program(strong):
    prog = "class Node:\n    def __init__(self, v):\n        self.v = v\ndef val(n):\n    return n.v\n"
    r = strong.run_tests_sync(prog, ["assert val(root) == 3"], setup="root = Node(3)\n")
    assert r.results[0].status == "pass"
    r = strong.run_tests_sync("def val(n):\n    return n\n", ["assert val(root) == 3"], setup="root = Node(3)\n")
    assert r.results[0].status == "error" and "NameError" in r.load_error


def test_the_judge_form_is_made_only_when_the_oracle_judges():
    # Most asserts are judged in the app: their judge form (unparsed source)
    # is made on demand, not for every test planned.
    from qflow_tui.core.sandbox.verdict import plan_test

    plan = plan_test(0, "assert f(1) == 2", "f", [])
    assert plan.mode == "parent" and "judge_expr" not in vars(plan)
    assert plan.judge_expr == "__qf_s0 == 2"
