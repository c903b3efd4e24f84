"""The oracle takes from the trusted side every name a test or a check uses,
except the entry point and the helpers a test is meant to call
(``verdict.callable_helpers``); and the oracle and the program's process
never get out of step, whatever the helpers and whatever the child writes."""

from __future__ import annotations

import asyncio
import json
import math
import textwrap
import time

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from sbhelpers import live_harness_processes, make

from qflow_tui.core.bench.evaluate import Evaluator
from qflow_tui.core.bench.sources import load_dataset
from qflow_tui.core.sandbox.verdict import callable_helpers

# ------------------------------------------------------- forged expected values
MBPP2_WRONG = "def similar_elements(a, b):\n    return [0]\n"

FORGERIES = [
    # (program, tests, entry point): a wrong program and the builtin it redefines
    # to make its expected value agree with its answer.
    (
        MBPP2_WRONG + "def set(*a):\n    return {0}\n",
        ["assert set(similar_elements((3,4,5,6),(5,7,4,10))) == set((4, 5))"],
    ),
    ("def f(x):\n    return [9]\ndef sorted(x):\n    return [9]\n", ["assert f([3, 1]) == sorted([3, 1])"]),
    ("def f(x):\n    return 'x'\ndef str(x):\n    return 'x'\n", ["assert f(1) == str(1)"]),
    ("def f(x):\n    return 0\ndef len(x):\n    return 0\n", ["assert f('abc') == len('abc')"]),
    ("def f(x):\n    return 5.0\ndef abs(x):\n    return 0\n", ["assert abs(f(1) - 1.0) <= abs(-1e-9)"]),
    # judged whole in the oracle (a generator is not a shape the parent knows)
    ("def f(x):\n    return [5, 6]\ndef abs(x):\n    return 0\n", ["assert all(abs(v) < 1 for v in f(3))"]),
    # a builtin as the first defined call of an assert that has no entry call
    ("def f(x):\n    return x\ndef max(*a):\n    return 0\n", ["assert f(1) == 1", "assert max([1, 2]) == 0"]),
    # typing names and math from the setup, and a name that is a module
    (
        "def f(x):\n    return [0]\ndef cast(*a):\n    return [0]\ndef isclose(*a, **k):\n    return True\n",
        ["assert f([1]) == cast(List[int], [1])", "assert math.isclose(f([1])[0], 1.0)"],
    ),
]


@pytest.mark.parametrize("program,tests", FORGERIES, ids=[f"forge-{i}" for i in range(len(FORGERIES))])
def test_a_program_cannot_redefine_what_an_expected_value_uses(sb, program, tests):
    entry = "similar_elements" if "similar_elements" in program else "f"
    setup = "from typing import List, cast\n" if "cast" in program else ""
    r = sb.run_tests_sync(program, tests, entry_point=entry, setup=setup)
    assert [o.status for o in r.results if o.status == "pass" and "f(1) == 1" not in o.test] == [], r.to_dict()


def test_the_same_tests_pass_an_honest_program(sb):
    program = "def similar_elements(a, b):\n    return list(set(a) & set(b))\n"
    r = sb.run_tests_sync(
        program, ["assert set(similar_elements((3,4,5,6),(5,7,4,10))) == set((4, 5))"], entry_point="similar_elements"
    )
    assert [o.status for o in r.results] == ["pass"]


def test_a_program_named_like_a_builtin_is_still_the_entry_point(sb):
    r = sb.run_tests_sync("def sum(xs):\n    return 42\n", ["assert sum([1, 2]) == 42"], entry_point="sum")
    assert [o.status for o in r.results] == ["pass"], r.to_dict()


CHECK4 = textwrap.dedent(
    """
    METADATA = {}

    def check(candidate):
        assert abs(candidate([1.0, 2.0, 3.0]) - 2.0 / 3.0) < 1e-6
        assert abs(candidate([1.0, 2.0, 3.0, 4.0]) - 1.0) < 1e-6
    """
)
CHECK_MODULES = textwrap.dedent(
    """
    import math

    def check(candidate):
        from math import isclose as near
        assert math.isclose(candidate(2), 4.0)
        assert near(candidate(3), 6.0)
        assert sorted([candidate(1)]) == [2.0]
    """
)


