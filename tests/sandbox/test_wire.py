"""The wire between the app and its sandbox children: a batch of calls goes
to the program's process as one request line (the oracle's window of calls,
a run's asserts), and comes back one answer per call, each timed by the app
(the program's own time is the app's measurement, never its word)."""

from __future__ import annotations

import pytest
from sbhelpers import make

from qflow_tui.core.sandbox import watchdog
from qflow_tui.core.sandbox.harness import modes

COUNTER = "n = 0\ndef f(x):\n    global n\n    n += 1\n    return [x, n]\n"


@pytest.fixture
def lines(monkeypatch):
    """Every request line the app writes to a child's stdin, in order."""
    seen: list[dict] = []
    send = watchdog.Child.send

    def spy(self, obj, tail=b"", *, answers=1):
        seen.append(dict(obj))
        send(self, obj, tail, answers=answers)

    monkeypatch.setattr(watchdog.Child, "send", spy)
    return seen


def _to_program(lines: list[dict]) -> list[dict]:
    """The lines that asked the program's process for values."""
    return [m for m in lines if "i" in m and not {"op", "k", "batch"} & m.keys()]


def test_a_runs_asserts_go_to_the_program_in_one_line(lines):
    tests = [f"assert f({i}) == [{i}, {i + 1}]" for i in range(5)]
    r = make("auto").run_tests_sync(COUNTER, tests, entry_point="f")
    assert [t.status for t in r.results] == ["pass"] * 5, r.to_dict()
    asked = _to_program(lines) + [m for m in lines if "batch" in m]
    assert len(asked) == 1, asked
    assert [p["src"] for p in asked[0]["batch"]] == [[f"f({i})"] for i in range(5)]


def test_the_oracles_window_of_calls_goes_to_the_program_in_one_line(lines):
    asserts = "\n".join(f"    assert candidate({i}) == [{i}, {i + 1}]" for i in range(6))
    check = f"def check(candidate):\n{asserts}\n"
    r = make("auto").run_check_sync(COUNTER, check, "f")
    assert r.results[0].status == "pass", r.to_dict()
    batches = [m for m in lines if "batch" in m]
    assert _to_program(lines) == [], "each call of a batch was a line of its own"
    assert sum(len(m["batch"]) for m in batches) == 6
    assert all(m["fn"] == "f" for m in batches)


def test_a_failing_call_in_a_batch_is_answered_in_its_place(lines):
    # The third call raises: its answer is that, in its turn; the verdict is the same as one by one.
    program = "def f(x):\n    if x == 2:\n        raise ValueError('two')\n    return x\n"
    tests = [f"assert f({i}) == {i}" for i in range(4)]
    r = make("auto").run_tests_sync(program, tests, entry_point="f")
    assert [t.status for t in r.results] == ["pass", "pass", "error", "pass"], r.to_dict()
    assert "ValueError: two" in (r.results[2].error or "")
    assert len([m for m in lines if "batch" in m]) == 1


def test_a_batch_stands_for_its_parts_numbered_on():
    parts = modes._unbatched({"i": 7, "fn": "f", "batch": [{"a": [1], "kw": []}, {"a": [2], "kw": [], "t": 0.5}]})
    assert parts == [
        {"i": 7, "fn": "f", "a": [1], "kw": []},
        {"i": 8, "fn": "f", "a": [2], "kw": [], "t": 0.5},
    ]
    # A malformed batch is one request, answered as a malformed one.
    assert modes._unbatched({"i": 3, "batch": "x"}) == [{"i": 3}]
    assert modes._unbatched({"i": "3", "batch": [{"src": ["1"]}]}) == [{"i": "3"}]


def test_a_relayed_call_is_written_when_it_is_sent(monkeypatch):
    # A check that calls the candidate in a loop (HumanEval 38, 50, 53) relays
    # each call on its own: a line written only at the next poll cost every
    # call two more wake-ups of the app's relay. Each small line is in the pipe
    # when send returns.
    left: list[int] = []
    send = watchdog.Child.send

    def spy(self, obj, tail=b"", *, answers=1):
        send(self, obj, tail, answers=answers)
        if obj.get("k") in ("ret", "exc") or ("fn" in obj and "a" in obj):
            left.append(len(self._out))

    monkeypatch.setattr(watchdog.Child, "send", spy)
    check = (
        "def check(candidate):\n    for i in range(5):\n        x = i * 2\n        assert candidate(x) == [x, i + 1]\n"
    )
    r = make("auto").run_check_sync(COUNTER, check, "f")
    assert r.results[0].status == "pass", r.to_dict()
    assert len(left) == 10, left  # five calls into the program, five answers to the oracle
    assert left == [0] * 10
