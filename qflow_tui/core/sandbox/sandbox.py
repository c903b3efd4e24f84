"""The sandbox the rest of the app calls: run a program against asserts, or
judge imagined values, and return a :class:`SandboxReport`."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..asserts import detect_entry_point
from ..safe_text import valid, valid_text
from . import cgroups
from .codec import NotPlain, decode_value, encode_value, is_boxed, is_foreign, is_subclassed
from .config import SandboxConfig, memory_plan
from .harness.wire import CallReply, Incoming, Limits, OracleRequest
from .isolation import Isolation, WeakLevelRefused, detect_isolation, weak_refusal
from .plainops import EvalError
from .pool import max_runs
from .report import SandboxReport, Status, TestOutcome
from .servers import Servers
from .truth import TruthFile
from .verdict import (
    TRUSTED_NAMES,
    Ctx,
    Leaf,
    LeafError,
    TestPlan,
    callable_helpers,
    defined_names,
    own_names,
    plan_test,
    safe_repr,
)
from .watchdog import DISK_CHECK_EVERY

_executor: concurrent.futures.ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def _get_executor(workers: int) -> concurrent.futures.ThreadPoolExecutor:
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="qflow-sandbox")
        return _executor


class Sandbox:
    """Runs untrusted code in limited child processes. Safe to share and to
    call concurrently; at most ``isolation.slots`` children run at once."""

    def __init__(self, config: SandboxConfig | None = None, *, refuse_weak: bool = True):
        """``refuse_weak``: raise :class:`WeakLevelRefused` when the user's level
        (``auto``, or ``QFLOW_SANDBOX_ISOLATION``) as root cannot stop a program
        from signalling every process and the second setting does not accept
        that (see :func:`weak_refusal`); ``qflow doctor`` reports such a level
        instead."""
        self.config = config or SandboxConfig()
        self._iso: Isolation = detect_isolation(self.config.effective_isolation())
        refusal = weak_refusal(self._iso) if refuse_weak and self.config.isolation == "auto" else None
        if refusal is not None:
            raise WeakLevelRefused(refusal)
        if not self._iso.layers & {"bwrap", "uid"}:
            _not_dumpable()
        self.memory = memory_plan(self.config, self._iso.slots, "bwrap" in self._iso.layers, self.uses_cgroup)

    @property
    def isolation(self) -> str:
        return self._iso.label

    @property
    def details(self) -> Isolation:
        return self._iso

    @property
    def interpreter(self) -> str:
        """The Python interpreter the judged programs run on."""
        return self._iso.interpreter

    @property
    def uses_cgroup(self) -> bool:
        """Whether each child runs in a memory and pids cgroup of its own."""
        return self.config.cgroup and cgroups.support().version > 0

    def protects(self) -> dict[str, bool]:
        """What this sandbox guarantees, by threat: its level's layers plus
        the cgroup where one is in use."""
        return self._iso.protects(cgroup=self.uses_cgroup)

    def bounds(self) -> dict[str, str]:
        """The memory and disk bounds in force, one line each (``qflow doctor``)."""
        c, has = self.config, self._iso.layers.__contains__
        sup = cgroups.support()
        tmpfs = f"{c.max_disk_mb} MB tmpfs for the work dir, /tmp and /dev/shm each"
        if self.uses_cgroup:
            cg = f"yes, v{sup.version}: one per child, for all its processes together, shared memory included"
        elif not c.cgroup:
            cg = "no: turned off in the config"
        else:
            cg = f"no: {sup.note}"
        if has("seccomp"):
            memfd = "refused (seccomp)"
        elif has("bwrap"):
            memfd = "allowed; counted by the cgroup" if self.uses_cgroup else "allowed; not counted by RLIMIT_AS"
        else:
            memfd = "allowed; counted by the disk cap" + (" and the cgroup" if self.uses_cgroup else "")
        if has("bwrap"):
            disk = f"sized mounts ({tmpfs}); unlinked files count against their mount"
        else:
            disk = (
                f"{c.max_disk_mb} MB for the work dir plus the files the child keeps open or mapped after "
                f"unlinking them, checked every {DISK_CHECK_EVERY:g} s"
            )
            disk += (
                "; it can write nowhere else (Landlock)" if has("landlock") else "; /tmp and /dev/shm are not counted"
            )
        return {
            "cgroup": cg,
            "RLIMIT_AS": f"{self.memory.per_process_mb} MB per process",
            "RLIMIT_NOFILE": f"{c.max_open_files} open files per process",
            "RLIMIT_FSIZE": f"{c.max_file_mb} MB per file",
            "memfd_create": memfd,
            "disk": disk,
        }

    # ------------------------------------------------------------ async API
    async def run_tests(
        self,
        program: str,
        tests: list[str],
        entry_point: str | None = None,
        setup: str = "",
        *,
        trusted_tests: bool = False,
    ) -> SandboxReport:
        """Run ``program`` against each assert in ``tests``. ``trusted_tests``:
        see :meth:`run_tests_sync`."""
        return await self._in_thread(
            functools.partial(self.run_tests_sync, trusted_tests=trusted_tests), program, tests, entry_point, setup
        )

    async def check_values(
        self, items: list[tuple[str, str]], entry_point: str | None = None, setup: str = ""
    ) -> SandboxReport:
        """Imagined-execution verdicts: each ``(assert_src, value_src)`` is judged
        with the call under test replaced by the value expression; no program
        is loaded."""
        return await self._in_thread(self.check_values_sync, items, entry_point, setup)

    async def _in_thread(self, fn: Callable[..., SandboxReport], *args: object) -> SandboxReport:
        cancel = threading.Event()
        loop = asyncio.get_running_loop()
        # As many threads as runs that can hold their children at once (a
        # program's and an oracle's each): a run beyond them waits here, in the
        # executor's queue, for nothing. Given a thread of its own, it waited
        # for slots there, woken with every other waiter at each slot freed and
        # every 20 ms: on 2 cores a bench of HumanEval spent a fifth of its
        # sandbox threads' time so, on the cores that judge (docs/performance.md).
        fut = loop.run_in_executor(_get_executor(max_runs(self._iso)), lambda: fn(*args, cancel=cancel))
        try:
            return await asyncio.shield(fut)
        except asyncio.CancelledError:
            # The worker notices within 50 ms and kills its children; wait for
            # that, so that once cancelled, nothing of this run is left.
            cancel.set()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(fut), timeout=10)
            raise

    # ------------------------------------------------------------- sync API
    def run_tests_sync(
        self,
        program: str,
        tests: list[str],
        entry_point: str | None = None,
        setup: str = "",
        *,
        cancel: threading.Event | None = None,
        trusted_tests: bool = False,
    ) -> SandboxReport:
        """Run ``program`` against each assert in ``tests``. With
        ``trusted_tests`` (the tests and the setup are a dataset's own, never
        generated code), their oracle process may be a shared one that serves
        other runs too (see ``servers``); the program's process is fresh
        either way."""
        if entry_point is None:
            entry_point = detect_entry_point(tests)
        defined = defined_names(program)
        if entry_point is not None:
            # An assert that does not call the entry point has a helper of the
            # program's as its subject, never a builtin the program redefined.
            defined = {n for n in defined if n == entry_point or n not in TRUSTED_NAMES}
        leaf_srcs: list[str] = []
        local = own_names(program, setup)
        plans = [_plan(i, t, entry_point, leaf_srcs, defined=defined, local_names=local) for i, t in enumerate(tests)]
        helpers = callable_helpers(program, tests, entry_point, setup)
        return self._execute(program, plans, leaf_srcs, setup, cancel, helpers, trusted_tests)

    def check_values_sync(
        self,
        items: list[tuple[str, str]],
        entry_point: str | None = None,
        setup: str = "",
        *,
        cancel: threading.Event | None = None,
    ) -> SandboxReport:
        if entry_point is None:
            entry_point = detect_entry_point([a for a, _ in items])
        leaf_srcs: list[str] = []
        local = own_names(None, setup)
        plans = [_plan(i, a, entry_point, leaf_srcs, value_src=v, local_names=local) for i, (a, v) in enumerate(items)]
        return self._execute(None, plans, leaf_srcs, setup, cancel, [])

    async def run_check(
        self,
        program: str,
        check: str,
        entry_point: str,
        setup: str = "",
        *,
        check_function: str = "check",
        trusted_tests: bool = False,
        truth: TruthFile | None = None,
        load_limit: float | None = None,
    ) -> SandboxReport:
        """A dataset's whole test function (HumanEval's ``check(candidate)``):
        see :meth:`run_check_sync`."""
        return await self._in_thread(
            functools.partial(self.run_check_sync, trusted_tests=trusted_tests, truth=truth, load_limit=load_limit),
            program,
            check,
            entry_point,
            setup,
            check_function,
        )

    def call_values_sync(
        self, program: str, calls: list[str], setup: str = "", *, cancel: threading.Event | None = None
    ) -> list[CallResult]:
        """Load ``program`` once in a program process and evaluate each call
        expression there (each within the per-test limit), returning the plain
        values as they came back, or why none did. Nothing is judged here: the
        caller compares the values with what it expects (``core/iojudge.py``),
        in the app, so no expected value reaches the program's process."""
        t0 = time.monotonic()
        deadline = t0 + self.config.run_deadline(len(calls))
        servers = self._servers(program, setup, len(calls), False, deadline, cancel, [])
        out: list[CallResult] = []
        try:
            replies = servers.call_many([[c] for c in calls]) if calls else []
            for reply, took in replies:
                if "v" in reply:
                    found: list[Any] = []
                    try:
                        value = decode_value(reply["v"][0], 0, found)
                        value = _by_value(value) if found else value
                    except _DECODE_ERRORS as exc:
                        out.append(CallResult("error", error=f"the program's value could not be read: {exc}"))
                    except NotPlain as exc:
                        out.append(CallResult("error", error=str(exc), duration=took))
                    else:
                        out.append(CallResult("ok", value, duration=took))
                    continue
                st = reply.get("st")
                out.append(
                    CallResult(
                        "timeout" if st == "timeout" else "error", error=str(reply.get("e"))[:5000], duration=took
                    )
                )
            load_error = servers.load_error
        finally:
            servers.close()
        report = SandboxReport(isolation=self._iso.label)
        self._finish(report, servers, t0)
        for r in out:
            r.load_error = valid_text(load_error) if load_error is not None else None
            r.error = valid_text(r.error) if r.error is not None else None
            r.stderr = report.stderr
        return out

    # ------------------------------------------------------------ internals
    def _limits(self, n: int) -> Limits:
        c = self.config
        return {
            "as": self.memory.per_process_mb << 20,
            "cpu": c.cpu_limit(n),
            "nproc": c.max_procs,
            "fsize": c.max_file_mb << 20,
            "nofile": c.max_open_files,
            "core": 0,
        }

    def _servers(
        self,
        program: str | None,
        setup: str,
        n: int,
        need_oracle: bool,
        deadline: float,
        cancel: threading.Event | None,
        helpers: list[str],
        trusted_tests: bool = False,
        load_limit: float | None = None,
    ) -> Servers:
        return Servers(
            self._iso,
            self.config,
            program=program,
            setup=setup,
            proxies=helpers,
            need_oracle=need_oracle,
            deadline=deadline,
            cancel=cancel,
            limits=self._limits(n),
            shared_oracle=trusted_tests,
            load_limit=load_limit,
        )

    def run_check_sync(
        self,
        program: str,
        check: str,
        entry_point: str,
        setup: str = "",
        check_function: str = "check",
        *,
        cancel: threading.Event | None = None,
        trusted_tests: bool = False,
        truth: TruthFile | None = None,
        load_limit: float | None = None,
    ) -> SandboxReport:
        """Run ``check_function(candidate)`` from the source ``check`` in the
        trusted oracle process, with ``candidate`` (and the helpers the check
        may call, see :func:`verdict.callable_helpers`) calling into the
        program's process. One result:
        ``pass`` when the check returns, ``fail`` on an AssertionError or a
        value that is not plain, ``timeout``/``error`` otherwise. ``setup``
        runs in both processes (imports both sides need). ``trusted_tests``:
        the check is a dataset's own (see :meth:`run_tests_sync`).
        ``truth``: the check's ground truth on disk, read or kept through
        ``__qf_truth__``/``__qf_keep__`` (see ``truth``); the caller calls its
        ``finish``. ``load_limit``: the most of its own time the program may
        take to load (default twice the per-test limit); the time it took is
        the check's ``__qf_loaded__``, for a rule that counts the import, and
        the report's ``load_time``. ``report.charged``: what the check says it
        charged against its rules (``__qf_charged__``)."""
        t0 = time.monotonic()
        c = self.config
        deadline = t0 + (c.run_timeout if c.run_timeout is not None else 30.0 + 20 * c.timeout)
        report = SandboxReport(isolation=self._iso.label)
        label = f"{check_function}({entry_point})"
        helpers = callable_helpers(program, [check], entry_point, setup)
        servers = self._servers(program, setup, 1, True, deadline, cancel, helpers, trusted_tests, load_limit)
        try:
            # Load the program first: a program that does not load fails the
            # check with the reason, as run_tests reports it.
            servers._program_child()
            report.load_time = servers.load_time
            if servers.load_error is not None:
                report.load_error = servers.load_error
                outcome = TestOutcome(label, "error", error=servers.load_error)
            else:
                request: OracleRequest = {"op": "check", "src": check, "fn": check_function, "entry": entry_point}
                request["loaded"] = servers.load_time
                if truth is not None:
                    servers.truth = truth
                    request["truth"] = truth.mode
                request["limit"] = c.check_limit()
                res = servers.ask_oracle(request, c.check_limit())
                outcome = _check_outcome(label, res)
                report.charged = _charged(res.get("charged"))
            outcome.duration = time.monotonic() - t0
        finally:
            servers.close()
        report.results = [outcome]
        self._finish(report, servers, t0)
        return report

    def _execute(
        self,
        program: str | None,
        plans: list[TestPlan],
        leaf_srcs: list[str],
        setup: str,
        cancel: threading.Event | None,
        helpers: list[str],
        trusted_tests: bool = False,
    ) -> SandboxReport:
        t0 = time.monotonic()
        deadline = t0 + self.config.run_deadline(len(plans))
        report = SandboxReport(isolation=self._iso.label)
        outcomes: dict[int, TestOutcome] = {}
        for p in plans:
            if p.error is not None:
                outcomes[p.index] = TestOutcome(p.test, "error", error=p.error)
        runnable = [p for p in plans if p.error is None and (p.subject_srcs or p.scoped_calls)]
        if not runnable:
            report.results = [outcomes.get(p.index) or TestOutcome(p.test, "error", error="no result") for p in plans]
            report.duration = time.monotonic() - t0
            return report
        need_oracle = bool(leaf_srcs) or any(p.mode == "judge" for p in runnable)
        servers = self._servers(program, setup, len(runnable), need_oracle, deadline, cancel, helpers, trusted_tests)
        try:
            leaves = self._leaves(servers, leaf_srcs)
            subjects: dict[int, list[object]] = {}
            calling = []
            for p in runnable:
                if p.subject_srcs:
                    calling.append(p)
                else:  # only calls inside a comprehension: the oracle makes them
                    outcomes[p.index], subjects[p.index] = TestOutcome(p.test, "pass"), []
            replies = servers.call_many([p.subject_srcs for p in calling]) if calling else []
            foreign: set[int] = set()
            for p, (reply, took) in zip(calling, replies, strict=True):
                outcomes[p.index], vals, numpy_values = self._subject_outcome(p, reply, took)
                if vals is not None:
                    subjects[p.index] = vals
                    if numpy_values:
                        foreign.add(p.index)
            if servers.load_error is not None:
                report.load_error = servers.load_error
            for p in runnable:
                if p.index in subjects:
                    self._verdict(p, outcomes[p.index], subjects[p.index], leaves, servers, p.index in foreign)
        finally:
            servers.close()
        report.results = [outcomes.get(p.index) or TestOutcome(p.test, "error", error="no result") for p in plans]
        self._finish(report, servers, t0)
        return report

    def _finish(self, report: SandboxReport, servers: Servers, t0: float) -> None:
        # What the children said enters the app here: as valid text (a program's
        # lone surrogate would end a run where the session is written).
        report.results, report.load_error = valid((report.results, report.load_error))
        cap = self.config.max_output_kb * 1024
        report.stdout = _cap_text(bytes(servers.stdout), cap)
        report.stderr = _cap_text(bytes(servers.stderr), cap)
        report.duration = time.monotonic() - t0

    def _leaves(self, servers: Servers, srcs: list[str]) -> list[Leaf]:
        """The expected values, computed in the oracle process: one request
        and one answer for them all (each leaf within its own time limit), so
        50 cost about what 1 does. When that answer does not come (a leaf
        ended the oracle, or the values overflow one line), one request per
        leaf, sent at once: a leaf that kills the oracle then loses only
        itself, and the leaves after it are asked of a fresh one."""
        timeout = self.config.timeout
        if len(srcs) > 1:
            res = servers.ask_oracle({"op": "leaves", "srcs": srcs, "each": timeout}, timeout * len(srcs))
            items = res.get("vs")
            leaves = [x for x in items if type(x) is dict] if type(items) is list else []
            if len(leaves) == len(srcs) and type(items) is list and len(items) == len(srcs):
                return [self._leaf({"v": [x["v"]]} if "v" in x else x) for x in leaves]
        answers = servers.ask_oracle_many([{"op": "leaf", "src": s} for s in srcs], timeout)
        return [self._leaf(res) for res in answers]

    @staticmethod
    def _leaf(res: Mapping[str, object]) -> Leaf:
        encoded = res.get("v")
        if type(encoded) is list and len(encoded) == 1:
            found: list[object] = []
            try:
                value = decode_value(encoded[0], 0, found)
            except _DECODE_ERRORS:
                return {"e": "malformed value", "t": "malformed"}
            if found:
                # An expected value of numpy's: the oracle judges the assert,
                # with numpy's own value (see _verdict).
                return {"e": "the expected value is a numpy or standard-library value", "t": "notplain"}
            return {"v": value}
        kind = "timeout" if res.get("st") == "timeout" else str(res.get("t", ""))
        return {"e": str(res.get("e"))[:2000], "t": kind}

    def _verdict(
        self,
        p: TestPlan,
        out: TestOutcome,
        vals: list[object],
        leaves: list[Leaf],
        servers: Servers,
        foreign: bool = False,
    ) -> None:
        """The assert's verdict over the program's values: the app's own
        evaluator where it knows the shape, else the oracle process. A value
        of numpy's (``foreign``) is always judged there: it rebuilds the
        value as numpy's own, so the assert sees what the program returned."""
        if p.mode != "judge" and p.evaluate is not None and not foreign:
            try:
                ok = p.evaluate(Ctx(vals, leaves))
                out.status, out.error = ("pass", None) if ok else ("fail", "assertion failed")
                return
            except LeafError as exc:
                if exc.kind != "notplain":
                    out.status, out.error = "error", str(exc)
                    return
            except EvalError as exc:
                out.status, out.error = "error", str(exc)
                return
            except (RecursionError, MemoryError):
                out.status, out.error = "error", "value too large or nested too deeply to compare"
                return
            if not p.judge_expr:
                out.status, out.error = "error", "the expected value is not a plain value"
                return
        try:
            encoded = [encode_value(v) for v in vals]
        except (NotPlain, RecursionError):
            out.status, out.error = "error", "value nested too deeply to judge"
            return
        res = servers.ask_oracle({"op": "assert", "expr": p.judge_expr, "subjects": encoded}, self.config.timeout)
        if type(res.get("ok")) is bool:
            out.status = "pass" if res["ok"] else "fail"
            out.error = None if res["ok"] else "assertion failed"
        else:
            out.status = "timeout" if res.get("st") == "timeout" else "error"
            out.error = "judging the assert: " + str(res.get("e"))[:5000]

    def _subject_outcome(
        self, p: TestPlan, reply: CallReply, duration: float
    ) -> tuple[TestOutcome, list[object] | None, bool]:
        """The call's outcome so far, its values (None when there are none)
        and whether they hold a numpy or standard-library value (Foreign, Boxed) (see ``_verdict``)."""
        out = TestOutcome(p.test, "error", duration=duration)
        if "v" in reply:
            found: list[object] = []
            try:
                vals = [decode_value(e, 0, found) for e in reply["v"]]
            except _DECODE_ERRORS as exc:
                out.status, out.error = "error", f"the program's value could not be read: {exc}"
                return out, None, False
            out.actual = safe_repr(vals[0]) if len(vals) == 1 else safe_repr(tuple(vals))
            out.status = "pass"  # provisional: the verdict comes next
            return out, vals, bool(found)
        st = reply.get("st")
        out.status = "fail" if st == "notplain" else "timeout" if st == "timeout" else "error"
        out.error = reply.get("e")
        return out, None, False


