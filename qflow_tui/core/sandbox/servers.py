"""The processes of one sandbox call.

- The **program process** loads the untrusted program and answers one call at
  a time: the inputs of the call in, a plain value (or what went wrong) out.
  It never receives an expected value, an assert or a check function.
- The **oracle process** (trusted: it never loads the program) evaluates the
  expected values that are not literals, whole asserts of shapes the app's
  own evaluator does not know, and a dataset's whole ``check(candidate)``
  function. The entry point and the helpers a test is meant to call (see
  ``verdict.callable_helpers``; every other name is the trusted side's) are
  bound there to proxies: calling one sends the arguments (plain values) to
  the app, which runs the call in the program process and sends the plain
  result back.

A **shared oracle** serves the runs whose tests are a dataset's own
(``trusted_tests``), one after another: it starts with no setup and no
proxies, and each run's first request (``begin``) gives it a fresh namespace
with the run's setup, proxies, time and value limits, and lowers its CPU limit
to the run's own (a process with too little CPU time left, or grown large
with an earlier run's values, ends, and the run asks a fresh one). When the
run is done and the process is at rest (every request answered, nothing
unread), it goes back to the pool (see ``pool``) instead of being ended.
Why that is safe: it runs only trusted code, and a program reaches it only
as the plain values of its calls, which the oracle validates; no program's
code or output ever enters it. A generated test is
untrusted code and never gets a shared oracle: its process could leave state
that decides the next run's verdict.

Both run under the same isolation and limits. The program process is
restarted after a call that timed out or killed it (at most ``MAX_RESPAWNS``
times per sandbox call). Whatever the program writes, it can only ever supply
"the value of the call in progress", which it controls anyway; anything out of
order ends that call with an error.
"""

from __future__ import annotations

import threading
import time

from ..jsontypes import JSONValue
from . import pool
from .clock import wall_cap
from .codec import BIG_VALUE_MAX
from .config import ORACLE_PROCS, SandboxConfig
from .harness.wire import (
    Begin,
    CallReply,
    Encoded,
    Exc,
    FnBatch,
    FnCall,
    FnRequest,
    Incoming,
    Job,
    Kept,
    Limits,
    OracleRequest,
    Ret,
    Rets,
    SrcBatch,
    SrcRequest,
    TruthSizes,
)
from .isolation import Isolation, slot_pool
from .launch import SandboxUnavailable
from .truth import KEEP_LINE_MAX, TruthFile
from .watchdog import BOOT_KEYS, BOOT_TIMEOUT, Child, job_part

#: After this many restarts of the program process (a call killed for time, a
#: crash, an exit), the remaining calls are not run.
MAX_RESPAWNS = 3
#: Extra seconds of its own time the app gives a call beyond its limit
#: before it ends the process (the child's own alarm stops most calls first).
GRACE = 0.3
#: CPU seconds a shared oracle process may use in all (each run it serves
#: has its own limit within that; past it, the next run gets a fresh one).
SHARED_CPU = 600