@pytest.mark.parametrize(
    "program,check,entry",
    [
        ("def mad(x):\n    return 0.0\ndef abs(x):\n    return 0\n", CHECK4, "mad"),
        (
            "def g(x):\n    return 0.0\ndef isclose(*a):\n    return True\ndef near(*a):\n    return True\n"
            "def math():\n    return 0\ndef sorted(x):\n    return [2.0]\n",
            CHECK_MODULES,
            "g",
        ),
    ],
    ids=["abs", "modules"],
)
def test_a_check_uses_the_trusted_builtins_and_its_own_imports(sb, program, check, entry):
    r = sb.run_check_sync(program, check, entry)
    assert r.results[0].status == "fail", r.to_dict()


def test_humaneval_4_on_the_path_qflow_bench_uses():
    (bp,) = load_dataset("humaneval", ids=["4"])
    wrong = bp.problem.statement + "\n    return 0.0\n\ndef abs(x):\n    return 0\n"
    evaluator = Evaluator(make("auto", timeout=2.0))
    assert not asyncio.run(evaluator.evaluate(bp, wrong)).passed
    assert asyncio.run(evaluator.evaluate(bp, bp.reference)).passed


def test_a_check_still_calls_the_helpers_it_is_meant_to():
    # HumanEval/32's check calls the prompt's poly(), which the program defines.
    check = "def check(candidate):\n    import math\n    assert math.fabs(poly([1, 2], candidate([1, 2]))) < 1e-4\n"
    program = (
        "def poly(xs, x):\n    return sum(c * x ** i for i, c in enumerate(xs))\ndef find_zero(xs):\n    return -0.5\n"
    )
    r = make("auto", timeout=2.0).run_check_sync(program, check, "find_zero")
    assert r.results[0].status == "pass", r.to_dict()


@pytest.mark.parametrize(
    "sources,setup,expected",
    [
        (["assert f(1) == g(1)"], "", ["f", "g"]),
        (["assert f(1) == set(g(1))"], "", ["f", "g"]),
        (["assert f(1) == abs(-1) and len('a') == 1"], "", ["f"]),
        (["assert f(1) == math.floor(1.5)"], "", ["f"]),  # a module the oracle supplies
        (["assert f(1) == List"], "from typing import List", ["f"]),  # bound by the setup
        (
            ["def check(candidate):\n    import math\n    h = 2\n    assert candidate(h) == poly(h)\n"],
            "",
            ["f", "poly"],
        ),
        (["assert f(1) == [x for x in g(1)]"], "", ["f", "g"]),
        (["assert (", "assert f(1) == g(1)"], "", ["f", "g"]),  # a test that does not parse adds nothing
    ],
)
def test_which_helpers_the_oracle_may_call(sources, setup, expected):
    program = "".join(
        f"def {n}(*a):\n    return 0\n" for n in ("f", "g", "poly", "set", "abs", "len", "math", "List", "h", "x")
    )
    assert callable_helpers(program, sources, "f", setup) == expected


# ------------------------------------------------- the oracle stays in step
def test_helpers_in_expected_values_are_answered_in_step(sb):
    program = "def f(x):\n    return x * 2\ndef g(x):\n    return x + x\n"
    tests = [f"assert f({i}) == g({i})" for i in range(1, 6)] + ["assert f(2) == g(3)"]
    r = sb.run_tests_sync(program, tests, entry_point="f")
    assert [o.status for o in r.results] == ["pass"] * 5 + ["fail"], r.to_dict()


PROGRAM = textwrap.dedent(
    """
    def f(x):
        return x * 2

    def g(x):
        return x + x + (x % 3 == 2)

    def h(xs):
        return sorted(set(xs))

    def fl(x):
        return x / 3

    def e(x):
        return 10 // x

    def w(s):
        return s.upper()
    """
)

_ints = st.integers(min_value=0, max_value=6).map(str)


@st.composite
def _int_expr(draw: st.DrawFn, depth: int = 0) -> str:
    i, j = draw(_ints), draw(_ints)
    shapes = [
        i,
        f"f({i})",
        f"g({i})",
        f"e({i})",
        f"abs(-f({i}))",
        f"len(h([{i}, {j}, {i}]))",
        f"max(f({i}), g({j}))",
        f"f({i}) + g({j})",
        f"-g({i})",
        f"g(f({i}))",
        f"f(g({i}))",
    ]
    return draw(st.sampled_from(shapes))