_DECODE_ERRORS = (ValueError, TypeError, RecursionError, OverflowError, MemoryError)


def _by_value(value: object) -> object:
    """``value`` with each numpy scalar in it made its plain value, and each
    Counter-like a dict, as APPS's ``output == expected`` compares them (``call_values_sync``'s callers
    compare in the app, without numpy); NotPlain for a numpy array, whose
    element-wise ``==`` no such comparison takes."""
    t = type(value)
    if is_foreign(value):
        if value.shape is not None:
            raise NotPlain(f"a value of type numpy.ndarray {value.shape} is not a plain value")
        return value.data
    if is_boxed(value):
        if type(value.data) is not dict:  # a Counter, OrderedDict or defaultdict: as a dict, as before
            raise NotPlain(f"a value of type {value.type_name} is not a plain value")
        return _by_value(value.data)
    if is_subclassed(value):  # a program's subclass of a built-in: refused, as before
        raise NotPlain(f"a value of type {value.name} (a {value.base} subclass) is not a plain built-in value")
    if isinstance(value, (list, tuple)) and (t is list or t is tuple):
        items = [_by_value(v) for v in value]
        return items if t is list else tuple(items)
    if isinstance(value, dict) and t is dict:
        return {_by_value(k): _by_value(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)) and (t is set or t is frozenset):
        found = (_by_value(v) for v in value)
        return set(found) if t is set else frozenset(found)
    return value


