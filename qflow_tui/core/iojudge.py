"""Judging stdin/stdout programs, and APPS's call-based ones, as the datasets'
own harnesses do. The program runs in the sandbox (``sandbox/stdio.py``); the
comparison runs here, in the app, so a program never sees what it is compared
with and cannot change its own verdict.

Comparisons (``COMPARES``), each a reading of the harness it names:

- ``tokens``: CodeContests (google-deepmind/code_contests,
  ``execution/tester_sandboxer.cc``, ``OutputsMatch``): both outputs split on
  spaces, newlines, tabs, carriage returns and vertical tabs (empty pieces
  dropped, so trailing newlines and runs of whitespace do not count), each
  token lowercased (ASCII). Equal lists match; otherwise the lists must be as
  long, and each pair of tokens match: when either is not a number they must
  be equal; when both are numbers their values (as doubles) must differ by
  less than 1e-5 (absolute).
- ``apps``: APPS's standard-input problems (hendrycks/apps,
  ``eval/testing_util.py``): a cascade of looser and looser readings of the
  printed lines against the expected text, from equal after stripping, via
  line-by-line equality and numbers within ``numpy.allclose``'s default
  tolerance, to equal sets of per-line token sets (values rounded to 3
  places). See :func:`apps_stdio_match`.
- ``exact``: the output equals the expected text exactly.

APPS's call-based problems (``fn_name``) compare the function's value with
the expected one as that harness does (:func:`apps_call_match`).
"""

from __future__ import annotations

import ast
import asyncio
import json
import math
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from .problem import Problem, TestCase, io_source, io_test
from .sandbox import Sandbox, SandboxConfig, SandboxReport, TestOutcome
from .sandbox.pool import max_runs
from .sandbox.report import Status
from .sandbox.sandbox import CallResult
from .sandbox.stdio import call_source, program_source

# ----------------------------------------------------------------- CodeContests

#: CodeContests's tolerance between two numbers (``kDoublePrecision``).
CODECONTESTS_PRECISION = 1e-5
_CC_SPLIT = re.compile(r"[ \n\t\r\v]+")
#: What absl's SimpleAtod reads as a double: decimal numbers, inf, infinity, nan (any case),
#: in ASCII digits only (absl parses no other): a fullwidth, Arabic-Indic or
#: mathematical digit is not a number there, so it must equal its counterpart
#: as text (Python's ``\d`` and ``float()`` would read them all).
_CC_NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?|inf|infinity|nan)", re.I | re.ASCII)


def _cc_tokens(text: str) -> list[str]:
    # ASCII lowercasing only, as absl::AsciiStrToLower.
    return [t.translate(_ASCII_LOWER) for t in _CC_SPLIT.split(text) if t]


_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def _cc_number(token: str) -> float | None:
    if not _CC_NUMBER.fullmatch(token):
        return None
    try:
        return float(token)
    except (ValueError, OverflowError):
        return None


def codecontests_match(output: str, expected: str) -> bool:
    """CodeContests's ``OutputsMatch`` (see the module docstring)."""
    got, want = _cc_tokens(output), _cc_tokens(expected)
    if got == want:
        return True
    if len(got) != len(want):
        return False
    for a, b in zip(got, want, strict=True):
        if a == b:
            continue
        x, y = _cc_number(a), _cc_number(b)
        if x is None or y is None:
            return False
        # Every integer token also reads as a double, so numbers always meet here.
        if not abs(x - y) < CODECONTESTS_PRECISION:
            return False
    return True


# ------------------------------------------------------------------------- APPS

#: numpy.allclose's defaults, which APPS's harness uses.
_RTOL, _ATOL = 1e-5, 1e-8


def _allclose(a: list[float], b: list[float]) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if math.isinf(x) or math.isinf(y):
            if x != y:
                return False
            continue
        if not abs(x - y) <= _ATOL + _RTOL * abs(y):  # nan is never close
            return False
    return True


def _round3(token: str) -> float:
    return round(float(token), 3)