@st.composite
def _condition(draw: st.DrawFn, depth: int = 0) -> str:
    a, b, c = draw(_int_expr()), draw(_int_expr()), draw(_int_expr())
    i, j = draw(_ints), draw(_ints)
    tol = draw(st.sampled_from(["1e-9", "0.5", "1"]))
    shapes = [
        f"{a} == {b}",
        f"{a} != {b}",
        f"{a} < {b}",
        f"{a} <= {b} < {c}",
        f"{a} in [{b}, {c}]",
        f"{a} not in ({b},)",
        f"math.isclose(fl({i}), {i} / 3)",
        f"math.isclose(fl({i}), {j} / 3, rel_tol={tol})",
        f"abs(fl({i}) - {j} / 3) <= {tol}",
        f"set(h([{i}, {j}, {i}])) == set([{i}, {j}])",
        f"h([{i}, {j}]) == sorted([{j}, {i}])",
        f"w('ab{i}') == 'AB{j}'",
        f"'B' in w('a{'b' * int(i)}')",
        f"isinstance(f({i}), int)",
        f"[f(k) for k in range({i})] == [g(k) for k in range({j})]",
    ]
    cond = draw(st.sampled_from(shapes))
    if depth < 2:
        wrap = draw(st.sampled_from(["", "not", "and", "or"]))
        if wrap == "not":
            cond = f"not ({cond})"
        elif wrap in ("and", "or"):
            cond = f"({cond}) {wrap} ({draw(_condition(depth + 1))})"
    return cond


def _reference(assert_src: str) -> str:
    """The verdict of running the program and the assert in this process:
    the trusted reference (honest programs only; this is a test)."""
    space: dict[str, object] = {"math": math}
    exec(PROGRAM, space)  # the reference, in the test process only
    try:
        exec(assert_src, space)
    except AssertionError:
        return "fail"
    except Exception:
        return "error"
    return "pass"


@seed(26)
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(st.lists(_condition(), min_size=4, max_size=8))
def test_verdicts_equal_the_in_process_reference(conditions):
    tests = [f"assert {c}" for c in conditions if "f(" in c]
    if not tests:
        return
    r = _shared().run_tests_sync(PROGRAM, tests, entry_point="f")
    got = [o.status for o in r.results]
    want = [_reference(t) for t in tests]
    assert got == want, [(t, g, w, o.error) for t, g, w, o in zip(tests, got, want, r.results, strict=True) if g != w]


_SANDBOXES: dict[str, object] = {}


def _shared():  # type: ignore[no-untyped-def]
    if "sb" not in _SANDBOXES:
        _SANDBOXES["sb"] = make("auto", timeout=2.0)
    return _SANDBOXES["sb"]


# --------------------------------------------------- hostile child-to-parent lines
def _message() -> st.SearchStrategy[object]:
    values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
        max_leaves=8,
    )
    tree = st.sampled_from(
        [["i", "1"], ["i", "2"], ["s", "x"], ["l", []], ["S", [["i", "1"]]], ["d", []], ["f", "0x1p+0"], ["b", True]]
    )
    return st.one_of(
        st.fixed_dictionaries(
            {"k": st.sampled_from(["res", "call", "hello", "loaded", "load_error", "ret", "exc", "done"])},
            optional={
                "i": st.integers(min_value=-1, max_value=6) | st.text(max_size=2),
                "c": st.integers(min_value=0, max_value=3),
                "v": st.lists(tree, max_size=3) | values,
                "ok": st.booleans() | values,
                "st": st.sampled_from(["raised", "notplain", "timeout", "error", "fail"]),
                "e": st.text(max_size=20),
                "fn": st.sampled_from(["f", "g", "__import__"]),
                "a": st.lists(tree, max_size=2),
                "kw": st.just([]),
            },
        ),
        values,
    )


_line = st.one_of(
    _message().map(lambda m: json.dumps(m).encode()),
    st.binary(max_size=40),
    st.sampled_from([b"{", b"[" * 3000, b'{"k":"res","i":1e999}', b"\xff\xfe", b'{"k":"res","i":1,"v":[["i","zz"]]}']),
)

#: Tests no value of the program's can pass: the parent must fail or error them.
UNSATISFIABLE = [
    "assert f(1) == 1 and set([2]) == {3}",
    "assert f(2) == 2 and len([1, 2]) == 3",
    "assert all(v > 0 for v in [f(3)]) and max([1, 2]) == 3",
    "assert f(4) == g(4) and g(4) == 0",
]