class Servers:
    """The program process (started at once, so it boots while the oracle
    works) and, when ``need_oracle``, the oracle process, with the slots (uids)
    they run under. ``close`` ends both and never raises."""

    def __init__(
        self,
        iso: Isolation,
        config: SandboxConfig,
        *,
        program: str | None,
        setup: str,
        proxies: list[str],
        need_oracle: bool,
        deadline: float,
        cancel: threading.Event | None,
        limits: Limits,
        shared_oracle: bool = False,
        load_limit: float | None = None,
    ) -> None:
        self.iso = iso
        self.config = config
        self.deadline = deadline
        self.cancel = cancel
        self.proxies = set(proxies)
        self.load_error: str | None = None
        self.stopped: tuple[str, str] | None = None
        """(status, reason) once no more calls will run (out of time, cancelled, too many restarts)."""
        self.respawns = 0
        self.load_limit = load_limit if load_limit is not None else 2 * config.timeout
        """The most of its own time the program may take to load (its setup
        and its import), after which its process is ended."""
        self.load_time = 0.0
        """The program's own time at its last load (see ``clock``)."""
        self.stdout = bytearray()
        self.stderr = bytearray()
        self._seq = 0
        self._started_once = False
        self.truth: TruthFile | None = None
        """The ground truth the check of this run reads or keeps, if any (see ``truth``)."""
        base: Job = {
            "timeout": config.timeout,
            "max_value": config.max_value_kb * 1024,
            "limits": limits,
            "seccomp": {"path": list(iso.seccomp_path)} if iso.seccomp_path else None,
            "setup": setup,
            "packages": list(iso.packages),
        }
        if config.charge != "own":
            # The harness's own wall-clock alarm is the same guard (see ``clock``).
            base["charge"] = config.charge
            base["wall_factor"] = config.wall_factor
        oracle_limits = limits.copy()
        oracle_limits["nproc"] = ORACLE_PROCS
        self._program_job: Job = {**base, "mode": "program", "program": program or ""}
        self._oracle_job: Job = {**base, "mode": "oracle", "proxies": proxies, "limits": oracle_limits}
        self._shared = need_oracle and shared_oracle and pool.enabled()
        """The oracle is a shared one (see the module's docstring)."""
        self._begin: Begin | None = None
        self._begun: Child | None = None
        """The oracle process that has begun this run (a shared one)."""
        self._lent: pool.Key | None = None
        """The kind of shared oracle this run took from the pool, until it gives it back."""
        if self._shared:
            # Everything of the run's own goes in its first request, so the
            # process's job is the same for every run it serves.
            oracle_limits["cpu"] = max(SHARED_CPU, int(limits.get("cpu") or 0))
            self._oracle_job = {
                **base,
                "mode": "oracle",
                "shared": True,
                "setup": "",
                "proxies": [],
                "limits": oracle_limits,
            }
            self._begin = {
                "setup": setup,
                "proxies": proxies,
                "timeout": config.timeout,
                "max_value": config.max_value_kb * 1024,
                "cpu": limits.get("cpu"),
            }
        self._pool = slot_pool(iso)
        self._program: Child | None = None
        self._oracle: Child | None = None
        jobs = [self._program_job, self._oracle_job] if need_oracle else [self._program_job]
        queued = time.monotonic()
        if pool.enabled():
            wants = [self._want(job) for job in jobs]
            got = pool.warm_pool().take(wants)
            if self._shared:
                self._lent = wants[1][0]
        else:
            got = [(None, slot) for slot in self._pool.acquire(len(jobs))]
        # The run's deadline counts from when it has its children: the time it
        # queued for slots, behind the runs ahead of it on a busy sandbox, is
        # no time of the program's (a queued run must not time out unrun).
        self.deadline += time.monotonic() - queued
        self._slots = [slot for _child, slot in got]
        try:
            self._program = self._spawn(jobs[0], got[0][1], got[0][0])
            if need_oracle:
                self._oracle = self._spawn(jobs[1], got[1][1], got[1][0])
        except BaseException:
            for warm, _slot in got:
                if warm is not None and warm is not self._program and warm is not self._oracle:
                    warm.close()
            self.close()
            raise

    # ----------------------------------------------------------- processes
    def _spawn(self, job: Job, slot: int, warm: Child | None = None) -> Child:
        """The child for ``job`` on ``slot``: ``warm`` (a warm child holding
        that slot, see ``pool``) given its job, or one started now."""
        if warm is not None:
            warm.start(job)  # a shared oracle that served a run before has its job: this does nothing
            return warm
        return _start_child(self.iso, self.config, job, slot, False)

    def _want(self, job: Job) -> tuple[pool.Key, pool.Recipe]:
        c = self.config
        # A child forked from a zygote that preloads is of its own kind.
        key = (*pool.job_key(self.iso, c.max_disk_mb, c.cgroup, job, *_caps(c)), c.preload)
        boot = job_part(job, BOOT_KEYS | {"limits"})
        iso = self.iso
        shared = bool(job.get("shared"))
        return key, pool.Recipe(iso, lambda slot, warm: _start_child(iso, c, boot, slot, warm), shared=shared)

    def _ready(self, child: Child, what: str) -> str | None:
        """Wait for hello and loaded; None when ready, else why not."""
        if child.ready:
            return None
        msg = child.receive(BOOT_TIMEOUT, self.deadline, self.cancel)
        if msg is None or msg.get("k") != "hello":
            if not self._started_once and child.end not in ("deadline", "cancelled"):
                err = bytes(child.stderr).decode("utf-8", "replace")[-500:]
                raise SandboxUnavailable(f"the sandbox child did not start ({child.detail or child.end}): {err}")
            return self._end_reason(child, what)
        self._started_once = True
        t0 = time.monotonic()
        if child.clock is not None:
            # Its import is timed as a call is: its own time, the wall clock a cap.
            limit = self.load_limit
            msg = child.receive(
                wall_cap(limit, self.config.wall_factor) + GRACE, self.deadline, self.cancel, own=limit + GRACE
            )
        else:
            msg = child.receive(2 * self.config.timeout + GRACE, self.deadline, self.cancel)
        if msg is not None and msg.get("k") in ("loaded", "load_error"):
            own = msg.get("_own")
            self.load_time = float(own) if isinstance(own, float) else time.monotonic() - t0
        if msg is not None and msg.get("k") == "loaded":
            child.ready = True
            return None
        if msg is not None and msg.get("k") == "load_error":
            return str(msg.get("e"))[:5000]
        if msg is None and child.end == "timeout":
            if child.busy:
                return f"timeout: the {what} did not finish loading: {child.detail}"
            return f"timeout: the {what} did not finish loading (killed)"
        return f"the {what} did not load: " + self._end_reason(child, what)

    def _retire(self, child: Child) -> None:
        child.close()
        self.stdout += child.stdout
        self.stderr += child.stderr

    def _program_child(self) -> Child | None:
        if self.load_error is not None or self.stopped is not None:
            return None
        if self._program is None:
            if self.respawns > MAX_RESPAWNS:
                self.stopped = ("error", f"not run: the program's process ended early {self.respawns} times")
                return None
            self._program = self._spawn(self._program_job, self._slots[0])
        why = self._ready(self._program, "program")
        if why is not None:
            child, self._program = self._program, None
            if child.end in ("deadline", "cancelled"):
                self.stopped = ("timeout", child.detail)
            else:
                self.load_error = why
            self._retire(child)
            return None
        return self._program

    @staticmethod
    def _end_reason(child: Child, what: str) -> str:
        if child.end == "timeout" and child.busy:
            return f"timeout: {child.detail}"
        if child.end == "timeout":
            return f"timeout: the {what} did not answer within its time limit (killed)"
        return child.detail or child.end or "no answer"

    # ---------------------------------------------------------------- calls
    def call(
        self, fn: str, args: list[Encoded], kw: list[Encoded], *, limit: float | None = None, size: int | None = None
    ) -> CallReply:
        """Run ``fn(*args, **kw)`` (encoded values; ``kw`` as name, value
        pairs) in the program process. The reply is ``{"vj": bytes, JSON
        text of the encoded value, "d": seconds}`` (the app relays it unread),
        or ``{"st": status, "e": reason}`` with status ``raised`` (the program
        raised), ``notplain``, ``timeout``, ``error`` or ``load`` (the program
        did not load). ``limit``: the call's own time limit in seconds (its
        process is ended when it passes); ``size``: the largest value it may
        report, when more than the usual cap. Never raises for anything the
        child does."""
        child = self._program_child()
        if child is None:
            return self._not_run()
        self._seq += 1
        seconds = self.config.timeout
        cap = self.config.max_value_kb * 1024
        request: FnRequest = {"i": self._seq, "fn": fn, "a": args, "kw": kw}
        if size is not None and size > cap:
            cap = request["m"] = min(size, BIG_VALUE_MAX)
        if limit is not None:
            seconds = request["t"] = min(seconds, max(0.0, limit))
        t0 = time.monotonic()
        child.send(request)
        usual_line = child.max_line
        # The value's text comes raw after its line, at most ``cap`` bytes.
        child.max_line = max(usual_line, cap + (1 << 20))
        try:
            return self._reply(child, request, seconds, limit, t0)
        finally:
            child.max_line = usual_line

    def call_many(self, srcs: list[list[str]]) -> list[tuple[CallReply, float]]:
        """Evaluate each list of call sources (one test's) in the program
        process, as :meth:`call` with ``{"src": ...}`` would, the requests
        sent at once: the process answers them in order, each within its own
        time limit, so 50 tests cost one wait, not 50. The app's clock for an
        answer runs from the one before. When a call ends the process, the
        requests after it go to a fresh one (up to ``MAX_RESPAWNS``), as they
        did one at a time. Each reply comes with the program's own time for it
        (see ``clock``)."""
        replies: list[tuple[CallReply, float]] = []
        while len(replies) < len(srcs):
            child = self._program_child()
            if child is None:
                return replies + [(self._not_run(), 0.0)] * (len(srcs) - len(replies))
            # One line for them all (see ``protocol``), answered one by one.
            sent: list[SrcRequest] = []
            for src in srcs[len(replies) :]:
                self._seq += 1
                sent.append({"src": src, "i": self._seq})
            batch: SrcBatch = {"i": sent[0]["i"], "batch": [{"src": r["src"]} for r in sent]}
            child.send(batch, answers=len(sent))
            for request in sent:
                t0 = time.monotonic()
                reply = self._reply(child, request, self.config.timeout, None, t0)
                took = reply.pop("d", None)
                replies.append((reply, took if isinstance(took, float) else time.monotonic() - t0))
                if self._program is not child:
                    break  # it ended: the rest go to a fresh process
        return replies

    def _not_run(self) -> CallReply:
        if self.load_error is not None:
            return {"st": "load", "e": self.load_error}
        assert self.stopped is not None
        return {"st": self.stopped[0], "e": self.stopped[1]}

    def _reply(
        self, child: Child, request: SrcRequest | FnRequest, seconds: float, limit: float | None, t0: float
    ) -> CallReply:
        """The program process's answer to ``request`` (sent at ``t0``), as
        :meth:`call` returns it, with the program's own time for it (``d``,
        see ``clock``; the app's clock where the kernel gives no figures);
        ``seconds``: the most of its own time it may take, after which its
        process is ended (the wall clock only caps it). A process that gives
        no answer is retired."""
        if child.clock is not None:
            msg = child.receive(
                wall_cap(seconds, self.config.wall_factor) + GRACE, self.deadline, self.cancel, own=seconds + GRACE
            )
        else:
            msg = child.receive(seconds + GRACE, self.deadline, self.cancel)
        own = msg.get("_own") if msg is not None else None
        took = float(own) if isinstance(own, float) else time.monotonic() - t0
        if msg is not None and msg.get("k") == "res" and msg.get("i") == request["i"]:
            n = len(request["src"]) if "src" in request else 1
            if "vj" in msg and "src" not in request:
                vj = msg["vj"]
                if type(vj) is bytes:
                    return {"vj": vj, "d": took}
                return {"st": "error", "e": "malformed result from the program's process"}
            if "v" in msg:
                v = msg["v"]
                if type(v) is list and len(v) == n:
                    return {"v": v, "d": took}
                return {"st": "error", "e": "malformed result from the program's process"}
            st = msg.get("st")
            status = st if isinstance(st, str) and st in ("raised", "notplain", "timeout") else "error"
            return {"st": status, "e": str(msg.get("e"))[:5000]}
        # No answer: the process ended (time, a crash, an exit, output, disk)
        # or wrote out of order. Either way it is finished; later calls restart it.
        if msg is not None:
            child._finish("protocol", "the program wrote on the result channel out of order")
        status = "timeout" if child.end in ("timeout", "deadline") else "error"
        reason = self._end_reason(child, "call")
        self._program = None
        self._retire(child)
        if child.end in ("deadline", "cancelled"):
            self.stopped = ("timeout", reason)
        else:
            self.respawns += 1
        return {"st": status, "e": reason}

    # --------------------------------------------------------------- oracle
    def ask_oracle(self, request: OracleRequest, limit: float) -> Incoming:
        """One request to the oracle process: see :meth:`ask_oracle_many`."""
        return self.ask_oracle_many([request], limit)[0]

    def ask_oracle_many(self, requests: list[OracleRequest], limit: float) -> list[Incoming]:
        """Requests to the oracle process, sent at once (it answers them in
        order, so each answer's time runs from the one before), relaying its
        calls into the program process: each call and its reply carry the
        call's number, and the oracle keeps requests that arrive while it
        waits for a reply (see ``protocol``). The oracle's own time per
        request is limited to ``limit`` (the time its calls take is not
        counted: each call has its own limit). A request that ends the oracle
        is answered with the failure; the ones after it are asked of a fresh
        oracle process."""
        answers: list[Incoming] = []
        while len(answers) < len(requests):
            rest = len(requests) - len(answers)
            child = self._oracle
            if child is None:
                if self.stopped is not None:
                    return answers + [{"st": self.stopped[0], "e": self.stopped[1]}] * rest
                child = self._oracle = self._spawn(self._oracle_job, self._slots[-1])
            why = self._ready(child, "trusted test process")
            if why is not None:
                self._oracle = None
                self._retire(child)
                return answers + [{"st": "error", "e": why}] * rest
            opening = self._shared and self._begun is not child
            seqs = []
            for request in requests[len(answers) :]:
                self._seq += 1
                seqs.append(self._seq)
                request = request.copy()
                request["i"] = self._seq
                if opening and len(seqs) == 1 and self._begin is not None:
                    # A shared oracle's run opens with its first request, which
                    # carries the run's setup, proxies and limits: one request,
                    # one answer (see ``protocol``).
                    request["begin"] = self._begin
                child.send(request)
            # A check that keeps ground truth sends it in lines longer than
            # any value's (see ``truth``); for this run only.
            usual = child.max_line
            if self.truth is not None and self.truth.mode == "write":
                child.max_line = max(usual, KEEP_LINE_MAX)
            try:
                for seq in seqs:
                    first = opening and seq == seqs[0]
                    # The run's setup runs first, within its own time limit.
                    res = self._answer(child, seq, limit + self.config.timeout if first else limit)
                    if first and self._oracle is not None:
                        if res.get("spent") is True and child.runs > 0:
                            # It has too little CPU time left for this run, or
                            # grew large, and ended without running a request:
                            # they go to a fresh one (which served no run, so
                            # is never spent).
                            self._oracle = None
                            self._retire(child)
                            break
                        if "spent" in res:
                            self._oracle = None
                            child._finish("protocol", "a malformed answer from the trusted test process")
                            self._retire(child)
                            failed: Incoming = {"st": "error", "e": "the trusted test process did not begin the run"}
                            return answers + [failed] * rest
                        self._begun = child
                    answers.append(res)
                    if self._oracle is None:
                        break  # it ended: the requests after this one were not answered
            finally:
                child.max_line = usual
        return answers

    def _answer(self, child: Child, seq: int, limit: float) -> Incoming:
        """The answer to request ``seq`` (its calls relayed); on anything out
        of step the oracle is ended (a later request starts a fresh one)."""
        left = limit + GRACE
        while True:
            t0 = time.monotonic()
            msg = child.receive(left, self.deadline, self.cancel)
            left -= time.monotonic() - t0
            kind = None if msg is None else msg.get("k")
            if msg is not None and kind == "res" and msg.get("i") == seq:
                return msg
            if msg is not None and kind in ("call", "calls") and msg.get("c") == child.calls + 1:
                child.calls += 1
                reply, values = self._relay(msg) if kind == "call" else self._relay_many(msg)
                reply["c"] = child.calls
                child.send(reply, values)
                continue
            if msg is not None and kind in ("truth", "keep") and msg.get("c") == child.calls + 1:
                child.calls += 1
                answer, tail = self._truth_step(msg)
                answer["c"] = child.calls
                child.send(answer, tail)
                continue
            if msg is not None:
                child._finish("protocol", "out-of-order message from the trusted test process")
            status = "timeout" if child.end in ("timeout", "deadline") else "error"
            reason = self._end_reason(child, "test")
            self._oracle = None
            self._retire(child)
            if child.end in ("deadline", "cancelled"):
                self.stopped = ("timeout", reason)
            return {"st": status, "e": reason}

    def _truth_step(self, msg: Incoming) -> tuple[TruthSizes | Kept, bytes]:
        """A check's ``truth`` or ``keep`` step, answered from or into
        :attr:`truth` (nothing to give, nothing kept, when the run has none):
        the answer, and the raw records that follow its line."""
        truth = self.truth
        start = msg.get("from")
        if msg.get("k") == "truth":
            n, budget = msg.get("n"), msg.get("bytes")
            if truth is None or type(start) is not int or type(n) is not int or type(budget) is not int:
                return {"k": "truth", "sizes": []}, b""
            records = truth.read(start, n, budget)
            return {"k": "truth", "sizes": [len(r) for r in records]}, b"".join(records)
        recs = msg.get("recs")
        if truth is not None and type(start) is int:
            texts = [r for r in recs if type(r) is str] if type(recs) is list else None
            truth.keep(start, texts if texts is not None and type(recs) is list and len(texts) == len(recs) else None)
        return {"k": "kept"}, b""

    def _relay(self, msg: Incoming) -> tuple[Ret | Exc, bytes]:
        """An oracle's call, answered; and the value's JSON text, which
        follows the answer's line raw (see ``protocol``)."""
        fn, args, kw = msg.get("fn"), msg.get("a"), msg.get("kw")
        if type(fn) is not str or fn not in self.proxies or type(args) is not list or type(kw) is not list:
            return {"k": "exc", "st": "error", "e": "malformed call request"}, b""
        limit, size = msg.get("t"), msg.get("m")
        t0 = time.monotonic()
        reply = self.call(
            fn,
            args,
            kw,
            limit=float(limit) if isinstance(limit, (int, float)) else None,
            size=size if type(size) is int else None,
        )
        return self._for_oracle(fn, reply, t0)

    def _relay_many(self, msg: Incoming) -> tuple[Rets, bytes]:
        """An oracle's batch of calls (``calls``): each run as :meth:`_relay`
        runs one, the requests sent to the program's process at once, its
        answers relayed in one ``rets`` line, up to the first that is not a
        value (the oracle judges them in order and stops there)."""
        fn, items = msg.get("fn"), msg.get("items")
        calls = _fn_calls(items)
        if type(fn) is not str or fn not in self.proxies or not calls:
            return {"k": "rets", "items": [{"k": "exc", "st": "error", "e": "malformed call request"}]}, b""
        shared = msg.get("u")
        budget = float(shared) if isinstance(shared, (int, float)) and 0 <= shared < 1e9 else None
        out: list[Ret | Exc] = []
        values = []
        for reply, t0 in self._call_many_fn(fn, calls, budget):
            one, value = self._for_oracle(fn, reply, t0)
            out.append(one)
            values.append(value)
        return {"k": "rets", "items": out}, b"".join(values)

    def _call_many_fn(self, fn: str, items: list[FnCall], budget: float | None = None) -> list[tuple[CallReply, float]]:
        """Calls of ``fn``, sent to the program's process at once, each with
        its own limit and cap as :meth:`call` gives one; the replies (each
        with the time its clock started: the answer before it) up to the
        first that is not a value. ``budget``: seconds the calls share (a
        check's time, see ``harness._Oracle.plan_calls``): the call in
        progress when they run out is ended as a timeout, as it would be one
        by one with what was left as its limit. The process is ended when
        answers to later calls are still to come (they would arrive out of
        step); the next call starts a fresh one."""
        child = self._program_child()
        if child is None:
            return [(self._not_run(), time.monotonic())]
        sent: list[tuple[FnRequest, float, float | None, int]] = []
        parts: list[FnCall] = []
        usual_cap = self.config.max_value_kb * 1024
        for x in items:
            self._seq += 1
            request: FnRequest = {"fn": fn, "a": x["a"], "kw": x["kw"], "i": self._seq}
            part: FnCall = {"a": x["a"], "kw": x["kw"]}
            seconds, cap = self.config.timeout, usual_cap
            size, limit = x.get("m"), x.get("t")
            if size is not None and size > cap:
                cap = request["m"] = part["m"] = min(size, BIG_VALUE_MAX)
            if limit is not None:
                seconds = request["t"] = part["t"] = min(seconds, max(0.0, limit))
            parts.append(part)
            sent.append((request, seconds, limit, cap))
        # One line for them all (see ``protocol``), answered one by one.
        batch: FnBatch = {"i": sent[0][0]["i"], "fn": fn, "batch": parts}
        child.send(batch, answers=len(parts))
        replies: list[tuple[CallReply, float]] = []
        spent = 0.0
        for request, seconds, limit, cap in sent:
            t0 = time.monotonic()
            left = None
            if budget is not None:
                left = max(0.0, budget - spent)  # what is left of the shared time (own time)
                seconds = min(seconds, left)
            usual_line = child.max_line
            child.max_line = max(usual_line, cap + (1 << 20))
            try:
                reply = self._reply(child, request, seconds, limit, t0)
            finally:
                child.max_line = usual_line
            if left is not None and "vj" in reply and reply.get("d", 0.0) > left:
                # Its answer came after the shared time ran out: a timeout, as
                # one by one, with what was left as its limit, it would be.
                reply = {"st": "timeout", "e": f"timeout: no result within the {left:.2f} s left of the check's time"}
            spent += float(reply.get("d") or 0.0)
            replies.append((reply, t0))
            if "vj" not in reply and "v" not in reply:
                break
            if limit is not None and float(reply.get("d") or 0.0) > limit:
                break  # answered after its own limit: a timeout for the oracle, and the calls after it do not count
        if len(replies) < len(sent) and self._program is child:
            self._program = None
            self._retire(child)
        return replies

    def _for_oracle(self, fn: str, reply: CallReply, t0: float) -> tuple[Ret | Exc, bytes]:
        """A reply from the program's process as the oracle takes it, and
        the value's JSON text to send raw after the line (``vn`` bytes)."""
        if "vj" in reply:
            return {"k": "ret", "vn": len(reply["vj"]), "d": reply.get("d", 0.0)}, reply["vj"]
        if "v" in reply:
            return {"k": "ret", "v": reply["v"][0], "d": reply.get("d", time.monotonic() - t0)}, b""
        st = reply.get("st", "error")
        status = {"raised": "raised", "notplain": "fail", "timeout": "timeout"}.get(st, "error")
        prefix = "the program did not load: " if st == "load" else ""
        return {"k": "exc", "st": status, "e": f"{fn}(): {prefix}{reply.get('e')}"}, b""

    # ---------------------------------------------------------------- end
    def close(self) -> None:
        """End both processes (letting an idle program process flush its
        output first) and give back the slots; a shared oracle that is at
        rest goes back to the pool with its slot. Never raises."""
        try:
            self._give_back_oracle()
        finally:
            self._close()

    def _give_back_oracle(self) -> None:
        key, self._lent = self._lent, None
        if key is None:
            return
        child = self._oracle
        # One this run never began (its program did not load) holds nothing
        # of it either: every run begins before it asks anything.
        keep = child is not None and child.at_rest()
        if keep and child is not None:
            out, err = child.take_output()
            if pool.warm_pool().give_back(key, child, self._slots[-1]):
                self._oracle = None
                self._slots = self._slots[:-1]
            self.stdout += out
            self.stderr += err
        else:
            pool.warm_pool().give_back(key, None, -1)

    def _close(self) -> None:
        for attr in ("_program", "_oracle"):
            child = getattr(self, attr, None)
            if child is not None:
                setattr(self, attr, None)
                try:
                    if child.ready:
                        child.drain()
                finally:
                    self._retire(child)
        slots = getattr(self, "_slots", None)
        if slots:
            self._slots = []
            self._pool.release(slots)
            pool.warm_pool().poke()


def _caps(c: SandboxConfig) -> tuple[int, int]:
    """A child's output cap and longest line."""
    return c.max_output_kb * 1024, 2 * c.max_value_kb * 1024 + (1 << 20)


def _fn_calls(items: JSONValue | bytes) -> list[FnCall]:
    """An oracle's batch of calls (``calls``' items) as the program's process
    takes them; empty when it is not a list of calls."""
    if type(items) is not list:
        return []
    calls: list[FnCall] = []
    for x in items:
        if type(x) is not dict:
            return []
        args, kw, limit, size = x.get("a"), x.get("kw"), x.get("t"), x.get("m")
        if type(args) is not list or type(kw) is not list:
            return []
        call: FnCall = {"a": args, "kw": kw}
        if isinstance(limit, (int, float)):
            call["t"] = float(limit)
        if type(size) is int:
            call["m"] = size
        calls.append(call)
    return calls


def _start_child(iso: Isolation, c: SandboxConfig, job: Job, slot: int, warm: bool) -> Child:
    max_output, max_line = _caps(c)
    return Child(
        iso.launch(slot, c.max_disk_mb, c.cgroup, c.preload), job, max_output=max_output, max_line=max_line, warm=warm
    )