def apps_stdio_match(output: str, expected: str | list[str]) -> bool:
    """APPS's standard-input comparison. ``output``: what the program printed;
    the harness reads it as its lines (``splitlines``). ``expected``: the
    test's output (a list is joined with newlines, as the harness does).

    In order, the first that holds passes: the printed lines joined (as they
    are, or each stripped) equal the expected text, both stripped; the lines
    equal the expected text's non-empty lines, each stripped (after dropping
    empty printed lines too); all are numbers within ``numpy.allclose``; the
    set of each line's set of tokens is the same (values rounded to 3 places
    when they are all numbers)."""
    want = "\n".join(expected) if isinstance(expected, list) else expected
    lines = output.splitlines()
    if "\n".join(lines).strip() == want.strip() or "\n".join(s.strip() for s in lines).strip() == want.strip():
        return True
    if lines == [want]:
        return True
    want_lines = [x.strip() for x in want.split("\n") if x]
    if lines == want_lines:
        return True
    got = [s for s in lines if s]
    if got == want_lines:
        return True
    try:
        if _allclose([float(e) for e in got], [float(e) for e in want_lines]):
            return True
    except (ValueError, OverflowError):
        pass
    want_sets = [set(line.split()) for line in want_lines]
    got_sets = [set(s.split()) for s in got if s.split()]
    if got == [] and want_sets == []:
        return True
    if {frozenset(s) for s in got_sets} == {frozenset(s) for s in want_sets}:
        return True
    try:
        return {frozenset(_round3(t) for t in s) for s in got_sets} == {
            frozenset(_round3(t) for t in s) for s in want_sets
        }
    except (ValueError, OverflowError):
        return False


def _int_keys(value: dict[str, object]) -> dict[int, object]:
    return {int(k): v for k, v in value.items()}


def apps_call_inputs(inputs: list[object]) -> list[object]:
    """APPS turns a lone dict argument's keys back into ints (JSON made them text)."""
    if inputs and isinstance(inputs[0], dict):
        try:
            return [_int_keys(inputs[0])]
        except (ValueError, TypeError):
            return inputs
    return inputs


def apps_call_expected(expected: object) -> object:
    """APPS's reading of a call-based test's expected output (dict keys back to ints)."""
    try:
        if isinstance(expected, dict):
            return [_int_keys(expected)]
        if isinstance(expected, list) and expected and isinstance(expected[0], dict):
            return [_int_keys(expected[0])]
    except (ValueError, TypeError):
        pass
    return expected


def apps_call_match(value: object, expected: object) -> bool:
    """APPS's call-based comparison: a tuple reads as a list; the value equals
    the expected output, or (the expected output being a non-empty list) its
    first element, or, the value being a sequence of tuples, that first
    element with each tuple read as a list."""
    expected = apps_call_expected(expected)
    if isinstance(value, tuple):
        value = list(value)
    try:
        if value == expected:
            return True
        if isinstance(expected, list) and expected and value == expected[0]:
            return True
        if isinstance(value, list) and value and isinstance(value[0], tuple) and isinstance(expected, list):
            return bool(expected) and [list(x) for x in value] == expected[0]
    except (RecursionError, TypeError, ValueError):
        return False
    return False


# ------------------------------------------------------------------- the judge


def exact_match(output: str, expected: str) -> bool:
    return output == expected


Compare = Callable[[str, str], bool]
COMPARES: dict[str, Compare] = {
    "tokens": codecontests_match,
    "apps": apps_stdio_match,
    "exact": exact_match,
}
#: The comparison a problem of no dataset gets: CodeContests's, the loosest
#: that still reads every token (what most online judges accept).
DEFAULT_COMPARE = "tokens"

#: Largest output a judged program may print per test (KB); more errors the test.
IO_OUTPUT_KB = 16 * 1024
#: What ``actual`` keeps of a program's output, in characters.
ACTUAL_CHARS = 2000
#: What a report keeps of a program's stderr (its first test's), in characters.
STDERR_CHARS = 64 * 1024