@seed(2626)
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(
    st.lists(st.lists(_line, min_size=1, max_size=4), min_size=1, max_size=3),
    st.sampled_from(["return x", "return None", "time.sleep(30)", "os._exit(0)", "raise ValueError('x')"]),
    st.booleans(),
)
def test_hostile_lines_never_raise_hang_or_pass(bursts, then, newline_last):
    lines = [b"\n".join(b) + (b"\n" if newline_last else b"") for b in bursts]
    program = (
        "import os, sys, time\n"
        f"BURSTS = {lines!r}\n"
        "N = [0]\n"
        "def _write():\n"
        "    if N[0] < len(BURSTS):\n"
        "        os.write(int(sys.argv[1]), BURSTS[N[0]])\n"
        "        N[0] += 1\n"
        "def f(x):\n"
        "    _write()\n"
        f"    {then}\n"
        "def g(x):\n"
        "    _write()\n"
        "    return 1\n"
    )
    sb = _shared()
    t0 = time.monotonic()
    r = sb.run_tests_sync(program, UNSATISFIABLE, entry_point="f")
    check = sb.run_check_sync(program, "def check(c):\n    c(1)\n    assert g(1) == 2\n", "f")
    elapsed = time.monotonic() - t0
    assert [o.status for o in r.results if o.status == "pass"] == [], r.to_dict()
    assert check.results[0].status != "pass", check.to_dict()
    # Bounded by the run's own limits (2 s a call, a few calls each), never hung.
    assert elapsed < 60, elapsed
    assert not live_harness_processes()


# ------------------------------------------- expected values the app computes
def test_expected_values_the_app_knows_whole_need_no_oracle_process(monkeypatch):
    from qflow_tui.core.sandbox import sandbox as runner

    started: list[bool] = []
    real = runner.Servers.__init__

    def spy(self, *args, **kwargs):
        started.append(kwargs["need_oracle"])
        real(self, *args, **kwargs)

    monkeypatch.setattr(runner.Servers, "__init__", spy)
    sb = make("auto")
    tests = ["assert f([3, 1]) == sorted([1, 3])", "assert set(f([2, 2])) == set([2])", "assert f([]) == list(())"]
    right = sb.run_tests_sync("def f(x):\n    return sorted(x)\n", tests)
    assert [o.status for o in right.results] == ["pass"] * 3, right.to_dict()
    wrong = sb.run_tests_sync("def f(x):\n    return x\n", tests)
    assert [o.status for o in wrong.results] == ["fail", "pass", "pass"], wrong.to_dict()
    assert started == [False, False]
    # A name the setup binds means what the setup says: the oracle computes it.
    setup = "def sorted(x):\n    return [7]\n"
    shadowed = sb.run_tests_sync("def f(x):\n    return [7]\n", tests[:1], setup=setup)
    assert [o.status for o in shadowed.results] == ["pass"], shadowed.to_dict()
    # An expected value that raises is the oracle's to report, as Python would.
    raising = sb.run_tests_sync("def f(x):\n    return 1\n", ["assert f(0) == sorted([1, 'a'])"])
    assert raising.results[0].status == "error" and "TypeError" in (raising.results[0].error or "")
    assert started[2:] == [True, True]


def test_the_oracle_answers_every_expected_value_in_one_request(monkeypatch):
    from qflow_tui.core.sandbox.servers import Servers

    asked: list[int] = []
    real = Servers.ask_oracle_many

    def spy(self, requests, limit):
        asked.append(len(requests))
        return real(self, requests, limit)

    monkeypatch.setattr(Servers, "ask_oracle_many", spy)
    sb = make("auto")
    setup = "def expected(v):\n    return v\n"
    tests = [f"assert f({i}) == expected({i})" for i in range(20)] + ["assert f(1) == expected(2)"]
    r = sb.run_tests_sync("def f(x):\n    return x\n", tests, setup=setup)
    assert [o.status for o in r.results] == ["pass"] * 20 + ["fail"], r.to_dict()
    assert asked == [1]
    # A leaf that runs out of time fails only its own test, in the same request.
    slow = setup + "def never():\n    while True:\n        pass\n"
    r = sb.run_tests_sync(
        "def f(x):\n    return x\n", ["assert f(1) == never()", "assert f(2) == expected(2)"], setup=slow
    )
    assert [o.status for o in r.results] == ["error", "pass"], r.to_dict()
    assert "timeout" in (r.results[0].error or "")
    # At rest the slow leaf is stopped by its own CPU alarm inside the one
    # request. On a machine so busy that the oracle's wall-clock safety cap
    # ends it first, the leaves are asked again (the verdicts above hold).
    assert asked[1] == 1
    del asked[2:]
    # A leaf that ends the oracle: the leaves are asked again one by one.
    dying = setup + "import os\ndef die():\n    os._exit(0)\n"
    r = sb.run_tests_sync(
        "def f(x):\n    return x\n", ["assert f(1) == die()", "assert f(2) == expected(2)"], setup=dying
    )
    assert [o.status for o in r.results][1] == "pass", r.to_dict()
    assert r.results[0].status != "pass"
    assert asked == [1, 1, 1, 2]
