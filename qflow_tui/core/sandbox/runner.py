"""The sandbox the rest of the app calls: run a program against asserts, or
judge imagined values, and return a :class:`SandboxReport`."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from typing import Any

from ..asserts import detect_entry_point
from .config import SandboxConfig
from .harness import decode_value
from .isolation import Isolation, detect_isolation, slot_pool
from .process import ChildRun, run_child
from .report import SandboxReport, TestOutcome
from .verdict import Ctx, EvalError, LeafError, TestPlan, defined_names, plan_test, safe_repr

#: After this many restarts (a test killed for time, a crash, an exit), the
#: remaining tests are not run: a program that dies on every test should not
#: cost one interpreter start per test.
MAX_RESPAWNS = 3

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

    def __init__(self, config: SandboxConfig | None = None):
        self.config = config or SandboxConfig()
        self._iso: Isolation = detect_isolation(self.config.effective_isolation())

    @property
    def isolation(self) -> str:
        return self._iso.label

    @property
    def details(self) -> Isolation:
        return self._iso

    # ------------------------------------------------------------ async API
    async def run_tests(
        self, program: str, tests: list[str], entry_point: str | None = None, setup: str = ""
    ) -> SandboxReport:
        """Run ``program`` against each assert in ``tests``."""
        return await self._in_thread(self.run_tests_sync, program, tests, entry_point, setup)

    async def check_values(
        self, items: list[tuple[str, str]], entry_point: str | None = None, setup: str = ""
    ) -> SandboxReport:
        """Imagined-execution verdicts: each ``(assert_src, value_src)`` is judged
        with the call under test replaced by the value expression; no program
        is loaded."""
        return await self._in_thread(self.check_values_sync, items, entry_point, setup)

    async def _in_thread(self, fn: Any, *args: Any) -> SandboxReport:
        cancel = threading.Event()
        loop = asyncio.get_running_loop()
        fut = loop.run_in_executor(_get_executor(self._iso.slots), lambda: fn(*args, cancel=cancel))
        try:
            return await asyncio.shield(fut)
        except asyncio.CancelledError:
            cancel.set()  # the worker kills its child within ~50 ms
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
    ) -> SandboxReport:
        if entry_point is None:
            entry_point = detect_entry_point(tests)
        defined = defined_names(program)
        leaf_srcs: list[str] = []
        plans = [plan_test(i, t, entry_point, leaf_srcs, defined=defined) for i, t in enumerate(tests)]
        return self._execute(program, plans, leaf_srcs, setup, cancel)

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
        plans = [plan_test(i, a, entry_point, leaf_srcs, value_src=v) for i, (a, v) in enumerate(items)]
        return self._execute(None, plans, leaf_srcs, setup, cancel)

    # ------------------------------------------------------------ internals
    def _job_base(self, n: int) -> dict[str, Any]:
        c = self.config
        return {
            "timeout": c.timeout,
            "max_value": c.max_value_kb * 1024,
            "limits": {
                "as": c.memory_mb << 20,
                "cpu": c.cpu_limit(n),
                "nproc": c.max_procs,
                "fsize": c.max_file_mb << 20,
                "core": 0,
            },
            "seccomp": {"path": list(self._iso.seccomp_path)} if self._iso.seccomp_path else None,
        }

    def _child(self, job: dict[str, Any], deadline: float, cancel: threading.Event | None) -> ChildRun:
        c = self.config
        pool = slot_pool(self._iso)
        slot = pool.acquire()
        try:
            return run_child(
                self._iso.launch(slot),
                job,
                phase_limit={"setup": c.timeout + 0.3, "load": c.timeout + 0.3, "test": c.timeout + 0.3},
                deadline=deadline,
                max_output=c.max_output_kb * 1024,
                max_line=2 * c.max_value_kb * 1024 + (1 << 20),
                cancel=cancel,
            )
        finally:
            pool.release(slot)

    def _execute(
        self,
        program: str | None,
        plans: list[TestPlan],
        leaf_srcs: list[str],
        setup: str,
        cancel: threading.Event | None,
    ) -> SandboxReport:
        t0 = time.monotonic()
        deadline = t0 + self.config.run_deadline(len(plans))
        report = SandboxReport(isolation=self._iso.label)
        outcomes: dict[int, TestOutcome] = {}
        out_parts: list[bytes] = []
        err_parts: list[bytes] = []

        for p in plans:
            if p.error is not None:
                outcomes[p.index] = TestOutcome(p.test, "error", error=p.error)
        runnable = [p for p in plans if p.error is None and p.subject_srcs]
        subjects: dict[int, list[Any]] = {}
        leaves: list[dict] = []

        if runnable:
            base = self._job_base(len(runnable))
            todo = list(runnable)
            first = True
            respawns = 0
            while todo:
                job = dict(
                    base,
                    mode="run",
                    setup=setup,
                    program=program,
                    leaves=leaf_srcs,
                    skip_leaves=not first,
                    tests=[{"i": p.index, "subjects": p.subject_srcs} for p in todo],
                )
                run = self._child(job, deadline, cancel)
                out_parts.append(run.stdout)
                err_parts.append(run.stderr)
                if run.hello is None and run.end not in ("deadline", "cancelled"):
                    from .process import SandboxUnavailable

                    raise SandboxUnavailable(
                        f"the sandbox child did not start ({run.detail}): "
                        + run.stderr.decode("utf-8", "replace")[-500:]
                    )
                if first:
                    leaves = self._decode_leaves(run.leaves, len(leaf_srcs), run)
                    first = False
                if run.end == "protocol":
                    # Only the program can write out of order on the private
                    # channel: nothing this child reported counts.
                    why = f"fail: the program tampered with the result channel ({run.detail})"
                    for p in todo:
                        outcomes[p.index] = TestOutcome(p.test, "fail", error=why)
                        subjects.pop(p.index, None)
                    if not run.loaded:
                        report.load_error = why
                    break
                for p in todo:
                    res = run.results.get(p.index)
                    if res is not None:
                        outcomes[p.index], vals = self._subject_outcome(p, res, run.durations.get(p.index, 0.0))
                        if vals is not None:
                            subjects[p.index] = vals
                if not run.loaded:
                    reason = self._load_failure(run)
                    report.load_error = reason
                    for p in todo:
                        outcomes.setdefault(p.index, TestOutcome(p.test, "error", error=reason))
                    break
                if run.end == "done":
                    break
                # Ended early during a test: that test gets the reason; the rest
                # run in a fresh child (unless the run is out of time or restarts).
                cur = run.current
                for p in todo:
                    if p.index == cur:
                        status = "timeout" if run.end in ("timeout", "deadline") else "error"
                        outcomes[p.index] = TestOutcome(
                            p.test, status, error=self._end_reason(run), duration=run.durations.get(p.index, 0.0)
                        )
                todo = [p for p in todo if p.index not in outcomes]
                if not todo:
                    break
                respawns += 1
                stop = None
                if run.end in ("deadline", "cancelled"):
                    stop = ("timeout", self._end_reason(run))
                elif respawns > MAX_RESPAWNS:
                    stop = (
                        "error",
                        f"not run: the sandbox process ended early {respawns} times (last: {self._end_reason(run)})",
                    )
                if stop is not None:
                    for p in todo:
                        outcomes[p.index] = TestOutcome(p.test, stop[0], error=stop[1])
                    break

        # Verdicts: the parent's evaluator where it knows the shape, else the judge child.
        judge: list[TestPlan] = []
        for p in plans:
            if p.index in outcomes and outcomes[p.index].status != "pass":
                continue
            if p.error is not None:
                continue
            if not p.subject_srcs:
                judge.append(p)
                continue
            if p.index not in subjects:
                continue
            out = outcomes[p.index]
            if p.mode == "judge":
                judge.append(p)
                continue
            try:
                ok = p.evaluate(Ctx(subjects[p.index], leaves))  # type: ignore[misc]
                out.status = "pass" if ok else "fail"
                if not ok:
                    out.error = "assertion failed"
            except LeafError as exc:
                if exc.kind == "notplain":
                    judge.append(p)
                else:
                    out.status, out.error = "error", str(exc)
            except EvalError as exc:
                out.status, out.error = "error", str(exc)
            except RecursionError:
                out.status, out.error = "error", "value nested too deeply to compare"
        if judge and report.load_error is None:
            self._judge(judge, subjects, setup, outcomes, deadline, cancel, out_parts, err_parts)

        report.results = [outcomes.get(p.index) or TestOutcome(p.test, "error", error="no result") for p in plans]
        cap = self.config.max_output_kb * 1024
        report.stdout = _cap_text(b"".join(out_parts), cap)
        report.stderr = _cap_text(b"".join(err_parts), cap)
        report.duration = time.monotonic() - t0
        return report

    def _judge(
        self,
        plans: list[TestPlan],
        subjects: dict[int, list[Any]],
        setup: str,
        outcomes: dict[int, TestOutcome],
        deadline: float,
        cancel: threading.Event | None,
        out_parts: list[bytes],
        err_parts: list[bytes],
    ) -> None:
        from .harness import encode_value

        items = []
        for p in plans:
            vals = subjects.get(p.index, [])
            items.append({"i": p.index, "expr": p.judge_expr, "subjects": [encode_value(v) for v in vals]})
        job = dict(self._job_base(len(items)), mode="judge", setup=setup, items=items)
        run = self._child(job, deadline, cancel)
        out_parts.append(run.stdout)
        err_parts.append(run.stderr)
        for p in plans:
            out = outcomes.get(p.index) or TestOutcome(p.test, "error")
            outcomes[p.index] = out
            res = run.results.get(p.index)
            if res is None:
                out.status = "timeout" if run.current == p.index and run.end in ("timeout", "deadline") else "error"
                out.error = ("judging the assert: " + self._end_reason(run)) if run.end != "done" else "no result"
            elif "ok" in res and type(res["ok"]) is bool:
                out.status = "pass" if res["ok"] else "fail"
                out.error = None if res["ok"] else "assertion failed"
            else:
                out.status = "timeout" if res.get("st") == "timeout" else "error"
                out.error = str(res.get("e"))[:5000]

    def _subject_outcome(self, p: TestPlan, res: dict, duration: float) -> tuple[TestOutcome, list | None]:
        out = TestOutcome(p.test, "error", duration=duration)
        if "v" in res:
            enc = res["v"]
            try:
                if type(enc) is not list or len(enc) != len(p.subject_srcs):
                    raise ValueError("wrong number of values")
                vals = [decode_value(e) for e in enc]
            except (ValueError, TypeError, RecursionError, OverflowError) as exc:
                out.status, out.error = "fail", f"malformed result from the sandbox: {exc}"
                return out, None
            out.actual = safe_repr(vals[0]) if len(vals) == 1 else safe_repr(tuple(vals))
            out.status = "pass"  # provisional: the verdict comes next
            return out, vals
        st = res.get("st")
        out.status = st if st in ("fail", "error", "timeout") else "fail"
        out.error = str(res.get("e"))[:5000] if res.get("e") is not None else "malformed result"
        return out, None

    @staticmethod
    def _decode_leaves(raw: Any, n: int, run: ChildRun) -> list[dict]:
        if type(raw) is not list or len(raw) != n:
            why = "the test expressions were not evaluated: " + Sandbox._end_reason(run)
            return [{"e": why, "t": "missing"}] * n
        out: list[dict] = []
        for item in raw:
            if type(item) is dict and "v" in item:
                try:
                    out.append({"v": decode_value(item["v"])})
                    continue
                except (ValueError, TypeError, RecursionError, OverflowError):
                    out.append({"e": "malformed value", "t": "malformed"})
                    continue
            if type(item) is dict and "e" in item:
                out.append({"e": str(item["e"])[:2000], "t": str(item.get("t", ""))})
            else:
                out.append({"e": "malformed value", "t": "malformed"})
        return out

    @staticmethod
    def _load_failure(run: ChildRun) -> str:
        if run.load_error is not None:
            return run.load_error
        if run.phase in ("setup", "hello"):
            return "setup or test expressions did not finish: " + Sandbox._end_reason(run)
        return "the program did not load: " + Sandbox._end_reason(run)

    @staticmethod
    def _end_reason(run: ChildRun) -> str:
        if run.end == "timeout" and run.phase == "test":
            return "timeout: the test did not finish within its time limit (killed)"
        if run.end == "timeout" and run.phase == "load":
            return "timeout: the program did not finish loading (killed)"
        return run.detail or run.end or "unknown"


def _cap_text(data: bytes, cap: int) -> str:
    text = data.decode("utf-8", "replace")
    if len(data) > cap:
        text = text[:cap] + "\n[... truncated]"
    return text