def io_config(base: SandboxConfig, time_limit: float | None = None, memory_mb: int | None = None) -> SandboxConfig:
    """The sandbox's config for judging a problem: its per-test time limit and
    its memory where it says (never above ``base``'s memory: the sandbox's
    caps bound what a problem may ask), and room for a judge-sized output
    (``IO_OUTPUT_KB`` on stdout and on stderr)."""
    memory = base.memory_mb if memory_mb is None else min(base.memory_mb, memory_mb)
    return replace(
        base,
        timeout=time_limit if time_limit is not None else base.timeout,
        memory_mb=memory,
        max_value_kb=max(base.max_value_kb, IO_OUTPUT_KB),
        max_file_mb=max(base.max_file_mb, IO_OUTPUT_KB // 1024),
        # stderr too: a judge does not read it, so one rule for every place
        # a program is judged (the bench's and a workflow's test executor).
        max_output_kb=max(base.max_output_kb, IO_OUTPUT_KB),
    )


def _label(t: TestCase | tuple[str, str]) -> tuple[str, str, str]:
    if isinstance(t, TestCase):
        if t.input is None or t.output is None:
            raise ValueError(f"not an input/output test: {t.source}")
        return t.source, t.input, t.output
    return io_source(t[0], t[1]), t[0], t[1]


#: How a failing test's error begins when the program printed nothing, and how it
#: ends when the program never read its input: readers match these constants.
PRINTED_NOTHING = "the program printed nothing"
NEVER_READ = "; it never read its input (does it define a function and never call it?)"


def _shown(text: str) -> str:
    return repr(text[:ACTUAL_CHARS]) + ("…" if len(text) > ACTUAL_CHARS else "")


def judge_io_sync(
    sandbox: Sandbox,
    program: str,
    tests: Sequence[TestCase | tuple[str, str]],
    compare: str | Compare = DEFAULT_COMPARE,
    *,
    parallel: int | None = None,
    apps: bool = False,
) -> SandboxReport:
    """Run ``program`` (a whole script) on each test's input in ``sandbox`` and
    compare what it printed with the test's output. One outcome per test, in
    the tests' order, its ``test`` the test's one-line label, ``actual`` what
    the program printed. A program that printed something else fails; one that
    never read its input, or read past its end, says so in its outcome's error.

    ``parallel``: how many tests run at once, each still in a process of its
    own (None: :func:`io_parallel`, as many as the sandbox's slots let runs
    hold at once; 1: one after another).

    ``apps``: run the program as APPS's harness does (:data:`APPS_PRELUDE`
    first, the program wrapped in ``def code():``; ``stdio.program_source``)."""
    cmp = COMPARES[compare] if isinstance(compare, str) else compare
    labelled = [_label(t) for t in tests]
    # Each test in a fresh program process, as a judge runs each test: a
    # program then cannot carry anything from one test to the next (not even
    # by replacing the runner it shares a process with), so each verdict is
    # that of the program alone on that input.
    if apps:
        prelude, modules = apps_prelude(program)
        source = program_source(program, prelude)
        sandbox = apps_sandbox(sandbox, modules)
    else:
        source = program_source(program)

    def one(test: tuple[str, str, str]) -> tuple[TestOutcome, CallResult]:
        # Judged as soon as it ends, so what it printed (up to IO_OUTPUT_KB)
        # is dropped here, not held until the problem's last test.
        label, stdin, want = test
        res = sandbox.call_values_sync(source, [call_source(stdin)])[0]
        outcome = _outcome(label, want, res, cmp)
        res.value = None
        res.stderr = res.stderr[:STDERR_CHARS] if res.stderr else res.stderr
        return outcome, res

    done = _run_each(sandbox, one, labelled, parallel)
    report = SandboxReport(isolation=sandbox.isolation)
    report.results = [outcome for outcome, _ in done]
    if done and done[0][1].load_error:
        report.load_error = done[0][1].load_error
    report.stderr = done[0][1].stderr if done else ""
    return report


def _outcome(label: str, want: str, res: CallResult, cmp: Compare) -> TestOutcome:
    """A test's verdict from its run; only ``actual`` (bounded) keeps what it printed."""
    if res.status != "ok":
        error = res.load_error or res.error or "no result"
        status: Status = "timeout" if res.status == "timeout" else "error"
        return TestOutcome(label, status, error=error, duration=res.duration)
    value = res.value
    if type(value) is not list or len(value) != 2 or type(value[0]) is not str or type(value[1]) is not bool:
        return TestOutcome(label, "error", error="malformed result from the program's process", duration=res.duration)
    printed, read = value[0], value[1]
    if cmp(printed, want):
        return TestOutcome(label, "pass", actual=_shown(printed), duration=res.duration)
    why = "wrong output"
    if not printed:
        why = PRINTED_NOTHING
    if not read:
        why += NEVER_READ
    return TestOutcome(label, "fail", actual=_shown(printed), error=why, duration=res.duration)


async def judge_io(
    sandbox: Sandbox,
    program: str,
    tests: Sequence[TestCase | tuple[str, str]],
    compare: str | Compare = DEFAULT_COMPARE,
    *,
    parallel: int | None = None,
    apps: bool = False,
) -> SandboxReport:
    """:func:`judge_io_sync` off the event loop."""
    return await asyncio.to_thread(judge_io_sync, sandbox, program, tests, compare, parallel=parallel, apps=apps)


def io_parallel(sandbox: Sandbox) -> int:
    """How many of a problem's tests the judge runs at once: as many runs as
    the sandbox's slots hold at once (``pool.max_runs``: half the slots, a
    run's program and oracle each taking one), which the memory plan already
    budgets for, so each process keeps the memory cap it has alone."""
    return max_runs(sandbox.details)


def _run_each(
    sandbox: Sandbox,
    one: Callable[[tuple[str, str, str]], tuple[TestOutcome, CallResult]],
    tests: list[tuple[str, str, str]],
    parallel: int | None,
) -> list[tuple[TestOutcome, CallResult]]:
    """``one`` on each test (a fresh program process each), up to ``parallel``
    at once; the results in the tests' order, whatever order they finished in."""
    width = max(1, min(len(tests), parallel if parallel is not None else io_parallel(sandbox)))
    if width <= 1:
        return [one(t) for t in tests]
    # Each worker blocks on the sandbox's slot pool like any other run: the
    # slots, not this width, bound the children running on the machine. A
    # test's time is the program's own (sandbox/clock.py), so running others
    # beside it does not charge it their time.
    with ThreadPoolExecutor(max_workers=width, thread_name_prefix="qflow-io-judge") as ex:
        return list(ex.map(one, tests))


def parse_io_source(source: str) -> tuple[str, str] | None:
    """The pair an I/O test's label renders (:func:`problem.io_source`), when
    the label holds it whole (neither side cut short); else None."""
    m = re.fullmatch(r"input (.*) -> output (.*)", source, re.S)
    if not m or source.endswith("…") or "'… -> output" in source or '"… -> output' in source:
        return None
    try:
        pair = ast.literal_eval(m.group(1)), ast.literal_eval(m.group(2))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if not all(isinstance(x, str) for x in pair):
        return None
    return pair[0], pair[1]


def resolve_io_tests(problem: Problem, tests: Sequence[str | TestCase]) -> list[TestCase]:
    """The I/O tests a workflow names by their labels: the problem's own by
    their ``source``, others (synthesized) read back from a whole label. A
    label that names no test is an error the caller sees as a ValueError."""
    known = {t.source: t for t in problem.tests}
    out = []
    for t in tests:
        if isinstance(t, TestCase):
            out.append(t)
            continue
        if t in known:
            out.append(known[t])
            continue
        pair = parse_io_source(t)
        if pair is None:
            raise ValueError(f"not an input/output test of this problem: {t[:120]}")
        out.append(io_test(*pair))
    return out


def judge_problem_sync(
    sandbox: Sandbox, program: str, problem: Problem, compare: str = DEFAULT_COMPARE
) -> SandboxReport:
    """An I/O problem's visible tests, under its own time and memory limits."""
    box = Sandbox(io_config(sandbox.config, problem.time_limit, problem.memory_mb))
    return judge_io_sync(box, program, problem.tests, compare)


# -------------------------------------------------------------- APPS call-based

#: What APPS's harness puts in front of every program it runs (both kinds): the
#: imports of its ``testing_util.run_test``, numpy only where it is installed.
APPS_PRELUDE = """import sys
import time
import itertools
from itertools import accumulate, product, permutations, combinations
import collections
from collections import Counter, OrderedDict, deque, defaultdict, ChainMap
from functools import lru_cache
import math
from math import sqrt, sin, cos, tan, ceil, fabs, floor, gcd, exp, log, log2
import fractions
from typing import List, Tuple
try:
    import numpy as np
except ImportError:
    pass
import random
import heapq
from heapq import *
"""

_APPS_NUMPY_IMPORT = "try:\n    import numpy as np\nexcept ImportError:\n    pass\n"

#: :data:`APPS_PRELUDE` for a program whose text never names numpy: ``np`` is
#: bound to a stand-in that imports numpy at its first use (a program can reach
#: ``np`` without naming it only through ``globals()``, ``eval`` and the like).
#: A zygote holding numpy makes every fork of it dearer (its pages are mapped
#: in each of a test's three processes and unmapped at their end; measured in
#: ``docs/performance.md``), so such a program's tests are forked from one
#: without it.
APPS_PRELUDE_NUMPY_LATER = APPS_PRELUDE.replace(
    _APPS_NUMPY_IMPORT,
    """class __qf_numpy__(type(sys)):
    def __getattr__(self, name):
        try:
            import numpy
        except ImportError:
            raise NameError("name 'np' is not defined") from None
        if globals().get("np") is self:
            globals()["np"] = numpy
        return getattr(numpy, name)
np = __qf_numpy__("numpy")
del __qf_numpy__
""",
)

#: The modules :data:`APPS_PRELUDE` imports that cost time to load: imported
#: once in the zygote the tests' processes are forked from
#: (``SandboxConfig.preload``), as APPS's harness imports them once for all.
APPS_MODULES: tuple[str, ...] = (
    "numpy",
    "fractions",
    "typing",
    "random",
    "heapq",
    "collections",
    "itertools",
    "functools",
)
#: Those of them a program that never names numpy gets (:data:`APPS_PRELUDE_NUMPY_LATER`).
APPS_MODULES_NO_NUMPY = tuple(m for m in APPS_MODULES if m != "numpy")

_NAMES_NUMPY = re.compile(r"\b(?:np|numpy)\b")


def apps_prelude(program: str) -> tuple[str, tuple[str, ...]]:
    """The prelude ``program`` runs after as APPS's harness runs it, and the
    modules preloaded where its processes are forked: :data:`APPS_PRELUDE`
    with numpy loaded when its text names ``np`` or ``numpy`` anywhere (code,
    string or comment), else :data:`APPS_PRELUDE_NUMPY_LATER` without it."""
    if _NAMES_NUMPY.search(program):
        return APPS_PRELUDE, APPS_MODULES
    return APPS_PRELUDE_NUMPY_LATER, APPS_MODULES_NO_NUMPY


def apps_sandbox(sandbox: Sandbox, modules: tuple[str, ...] = APPS_MODULES) -> Sandbox:
    """``sandbox`` with ``modules`` (APPS's) preloaded where its children are forked."""
    if sandbox.config.preload == modules:
        return sandbox
    return Sandbox(replace(sandbox.config, preload=modules))


_CALL_RUNNER = r"""
def __qf_apps_call__(name, args_json):
    import json as _json

    args = _json.loads(args_json)
    if args and isinstance(args[0], dict):
        try:
            args = [{int(k): v for k, v in args[0].items()}]
        except (ValueError, TypeError):
            pass
    if "Solution" in globals() and isinstance(globals()["Solution"], type) and __qf_class__:
        target = getattr(globals()["Solution"](), name)
    else:
        target = globals()[name]
    return target(*args)
"""


def judge_calls_sync(
    sandbox: Sandbox,
    program: str,
    fn_name: str,
    tests: Sequence[tuple[list[object], object]],
    *,
    prelude: str = "",
) -> SandboxReport:
    """APPS's call-based problems: call ``fn_name`` (a method of ``Solution``
    when the program contains ``class Solution``, as APPS does) with each test's arguments in the sandbox, and compare
    its value with the expected output here (:func:`apps_call_match`).
    ``prelude``: code put in front of the program (:data:`APPS_PRELUDE`)."""
    if not fn_name.isidentifier():
        raise ValueError(f"fn_name {fn_name!r} is not a Python name")
    modules = APPS_MODULES
    if prelude == APPS_PRELUDE:
        prelude, modules = apps_prelude(program)
    solution_class = "class Solution" in program
    # Each compiled apart, in the module's namespace, so an error names the
    # program's own line (not one shifted by the prelude's).
    src = (
        f"exec(compile({prelude!r}, '<apps prelude>', 'exec'))\n"
        f"exec(compile({program!r}, 'program.py', 'exec'))\n" + _CALL_RUNNER + f"\n__qf_class__ = {solution_class!r}\n"
    )
    calls = [f"__qf_apps_call__({fn_name!r}, {json.dumps(args)!r})" for args, _ in tests]
    if prelude:
        sandbox = apps_sandbox(sandbox, modules)
    results = sandbox.call_values_sync(src, calls)
    report = SandboxReport(isolation=sandbox.isolation)
    for (args, want), res in zip(tests, results, strict=True):
        label = f"{fn_name}(*{json.dumps(args)[:200]}) == {json.dumps(want)[:200]}"
        if res.status != "ok":
            st: Status = "timeout" if res.status == "timeout" else "error"
            report.results.append(TestOutcome(label, st, error=res.load_error or res.error, duration=res.duration))
        elif apps_call_match(res.value, want):
            report.results.append(TestOutcome(label, "pass", actual=repr(res.value)[:ACTUAL_CHARS]))
        else:
            report.results.append(
                TestOutcome(label, "fail", actual=repr(res.value)[:ACTUAL_CHARS], error="wrong value")
            )
    if results and results[0].load_error:
        report.load_error = results[0].load_error
    return report