@dataclass
class CallResult:
    """What one call into a program process gave (see ``call_values_sync``)."""

    status: Literal["ok", "error", "timeout"]
    value: Any = None
    error: str | None = None
    duration: float = 0.0
    """The program's own time for the call (see ``clock``)."""
    load_error: str | None = None
    """Why the program did not load, when it did not (the run's, on every call)."""
    stderr: str = ""
    """What the run's processes wrote to stderr (the run's, on every call)."""


def _not_dumpable() -> None:
    """Make this (the app's) process undumpable: its /proc entries (environ,
    mem, maps, fds) then belong to root, so a child running as the same user
    cannot read the API keys from them. Also stops core dumps of the app."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except (OSError, AttributeError):
        pass


def _plan(
    index: int,
    test: str,
    entry_point: str | None,
    leaf_srcs: list[str],
    value_src: str | None = None,
    defined: set[str] | frozenset[str] = frozenset(),
    local_names: frozenset[str] | None = None,
) -> TestPlan:
    """plan_test, with any failure to read the test as that test's error."""
    saved = len(leaf_srcs)
    try:
        return plan_test(index, test, entry_point, leaf_srcs, value_src, defined, local_names)
    except (RecursionError, MemoryError, ValueError) as exc:
        del leaf_srcs[saved:]
        return TestPlan(index=index, test=test, error=f"not a test the sandbox can read: {type(exc).__name__}")


def _charged(pairs: object) -> list[tuple[float, float]] | None:
    """A trusted check's ``[[seconds, limit], ...]``, validated."""
    if type(pairs) is not list or not pairs:
        return None
    out = []
    for pair in pairs[:8]:
        if type(pair) is not list or len(pair) != 2 or not all(type(x) in (int, float) for x in pair):
            return None
        out.append((float(pair[0]), float(pair[1])))
    return out


def _check_outcome(label: str, res: Incoming) -> TestOutcome:
    if res.get("ok") is True:
        return TestOutcome(label, "pass")
    if res.get("ok") is False:
        return TestOutcome(label, "fail", error=str(res.get("e") or "assertion failed")[:5000])
    st = res.get("st")
    status: Status = "timeout" if st == "timeout" else "fail" if st == "fail" else "error"
    return TestOutcome(label, status, error=str(res.get("e"))[:5000])


def _cap_text(data: bytes, cap: int) -> str:
    text = data.decode("utf-8", "replace")
    if len(data) > cap:
        text = text[:cap] + "\n[... truncated]"
    return text
