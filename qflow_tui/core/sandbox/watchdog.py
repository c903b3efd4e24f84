"""Watching one sandbox child: its private result pipe, its capped stdout and
stderr, the requests written to it, its clock and its disk use; and a kill that
reaches every process it started. Nothing the child does makes this raise."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from typing import cast

from .cgroups import RunCgroup
from .clock import LOOK_EVERY, CgroupCounters, ProgramClock, Sample, ThreadTimes, own_time, thread_times
from .config import CGROUP_SLACK_MB
from .harness.wire import Incoming, Job
from .launch import (
    LANDLOCK_DEVICES,
    Launch,
    SandboxUnavailable,
    dir_usage,
    held_unlinked,
    kill_uid,
    make_workdir,
    process_tree,
    remove_tree,
    uid_zombies,
)
from .procfs import descendants, nspid, pid_namespace, wait_gone
from .protocol import describe_exit, encode_line, parse_line
from .spawn import fork_cgroup_fds, start_fresh, zygote_fork
from .zygote import Forked

#: Seconds an interpreter (plus bwrap) may take to start and say hello.
BOOT_TIMEOUT = 15.0
#: How often the work dir's size is checked when no tmpfs caps it.
DISK_CHECK_EVERY = 0.1
#: An answer that came within this many seconds of where its interval began
#: is stamped without reading the kernel's figures (see ``Child._stamp``).
QUICK = 0.001
#: How far a poll's wake-up may sit from its timer's and still be told apart
#: from it (seconds; the kernel fires a timer late, never early, and the
#: clocks the wake-up is worked out from are read a few microseconds apart).
TIMER_SLACK = 0.0005
#: A program whose tasks ran or waited for a CPU this share of a look's
#: interval was at work through it (see ``Child._settle``).
AT_WORK = 0.9
#: More entries than this in the work dir ends the child.
MAX_ENTRIES = 20_000
#: The keys of a job that the child needs before it is given its job: what it
#: loads at boot (the layers), the same for every job a warm child may take.
#: The cgroup's fds, the uid guard and the Landlock ruleset come from the launch.
BOOT_KEYS = frozenset({"mode", "shared", "seccomp", "guard_uid", "landlock", "cgroup_fds"})
#: Memory a run's cgroup allows beyond its process's RLIMIT_AS (see ``config``).
CGROUP_SLACK = CGROUP_SLACK_MB << 20


def job_part(job: Job, keys: AbstractSet[str], *, keep: bool = True) -> Job:
    """``job`` with only the entries named in ``keys`` (``keep``), or without them."""
    return cast("Job", {k: v for k, v in job.items() if (k in keys) == keep})


class Child:
    """One started child. ``receive`` returns its next message or None once it
    has ended (``end`` and ``detail`` say why: ``timeout``, ``deadline``,
    ``died``, ``output``, ``disk``, ``protocol``, ``cancelled``). ``close``
    kills whatever is left and removes its files; it never raises."""

    def __init__(self, launch: Launch, job: Job, *, max_output: int, max_line: int, warm: bool = False) -> None:
        """Start the child for ``job``. With ``warm``, only the job's boot part
        (see ``BOOT_KEYS``) is sent: the child boots and waits, and
        :meth:`start` gives it its job later (whose boot part and cgroup
        sizing must be the same: see ``pool``)."""
        self.launch = launch
        self.max_output = max_output
        self.max_line = max_line
        self.end = ""
        self.detail = ""
        self.exit_status: int | None = None
        self.hello: Incoming | None = None
        self.ready = False
        """Set by the owner once the child said it is loaded."""
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.stdout_total = 0
        self.stderr_total = 0
        self._inbox: deque[Incoming] = deque()
        self._buf = bytearray()
        self._raw_msg: Incoming | None = None
        """An answer whose value's raw bytes are still to come (``vn``)."""
        self._raw_need = 0
        """The bytes of raw value text that follow :attr:`_raw_msg`'s line."""
        self.calls = 0
        """Calls an oracle process has made (each carries its number)."""
        self.runs = 0
        """Runs a shared oracle process has served (see ``servers``)."""
        self.clock: ProgramClock | None = None
        """The kernel's accounting of a program's process (see ``clock``),
        once it said hello: each answer it gives then carries its own time
        (``_own``, seconds), and ``receive`` can end it by that time."""
        self._pending = 0
        """Requests sent to a program's process and not yet answered."""
        self._mark: _Mark | None = None
        """Where the program's current interval began: when a request went to
        an idle process, or its last answer came (it goes on at once)."""
        self.busy = False
        """Ended by the wall-clock safety cap with its own time under its
        limit: the machine was too busy to judge it."""
        self.own_so_far = 0.0
        """The program's own time in the interval in progress, when last looked."""
        self.charge = str(job.get("charge") or "own")
        """How the program's time is charged (``clock.CHARGES``)."""
        self._cpu_base: float | None = None
        """The program's CPU seconds (``Sample.cpu``) up to which an interval
        has charged them: the next interval's floor counts from there, so
        work done between calls (a thread the program left running) is
        charged to the next call."""
        self._looked = 0.0
        """When the clock of the interval in progress was last read."""
        self._scanned = 0.0
        """When the last poll began (it looked at the child's pipes after that)."""
        self._came: float | None = None
        """The earliest moment the answers read in the cycle in progress can
        have come (see ``clock``): where the program's next call starts."""
        self._unsure: tuple[float, float] | None = None
        """A cycle its own timer woke: the answer came between these moments."""
        self._looks: list[tuple[float, float]] = []
        """The last two looks at the clock: when, and the program's CPU time
        and waits for a CPU so far, summed (how long its tasks were at work)."""
        self._unstamped: list[Incoming] = []
        """Answers read in the cycle in progress, stamped with their own time
        once it ends (so the cycle's own transport is the transport's)."""
        self._relay = 0.0
        """Seconds the app's threads were busy (working, or waiting for a CPU)
        delivering to and from the program's process: writing a request to
        it while it was idle, and the cycles that read its answers once they
        were there. Not the cycles that only looked at the clock or read its
        output while it ran, nor a wait for a CPU that began at the relay's
        own timer (see ``clock``)."""
        job = self._with_launch(job)
        self.cgroup = self._run_cgroup(job)
        cg_fds = self.cgroup.entry_fds() if self.cgroup is not None else []
        forked = zygote_fork(launch, job, cg_fds)
        if cg_fds:
            job = job.copy()
            job["cgroup_fds"] = fork_cgroup_fds(cg_fds, forked is not None)
        boot = job_part(job, BOOT_KEYS)
        boot["k"] = "boot"
        self._out = bytearray(encode_line(boot))
        if not warm:
            self._out += encode_line(self._job_part(job))
        self.started = not warm
        """Whether the child has its job (a warm child waits for one)."""
        self._closed = False
        self._family: set[int] | None = None
        """The child's descendants and pid namespace, listed at the first kill
        (after it they are orphans that no longer descend from it)."""
        self._namespace: str | None = None
        self._next_disk_check = 0.0
        self.workdir = None if launch.bwrap else make_workdir(launch.uid)
        self.proc: subprocess.Popen[bytes] | Forked
        if forked is not None:
            self.proc, self._chan = forked
            self._life = -1
        else:
            try:
                self.proc, self._chan, self._life = start_fresh(launch, cg_fds, self.workdir)
            except SandboxUnavailable:
                if self.workdir:
                    remove_tree(self.workdir)
                if self.cgroup is not None:
                    self.cgroup.release()
                raise
        self._watch()

    def _with_launch(self, job: Job) -> Job:
        """``job`` with what its launch adds for the child's guard: the uid is
        this run's alone (its guardian may kill all of it), and the paths
        Landlock leaves readable."""
        if self.launch.uid is not None:
            job = job.copy()
            job["guard_uid"] = True
        if self.launch.landlock is not None:
            job = job.copy()
            job["landlock"] = {"ro": list(self.launch.landlock), "dev": list(LANDLOCK_DEVICES)}
        return job

    def _run_cgroup(self, job: Job) -> RunCgroup | None:
        """The run's own cgroup, sized for ``job``'s limits, where the launch
        uses cgroups and the job caps its memory."""
        limits = job.get("limits") or {}
        if not (self.launch.cgroup and limits.get("as")):
            return None
        # Under bwrap its tmpfs mounts are memory too, charged to the run.
        tmpfs = 3 * (self.launch.disk_mb << 20) if self.launch.bwrap else 0
        return RunCgroup.acquire(int(limits["as"]) + tmpfs + CGROUP_SLACK, int(limits.get("nproc") or 8) + 2)

    def _watch(self) -> None:
        """Poll the child's pipes; write its boot line at once."""
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self._fds = {self._chan: "chan", self.proc.stdout.fileno(): "out", self.proc.stderr.fileno(): "err"}
        self._stdin = self.proc.stdin.fileno()
        for fd in (*self._fds, self._stdin):
            os.set_blocking(fd, False)
        self._poller = select.poll()
        for fd in self._fds:
            self._poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        self._open = set(self._fds)
        self._writing = False
        self._want_write()
        self._write()  # at once: a warm child boots while no one waits on it

    def start(self, job: Job) -> None:
        """Give a warm child its job (the part after the boot)."""
        if not self.started:
            self.started = True
            self.charge = str(job.get("charge") or "own")
            self.send(self._job_part(job))  # written at once: a warm child loads while no one waits

    def _job_part(self, job: Job) -> Job:
        """The job without its boot part, as the child is to get it now. A uid
        with no pid namespace (the uid levels without bwrap) may still have
        zombies of earlier runs on it: orphans that the machine's init has not
        reaped yet (up to 2 s on some), which count against the uid's
        RLIMIT_NPROC as if alive. So that an honest program on a uid just
        swept is not refused the forks its limit allows, the limit is raised
        by their number. The run's pids cgroup, where it has one, still holds
        it to its own processes (zombies reaped while it runs free no room
        there). Without one the raise is at most the limit itself, so a run
        never gets more than twice its own."""
        part = job_part(job, BOOT_KEYS, keep=False)
        limits = part.get("limits") or {}
        nproc = limits.get("nproc")
        if self.launch.sweep_uid and self.launch.uid is not None and nproc:
            dead = uid_zombies(self.launch.uid)
            if self.cgroup is None or not self.cgroup.holds_pids:
                dead = min(dead, nproc)
            if dead:
                limits = limits.copy()
                limits["nproc"] = nproc + dead
                part["limits"] = limits
        return part

    @property
    def top_pid(self) -> int:
        """The first of the child's processes (bwrap, or the zygote's fork
        that made its namespaces): the others descend from it."""
        return self.proc.top if isinstance(self.proc, Forked) else self.proc.pid

    def alive(self) -> bool:
        """Whether the child still runs and nothing has ended it."""
        return not self.end and not self._closed and self.proc.poll() is None

    def at_rest(self) -> bool:
        """Alive, with every request written and answered and nothing read
        that was not taken: what a shared oracle must be to serve another run."""
        return (
            self.alive()
            and self.started
            and not self._out
            and not self._inbox
            and not self._buf
            and self._raw_msg is None
        )

    def take_output(self) -> tuple[bytes, bytes]:
        """What the child printed so far, its counts starting again from
        nothing (a shared oracle's output belongs to the run it served)."""
        out, err = bytes(self.stdout), bytes(self.stderr)
        self.stdout, self.stderr = bytearray(), bytearray()
        self.stdout_total = self.stderr_total = 0
        return out, err

    # ---------------------------------------------------------------- sending
    def send(self, obj: Mapping[str, object], tail: bytes = b"", *, answers: int = 1) -> None:
        """Write one request line, and ``tail``'s bytes right after it (the
        raw values or records its line announces, see ``protocol``): now as
        far as the pipe takes them, the rest while ``receive`` waits.
        ``answers``: how many answers the line asks for (a batch's, one per
        part)."""
        if not self.end:
            idle = False
            if self.clock is not None and isinstance(obj, dict) and "i" in obj:
                if self._pending == 0:
                    self._mark = self._new_mark()  # an idle program starts on it now
                    idle = True
                self._pending += answers
            self._out += encode_line(obj)
            self._out += tail
            self._want_write()
            if idle and self._mark is not None:
                # Until the line is written the program cannot start: that
                # time is the transport's (not after: it may be at work by then).
                self._relay += max(0.0, time.monotonic() - self._mark.at)
            if self._writing:
                # At once, as far as the pipe takes it (the rest when ``receive``
                # polls): a poll cycle to write each line cost the relay a wake-up.
                self._write()

    # ------------------------------------------------------------- own time
    def attach_clock(self, guardian: int | None = None) -> None:
        """Watch the program's process through the kernel's accounting (at its
        hello, before any untrusted code ran: its pid is the harness's own).
        Its interval begins now (its import is next)."""
        if self.clock is not None or self.hello is None:
            return
        pid = self._host_pid(self.hello.get("pid"))
        if pid is None:
            return
        counters = None
        if self.cgroup is not None and self.cgroup.cpu_seconds() is not None:
            counters = CgroupCounters(self.cgroup.cpu_seconds, self.cgroup.thread_ids)
        clock = ProgramClock(pid, guardian, counters)
        if clock.usable:
            self.clock = clock
            self._mark = self._new_mark(clock.first)  # read a moment ago: not read again

    def _host_pid(self, inside: object) -> int | None:
        """The host's pid of the harness that said hello with pid ``inside``
        (its pid in its own pid namespace, if it has one)."""
        if type(inside) is not int:
            return None
        if isinstance(self.proc, Forked) or self.launch.bwrap:
            candidates = process_tree(self.proc.pid) - {self.proc.pid}
        else:
            candidates = {self.proc.pid}
        for pid in candidates:
            if nspid(pid) == inside:
                return pid
        return None

    def _new_mark(self, sample: Sample | None = None) -> _Mark:
        """Where an interval begins: now (or at ``sample``, the clock's
        latest reading), its CPU floor counting from where the last
        interval's ended (see ``_cpu_base``)."""
        assert self.clock is not None
        if sample is None:
            sample = self.clock.sample()
        # The interval's wall clock starts where its CPU count does.
        self._looked = sample.at if sample is not None else time.monotonic()
        self._keep_look(sample)
        if sample is not None:
            if self._cpu_base is None:
                self._cpu_base = sample.cpu
            sample = replace(sample, cpu=min(sample.cpu, self._cpu_base))
        return _Mark(self._looked, sample, self._relay)

    def _keep_look(self, sample: Sample | None) -> None:
        if sample is not None:
            self._looks = [*self._looks[-1:], (sample.at, sample.cpu + sample.wait)]

    def _own_since(self, mark: _Mark) -> tuple[float, _Mark]:
        """The program's own time since ``mark``, and a mark for now."""
        assert self.clock is not None
        sample = self.clock.sample()
        self._looked = sample.at if sample is not None else time.monotonic()
        unsure, self._unsure = self._unsure, None
        if unsure is not None:
            self._settle(sample, *unsure)
        self._keep_look(sample)
        now = _Mark(self._looked, sample, self._relay)
        own = own_time(mark.sample, now.sample, now.at - mark.at, now.relay - mark.relay, self.charge)
        return own, now

    def _want_write(self) -> None:
        if self._out and not self._writing and self._stdin >= 0:
            self._poller.register(self._stdin, select.POLLOUT | select.POLLERR)
            self._writing = True

    def _write(self) -> None:
        try:
            n = os.write(self._stdin, self._out[: 1 << 16])
            del self._out[:n]
        except BlockingIOError:
            return
        except OSError:
            self._out.clear()  # the child closed its stdin or ended; the reading side notices
        if not self._out:
            self._poller.unregister(self._stdin)
            self._writing = False

    # -------------------------------------------------------------- receiving
    def receive(
        self,
        seconds: float,
        deadline: float,
        cancel: threading.Event | None = None,
        *,
        own: float | None = None,
    ) -> Incoming | None:
        """The next message, waiting at most ``seconds`` (and never past the
        ``time.monotonic()`` ``deadline``); None once the child has ended.

        ``own``: for a program's process with a clock, the most of its own
        time (see ``clock``) the answer may take from where its interval
        began: the process is ended once its own time passes that, and then
        ``seconds`` is the wall-clock safety cap (past it, the machine was too
        busy to judge it: ``busy``)."""
        limit = min(time.monotonic() + max(0.0, seconds), deadline)
        watch = own is not None and self.clock is not None and self._mark is not None
        self.own_so_far = 0.0
        while not self._inbox and not self.end:
            now = time.monotonic()
            # Read every LOOK_EVERY s: the CPU time of a program's many tasks
            # can pass its wall time, and each task's waits for a CPU are
            # taken while it lives (see ``clock``).
            if watch and self._mark is not None and own is not None and now - self._looked >= LOOK_EVERY:
                self.own_so_far = self._own_since(self._mark)[0]
            if cancel is not None and cancel.is_set():
                self._finish("cancelled", "the run was cancelled")
            elif now >= deadline:
                self._finish("deadline", "the run's time limit ran out")
            elif watch and own is not None and self.own_so_far >= own:
                self._finish("timeout", f"its own time passed {own:.3g}s")
            elif now >= limit:
                if watch:
                    self.busy = True
                    self._finish(
                        "timeout",
                        f"stopped after {seconds:.3g}s on the clock with {self.own_so_far:.2f}s of its own time: "
                        "the machine is too busy to judge it",
                    )
                else:
                    self._finish("timeout", f"no answer within {seconds:.3g}s")
            elif self._chan not in self._open:
                self._finish("died", self._exit_reason())
            if self.end:
                break
            wait = limit - now
            if watch and own is not None and self._mark is not None:
                # Look at its own time again soon (see ``clock.LOOK_EVERY``).
                wait = min(wait, max(0.005, self._looked + LOOK_EVERY - now))
            if cancel is not None:
                wait = min(wait, 0.05)
            if self.workdir is not None:
                wait = min(wait, DISK_CHECK_EVERY)
            # The thread's times, between two readings of the clock: what it
            # did before its poll began is told apart from what it did after.
            scanned, start = self._scanned, time.monotonic()
            before = thread_times() if self.clock is not None else None
            polled, timeout = time.monotonic(), max(0.0, wait) + 0.001
            self._scanned = polled
            answered = False
            writing: ThreadTimes | None = None
            wrote_at = 0.0
            self._came = None
            events = self._poller.poll(timeout * 1000)
            for fd, _ev in events:
                if fd == self._stdin:
                    if before is not None and writing is None:
                        # The transport's part of writing ends as the rest of
                        # the line goes: the program may be at work after that.
                        writing = thread_times()
                        wrote_at = time.monotonic()
                    self._write()
                else:
                    self._read(fd)
                    answered = answered or fd == self._chan
                if self.end:
                    break
            if before is not None and (answered or writing is not None):
                self._came = max(scanned, self._mark.at) if self._mark is not None else scanned
                after, at = (thread_times(), time.monotonic()) if answered else (writing, wrote_at)
                if after is not None:
                    # At most ``polled - start`` of it came before the poll.
                    self._transport(after.busy - before.busy - (polled - start), at, polled, timeout)
            self._stamp()
            self._unsure = None
            if self.workdir is not None and not self.end and time.monotonic() >= self._next_disk_check:
                self._check_disk()
        if self._inbox:
            return self._inbox.popleft()
        return None

    def _transport(self, busy: float, at: float, polled: float, timeout: float) -> None:
        """Count a poll cycle that read an answer (or wrote a request's rest)
        up to ``at``: ``busy`` seconds of the app's thread working or waiting
        for a CPU since its poll began (at ``polled``, for at most ``timeout``
        seconds). See ``clock`` for why a wait that its own timer began is
        the program's."""
        woke = at - max(0.0, busy)  # when it was ready to run again
        if woke <= polled + TIMER_SLACK:
            # It never slept: the answer was there when the poll began, and
            # from then on the time is the transport's.
            self._relay += max(0.0, at - polled)
        elif woke < polled + timeout - TIMER_SLACK:
            # The child woke it: its wait for a CPU and its work since are
            # the transport's, and the answer came as it woke.
            self._relay += at - woke
            if self._came is not None:
                self._came = max(self._came, woke)
        else:
            # Its own timer woke it: the answer came at some moment of the
            # wait that followed, which is the program's unless ``_settle``
            # finds when.
            self._unsure = (woke, at)
            if self._came is not None:
                self._came = max(self._came, woke)

    def _settle(self, sample: Sample | None, woke: float, at: float) -> None:
        """When its own timer woke the relay at ``woke`` and the answer was
        there when it got the CPU at ``at`` (``_unsure``): a program that was at work through the
        whole of the last look's interval (its tasks running or waiting for a
        CPU all of it) is taken to have gone on until its answer, which came
        once the work it did since that look was done. The rest of the wait
        is the transport's. A program that paused (slept, or waited on
        something) is charged the whole wait: it may have answered at its end."""
        if sample is None or len(self._looks) < 2:
            return
        (before, worked_before), (last, worked_last) = self._looks
        span = last - before
        if span <= 0 or worked_last - worked_before < AT_WORK * span or last > woke:
            return
        came = min(at, max(woke, last + (sample.cpu + sample.wait - worked_last)))
        self._relay += at - came
        if self._came is not None:
            self._came = max(self._came, came)

    def _read(self, fd: int) -> None:
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._poller.unregister(fd)
            self._open.discard(fd)
            return
        kind = self._fds[fd]
        if kind == "chan":
            self._take_lines(data)
        else:
            self._keep(kind, data)

    def _take_lines(self, data: bytes) -> None:
        # Only the new bytes can hold the newline: a 40 MB answer comes in
        # hundreds of reads, and searching the whole buffer each time is quadratic.
        start = len(self._buf)
        self._buf += data
        while not self.end:
            if self._raw_msg is not None:
                # A value's JSON text follows its answer's line as raw bytes
                # (``vn`` of them): relayed as they came, never escaped again.
                need = self._raw_need
                if len(self._buf) < need:
                    return
                self._raw_msg["vj"] = bytes(self._buf[:need])
                del self._buf[:need]
                self._inbox.append(self._stamped(self._raw_msg))
                self._raw_msg = None
                start = 0
                continue
            nl = self._buf.find(b"\n", start)
            start = 0
            if nl < 0:
                if len(self._buf) > self.max_line:
                    self._finish("protocol", "a result line longer than the limit")
                return
            if nl > self.max_line:
                self._finish("protocol", "a result line longer than the limit")
                return
            msg = parse_line(bytes(self._buf[:nl]))
            del self._buf[: nl + 1]
            if msg is None:
                self._finish("protocol", "a malformed result line")
                return
            if msg.get("k") == "hello" and self.hello is None:
                self.hello = msg
                if msg.get("mode") == "program":
                    guardian = msg.get("guardian")
                    self.attach_clock(guardian if type(guardian) is int else None)
            if "vn" in msg:
                vn = msg["vn"]
                if msg.get("k") != "res" or type(vn) is not int or not 0 <= vn <= self.max_line or "vj" in msg:
                    self._finish("protocol", "a malformed result line")
                    return
                self._raw_msg, self._raw_need = msg, vn
                continue
            self._inbox.append(self._stamped(msg))

    def _stamped(self, msg: Incoming) -> Incoming:
        """``msg``, to be stamped when the cycle that read it ends (see :meth:`_stamp`)."""
        if self.clock is not None and msg.get("k") in ("res", "loaded", "load_error"):
            self._unstamped.append(msg)
        return msg

    def _stamp(self) -> None:
        """Give each answer (and ``loaded``) read in the cycle that ended the
        program's own time for it (``_own``): from where its interval began to
        now. Answers read together share the cycle: the first has the time,
        the others came within the app's own delay."""
        if not self._unstamped:
            return
        now: _Mark | None = None  # the kernel is read once a cycle
        for msg in self._unstamped:
            if self._mark is None:
                break
            if now is not None:
                own = 0.0
            elif time.monotonic() - self._mark.at < QUICK:
                # A quick answer: its wall time less the transport's, without
                # reading the kernel (a hundred thousand answers of EvalPlus's
                # inputs would cost seconds); its waits and CPU time go to the
                # next answer's interval, whose figures span both.
                at = time.monotonic()
                own = max(0.0, at - self._mark.at - (self._relay - self._mark.relay))
                now = _Mark(at, self._mark.sample, self._relay)
            else:
                own, now = self._own_since(self._mark)
                if now.sample is not None:
                    self._cpu_base = now.sample.cpu  # charged up to here
            msg["_own"] = own
            if msg.get("k") == "res":
                self._pending = max(0, self._pending - 1)
            # It goes on with the next request at once, if one is waiting:
            # from the earliest moment this answer can have come.
            if self._pending and self._came is not None and self._came < now.at:
                now = replace(now, at=self._came)
            self._mark = now if self._pending else None
        self._unstamped.clear()

    def _keep(self, kind: str, data: bytes) -> None:
        store = self.stdout if kind == "out" else self.stderr
        if len(store) < self.max_output:
            store += data[: self.max_output - len(store)]
        if kind == "out":
            self.stdout_total += len(data)
            total = self.stdout_total
        else:
            self.stderr_total += len(data)
            total = self.stderr_total
        if total > self.max_output:
            self._finish(
                "output", f"output limit: the program wrote more than {self.max_output // 1024} KB to std{kind}"
            )

    def _check_disk(self) -> None:
        assert self.workdir is not None
        self._next_disk_check = time.monotonic() + DISK_CHECK_EVERY
        used, entries = dir_usage(self.workdir, MAX_ENTRIES)
        # Files unlinked but kept open (or mapped) hold disk or memory that
        # the work dir does not show: count them, wherever they were.
        pids = self.cgroup.procs() if self.cgroup is not None else process_tree(self.proc.pid)
        used += held_unlinked(pids, self.launch.disk_mb << 20)
        if used > self.launch.disk_mb << 20:
            self._finish(
                "disk",
                f"disk limit: the program holds more than {self.launch.disk_mb} MB in files "
                "(its work dir, and files it unlinked but kept open)",
            )
        elif entries >= MAX_ENTRIES:
            self._finish("disk", f"disk limit: the program made more than {MAX_ENTRIES} files in its work dir")

    def _exit_reason(self) -> str:
        try:
            status = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            status = None
        self.exit_status = status
        if status == -9 and self.cgroup is not None and self.cgroup.out_of_memory():
            return f"the process was killed: its memory limit ({self.cgroup.memory_bytes >> 20} MB, a cgroup)"
        return describe_exit(status)

    def _finish(self, end: str, detail: str) -> None:
        if not self.end:
            self.end, self.detail = end, detail
            self._kill()

    # ------------------------------------------------------------------ ending
    def kill(self) -> None:
        """Kill the child and everything it started, without waiting (``close``
        waits, reaps and cleans up): closing many, each is killed first, and
        they end together instead of one after another."""
        if not self._closed:
            self._kill()

    def _kill(self) -> None:
        # Kill the group while its leader is unreaped (so the pgid cannot have
        # been reused), then the leader; bwrap's pid namespace takes down
        # everything inside it. What to wait for is listed before the first kill:
        # once bwrap is dead its namespace's processes no longer descend from it.
        if self._family is None:
            # Inside bwrap's pid namespace every descendant dies with it, whatever
            # its group; without one, the kill reaches the group only, and waiting
            # for a descendant that left it (setsid) would wait for what was never killed.
            self._family = descendants(self.proc.pid) if self.launch.bwrap else set()
            self._namespace = pid_namespace(self._family)
        if not isinstance(self.proc, Forked):  # a fork's pid 1 leads no group: its namespace is the kill
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            self.proc.kill()
        except OSError:
            pass

    def drain(self, seconds: float = 0.5) -> None:
        """Ask a child that answered everything to exit, and keep what it still
        prints (Python buffers stdout) until it closes its output."""
        if self.end:
            return
        self.send({"k": "bye"})
        until = time.monotonic() + seconds
        while (self._open - {self._chan} or self._writing) and time.monotonic() < until:
            for fd, _ev in self._poller.poll(max(0.0, until - time.monotonic()) * 1000 + 1):
                if fd == self._stdin:
                    self._write()
                elif fd == self._chan:
                    self._read_and_drop(fd)
                else:
                    self._read(fd)
            if self.end:
                return

    def _read_and_drop(self, fd: int) -> None:
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._poller.unregister(fd)
            self._open.discard(fd)

    def close(self) -> None:
        """Kill the child and everything it started, reap it, remove its work
        dir. Never raises; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self._kill()
        try:
            status = self.proc.wait(timeout=5)
            if self.exit_status is None:
                self.exit_status = status
        except (subprocess.TimeoutExpired, OSError):
            pass
        forked = self.proc if isinstance(self.proc, Forked) else None
        # A fork's pid 1 ends only after the kernel has ended and reaped
        # every other process of its pid namespace (zap_pid_ns_processes):
        # once it has ended, nothing of the run is left, and the scan of all
        # of /proc that finds the namespace's processes (a third of closing
        # a run) is not needed.
        if forked is None or not forked.ended(2.0):
            wait_gone(None if forked else self.proc.pid, self._family or set(), self._namespace)
        if forked is not None:
            forked.wait_top(2.0)
            forked.release()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass
        for fd in (self._chan, self._life):
            try:
                os.close(fd)
            except OSError:
                pass
        if self.clock is not None:
            self.clock.close()  # each of the program's tasks' schedstat, kept open while it ran
        if self.cgroup is not None:
            self.cgroup.release()  # kills what is left in it, orphans included
        if self.launch.sweep_uid and self.launch.uid is not None:
            kill_uid(self.launch.uid, self.launch.interpreter)
        if self.workdir is not None:
            remove_tree(self.workdir)


@dataclass(frozen=True)
class _Mark:
    """A moment of a program's interval: the app's clock, the program as the
    kernel counts it, and the transport's busy time so far (``_relay``)."""

    at: float
    sample: Sample | None
    relay: float
