"""Warm sandbox children: started ahead of need, each used by one program.

A child's start is most of a small program's run: bwrap's namespaces and
mounts, Python's boot, the compiled harness, the cgroup, the guardian, the
Landlock ruleset and the seccomp filter. A warm child has done all of that and
waits for its job (the limits and the program, see ``harness.main``); a run
takes one, sends its job and pays only for its own work.

Where the children come from. Under bwrap a child is a fork of the
zygote (see ``zygote``): one harness loaded once, whose fork makes its own
user, mount, pid, network, IPC and UTS namespaces, sized tmpfs mounts and
/proc, and drops every capability before the program's process goes on. A
fork costs about 2 ms of CPU time, a fresh bwrap with Python about 15. An
earlier version ruled the zygote out, reasoning that remaking bwrap's
namespaces needs privileges the sandbox takes away; a process inside bwrap
may still make a user namespace of its own, and in it the rest. Without
bwrap, or where the zygote's forks cannot make their namespaces, each warm
child is a whole sandbox child as a cold start makes it (its own uid slot,
cgroup, work dir and namespaces). Either way a warm child is used once:
every program still runs in a process that no earlier program
touched. Its per-program limits (rlimits, including the CPU time that depends
on the number of tests) are set by the job itself, before the program loads.
What is fixed at boot (the layers, the cgroup's size, the output caps) is the
pool's key: a job whose key differs from a warm child's never takes it. A run
that needs a slot while idle children hold them closes as many as it is short
of: those of kinds it does not want at once, those of kinds it wants only when
idle children hold every slot (otherwise a run in flight gives one back soon,
and the idle child is what the next run takes). Closing every idle child
there, as the pool did, threw away a child just booted for each slot a run
waited on: a third of the CPU time of judging HumanEval.

A shared oracle is the one exception to "used once", and it runs no
program: the oracle process of a run whose tests are a dataset's own
(``trusted_tests``: HumanEval's ``check``, EvalPlus's inputs, MBPP's asserts
and setup; never generated tests) goes back to the pool when the run is done,
at rest, and serves the next such run (see ``servers``). It never sees a
program's code or output: only the plain values of the calls relayed to it,
which it validates, and trusted code runs on them. Each run begins with a
fresh namespace, its own setup, limits and CPU time; a process that ended,
timed out or is out of step is closed, one short of CPU time or grown
large is replaced at its next run's start, and one serves at most
``SHARED_RUNS`` runs. Without it every program would pay for two sandbox
starts, its own and its oracle's: on two cores that, not the program's
work, bounded how many programs a second the bench could judge. The
program's process is still fresh for every run.

The idle cost, bounded: at most ``target()`` warm children per kind (program,
oracle, shared oracle; at most ``MAX_KINDS`` kinds, the most recently asked
for; shared oracles lent to runs count),
``min(cores, slots // 2)``, and never more than the free slots, so
warm and running children together stay within ``Isolation.slots``. Shared
oracles given back are kept up to ``max_runs()``, one per run that can be in
flight (4 on two cores with cgroups), so runs back to back never start one. Each idle
child is one bwrap (where in use), one Python interpreter with the harness
loaded (about 10 MB resident) and, outside bwrap, its guardian; a fork of the
zygote is three processes (the fork, its pid 1 and the program's) whose pages
are the zygote's until written (about 2 MB each of its own). Children are
warmed only for the kinds of job the app has asked for. They die with the
app: bwrap's ``--die-with-parent`` and the harness's parent-death signal are
tied to the pool's own thread, which lives as long as the app, and the
guardian ends them when the app's end of their life pipe closes, however the
app ends; at a normal exit the pool closes them.
"""

from __future__ import annotations

import atexit
import json
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from . import zygote
from .config import SandboxConfig
from .harness.wire import Job
from .isolation import Isolation, SlotPool, detect_isolation, slot_pool
from .launch import process_tree, pss_kb
from .watchdog import BOOT_KEYS, Child
from .zygote import zygotes

#: Kinds of job kept warm at once, the most recently asked for (a program's
#: and an oracle's process, shared or not, for sandbox configurations).
MAX_KINDS = 4
#: A kind of job: the isolation, and everything fixed when a child boots.
Key = tuple[Any, ...]
_K = TypeVar("_K")
#: Seconds a run short of slots waits before it looks again at the idle
#: children (one of a kind it wants may have finished booting).
RETRY = 0.02
#: Runs one shared oracle process serves before it is closed (its heap may
#: have grown with a large value; a fresh one is cheap by then).
SHARED_RUNS = 256

_enabled = os.environ.get("QFLOW_SANDBOX_WARM", "1").strip() not in ("0", "no", "off", "false")
zygote.set_warm(_enabled)


def set_enabled(on: bool) -> None:
    """Turn warm children on or off for this process (off: each run starts
    its children, as before; the bench compares both). Off empties the pool."""
    global _enabled
    _enabled = on
    zygote.set_warm(on)
    if not on:
        shutdown()


def enabled() -> bool:
    return _enabled


def set_zygote(on: bool) -> None:
    """Fork children from a zygote (on) or start each fresh (off), for this
    process (the bench compares both). The warm children go with the
    change: a fork of a zygote that off closes dies with it, and must not
    be taken by the next run (it would fail as a child that did not start)."""
    shutdown()
    zygote.set_enabled(on)


def target(iso: Isolation) -> int:
    """Warm children kept per kind of job."""
    return max(1, min(os.cpu_count() or 1, iso.slots // 2))


def _count(counts: dict[_K, int], key: _K, delta: int) -> None:
    """Add ``delta`` to a count kept only while above zero."""
    left = counts.get(key, 0) + delta
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


def max_runs(iso: Isolation) -> int:
    """Runs that can hold their two children at once: shared oracles given
    back are kept up to this many (each run in flight takes one; keeping only
    ``target`` closed one in two on two cores and started it again)."""
    return max(1, iso.slots // 2)


def job_key(iso: Isolation, disk_mb: int, cgroup: bool, job: Job, max_output: int, max_line: int) -> Key:
    """What a warm child must share with a job to take it."""
    limits = job.get("limits") or {}
    boot = json.dumps({k: v for k, v in job.items() if k in BOOT_KEYS}, sort_keys=True)
    return (iso, disk_mb, cgroup, boot, limits.get("as"), limits.get("nproc"), max_output, max_line)


class Recipe:
    """How to start a child of one kind (remembered from the run that asked)."""

    def __init__(self, iso: Isolation, make: Callable[[int, bool], Child], *, shared: bool = False):
        self.iso = iso
        self.make = make
        """``make(slot, warm)`` starts a child on ``slot``."""
        self.shared = shared
        """A shared oracle's kind: a run gives its child back (:meth:`WarmPool.give_back`)."""


class WarmPool:
    """Idle warm children by kind, each holding its uid slot."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._idle: dict[Key, list[tuple[Child, int, SlotPool]]] = {}
        self._recipes: dict[Key, Recipe] = {}
        self._wanted = False
        self._waiting = 0
        """Runs waiting for a slot: the pool warms nothing while one waits."""
        self._doomed: list[tuple[Child, int, SlotPool]] = []
        self._freeing: dict[SlotPool, int] = {}
        """Slots of each slot pool that evicted children will give back once
        closed: a run short of slots counts them before it evicts more."""
        self._evicted: set[int] = set()
        """The children (by id) counted in ``_freeing``."""
        """Idle children to close (discarded by a run short of slots)."""
        self.taken = 0
        """Warm children handed to runs so far."""
        self._closed = False
        self._making = threading.RLock()
        """Held while a warm child is started and filed (so none is half-known)
        and while idle children are closed; see :meth:`quiet`."""
        self._lent: dict[Key, int] = {}
        """Shared oracles held by runs, by kind: they count as warm (they come back)."""
        self._thread: threading.Thread | None = None
        self._resting = False
        """The pool's thread waits for work (every kind is warm or has no free slot)."""

    # ------------------------------------------------------------- taking
    def take(self, wants: list[tuple[Key, Recipe]]) -> list[tuple[Child | None, int]]:
        """For each kind wanted, a warm child with its slot, or None and a
        free slot to start one on; all at once (a run never holds one slot
        while it waits for another). Idle children of other kinds are
        discarded when the slots are short."""
        pool = slot_pool(wants[0][1].iso)
        return self._take(wants, pool)

    def _take(self, wants: list[tuple[Key, Recipe]], pool: SlotPool) -> list[tuple[Child | None, int]]:
        waited = False
        while True:
            evict: list[tuple[Child, int, SlotPool]] = []
            with self._lock:
                got: list[tuple[Child | None, int]] = []
                taken: list[tuple[Key, tuple[Child, int, SlotPool]]] = []
                for key, recipe in wants:
                    if _enabled:
                        self._recipes[key] = self._recipes.pop(key, recipe)  # the most recent last
                        while len(self._recipes) > MAX_KINDS:
                            old = next(iter(self._recipes))
                            del self._recipes[old]
                            evict += self._idle.pop(old, [])
                    idle = self._idle.get(key) or []
                    # A shared oracle: the one given back last (the others
                    # age out); a program's child: the one warmed first.
                    at = -1 if recipe.shared else 0
                    while idle and not idle[at][0].alive():
                        evict.append(idle.pop(at))  # it died idle (killed, out of memory): never use it
                    if idle:
                        self.taken += 1
                        entry = idle.pop(at)
                        taken.append((key, entry))
                        got.append((entry[0], entry[1]))
                    else:
                        got.append((None, -1))
                need = sum(1 for child, _ in got if child is None)
                fresh = pool.try_acquire(need)
                if fresh is not None:
                    for key, recipe in wants:
                        if recipe.shared:
                            _count(self._lent, key, 1)
                    it = iter(fresh)
                    got = [(child, slot if child is not None else next(it)) for child, slot in got]
                    self._wanted = _enabled
                    self._lock.notify_all()
                    done = True
                else:
                    # Give back what was taken (a run never holds a slot while
                    # it waits for another) and make room: as many idle
                    # children of this slot pool as the run is short of,
                    # those of kinds it does not want first, then the
                    # surplus of those it does. Closing every idle child
                    # here threw away children just booted (on 2 cores a
                    # third of the bench's CPU time) when a slot would free
                    # within milliseconds anyway.
                    self.taken -= len(taken)
                    for key, entry in taken:
                        self._idle.setdefault(key, []).insert(0, entry)
                    short = need - pool.free() - self._freeing.get(pool, 0)
                    # Idle children of the kinds this run wants are what the
                    # next runs take: they go only when nothing else holds a
                    # slot (no run and no child booting that will give one back).
                    idle_here = sum(1 for entries in self._idle.values() for e in entries if e[2] is pool)
                    stuck = idle_here + pool.free() + self._freeing.get(pool, 0) >= pool.size
                    evict += self._make_room(pool, [key for key, _recipe in wants], short, others_only=not stuck)
                    done = False
                    if not waited:
                        waited = True
                        self._waiting += 1
                if done and waited:
                    self._waiting -= 1
                if evict:
                    # Closed by the pool's thread, not in this run's time (at
                    # uid levels the sweep alone starts a process).
                    self._doomed += evict
                    for child, _slot, slots in evict:
                        self._evicted.add(id(child))
                        _count(self._freeing, slots, 1)
                    self._wanted = True
                    self._lock.notify_all()
            self._ensure_thread()
            if done:
                return got
            try:
                # A slot frees when a run ends or an evicted child is closed;
                # a child of a wanted kind that finished booting meanwhile is
                # seen at the next look.
                pool.wait_free(need, RETRY)
            except BaseException:
                with self._lock:
                    self._waiting -= 1
                raise

    def _make_room(
        self, pool: SlotPool, wanted: list[Key], short: int, *, others_only: bool
    ) -> list[tuple[Child, int, SlotPool]]:
        """Under the lock: take up to ``short`` idle children of ``pool`` out
        of the pool to be closed, those of kinds not ``wanted`` first; unless
        ``others_only``, then one of each wanted kind in turn from the one
        with the most idle (so idle children alone never hold every slot)."""
        if short <= 0:
            return []
        order = [key for key in self._idle if key not in wanted]
        out: list[tuple[Child, int, SlotPool]] = []
        for key in order:
            while short > 0 and any(e[2] is pool for e in self._idle[key]):
                entry = next(e for e in self._idle[key] if e[2] is pool)
                self._idle[key].remove(entry)
                out.append(entry)
                short -= 1
        while short > 0 and not others_only:
            mine = [[e for e in self._idle.get(key) or [] if e[2] is pool] for key in wanted]
            most = max(range(len(wanted)), key=lambda i: len(mine[i]), default=-1)
            if most < 0 or not mine[most]:
                break
            recipe = self._recipes.get(wanted[most])
            entry = mine[most][0 if recipe is not None and recipe.shared else -1]  # the one a run would take last
            self._idle[wanted[most]].remove(entry)
            out.append(entry)
            short -= 1
        return out

    # ------------------------------------------------------------- warming
    def _ensure_thread(self) -> None:
        if self._thread is None and (_enabled or self._doomed):
            with self._lock:
                if self._thread is None and not self._closed:
                    # Children die with the thread that started them
                    # (PR_SET_PDEATHSIG): this one lives as long as the app.
                    self._thread = threading.Thread(target=self._warm_loop, name="qflow-sandbox-warm", daemon=True)
                    self._thread.start()

    def _next_to_warm(self) -> tuple[Key, Recipe, int, SlotPool] | None:
        """Under the lock: a kind short of warm children and a free slot for it."""
        if self._closed or not _enabled or self._waiting:
            return None
        for key, recipe in self._recipes.items():
            if len(self._idle.get(key) or []) + self._lent.get(key, 0) < target(recipe.iso):
                pool = slot_pool(recipe.iso)
                slots = pool.try_acquire(1)
                if slots is not None:
                    return key, recipe, slots[0], pool
        return None

    def _warm_loop(self) -> None:
        while True:
            with self._making:
                with self._lock:
                    doomed, self._doomed = self._doomed, []
                self._close_all(doomed)
            with self._lock:
                nxt = None if self._doomed else self._next_to_warm()
                while nxt is None and not self._doomed:
                    if self._closed:
                        return
                    self._wanted = False
                    self._resting = True
                    self._lock.notify_all()  # for settle()
                    self._lock.wait_for(lambda: self._wanted or self._closed or bool(self._doomed))
                    self._resting = False
                    nxt = None if self._doomed else self._next_to_warm()
            if nxt is None:
                continue
            key, recipe, slot, pool = nxt
            with self._making:
                try:
                    child = recipe.make(slot, True)
                except Exception:
                    pool.release([slot])
                    with self._lock:
                        self._recipes.pop(key, None)  # it cannot start: the run's own cold start will say why
                    continue
                with self._lock:
                    # Filed even while a run waits for a slot: that run may
                    # want it (it looks again at its next wake).
                    if self._closed or not _enabled:
                        evict = [(child, slot, pool)]
                    else:
                        # A fresh shared oracle goes first in line: a run takes
                        # the one given back last (see ``_take``), so one that
                        # has served is used again before a new one is.
                        idle = self._idle.setdefault(key, [])
                        idle.insert(0 if recipe.shared else len(idle), (child, slot, pool))
                        evict = []
            self._discard(evict)

    # ------------------------------------------------------------- sharing
    def give_back(self, key: Key, child: Child | None, slot: int) -> bool:
        """A run is done with the shared oracle of kind ``key`` it took (or
        lost it: ``child`` None). True when the pool keeps ``child`` idle,
        holding ``slot``, for the next run; False when the run must close it
        and give back its slot itself (the pool is off or closing, the kind
        was forgotten or has its warm children, the child is not at rest or
        has served ``SHARED_RUNS`` runs)."""
        with self._lock:
            _count(self._lent, key, -1)
            keep = (
                child is not None
                and _enabled
                and not self._closed
                and key in self._recipes
                and len(self._idle.get(key) or []) < max_runs(self._recipes[key].iso)
                and child.runs < SHARED_RUNS
                and child.at_rest()
            )
            if keep:
                assert child is not None
                child.runs += 1
                self._idle.setdefault(key, []).append((child, slot, slot_pool(self._recipes[key].iso)))
            self._wanted = True  # warm what is short (a lost oracle, the program's slot)
            self._lock.notify_all()
            return keep

    # ------------------------------------------------------------- ending
    def _discard(self, entries: list[tuple[Child, int, SlotPool]]) -> None:
        if entries:
            with self._making:
                self._close_all(entries)

    def _close_all(self, entries: list[tuple[Child, int, SlotPool]]) -> None:
        for child, _slot, _pool in entries:
            child.kill()  # all first, so that they end together (at exit, the idle children)
        for child, slot, pool in entries:
            try:
                child.close()
            finally:
                with self._lock:
                    if id(child) in self._evicted:
                        self._evicted.discard(id(child))
                        _count(self._freeing, pool, -1)
                pool.release([slot])

    def settle(self, limit: float) -> bool:
        """Wait until the pool has warmed what it can (or ``limit`` seconds
        passed); False if it is still at work."""
        with self._lock:
            if self._thread is None:
                return True
            return self._lock.wait_for(
                lambda: self._closed or (self._resting and not self._wanted and not self._doomed), timeout=limit
            )

    def poke(self) -> None:
        """Slots were given back: warm again what is short."""
        if self._recipes:
            with self._lock:
                self._wanted = True
                self._lock.notify_all()

    @contextmanager
    def quiet(self) -> Iterator[None]:
        """While held, the pool starts and closes no child (one being started
        or closed when asked is finished first), so its children's processes
        and work dirs hold still. What looks for what a run left behind scans
        inside it, then sets the pool's own aside: a child the pool closes
        during the scan would otherwise be seen alive and no longer be the
        pool's when asked. A warm child's own boot goes on meanwhile (its
        guardian's fork): look at the pool's after the scan."""
        with self._making:
            yield

    def idle_pids(self) -> set[int]:
        """The idle warm children's processes (bwrap, the harness, its
        guardian) and the zygotes' own: they ran no program, so what looks
        for what a run left behind sets them aside."""
        with self._making, self._lock:
            tops = [child.top_pid for child, _slot, _pool in self._all_idle()]
        found: set[int] = set()
        for pid in tops:
            found |= process_tree(pid)
        for maker in zygotes():
            found |= maker.pids()
        return found

    def idle_workdirs(self) -> set[str]:
        """The idle warm children's work dirs (outside bwrap)."""
        with self._making, self._lock:
            return {c.workdir for c, _slot, _pool in self._all_idle() if c.workdir}

    def _all_idle(self) -> list[tuple[Child, int, SlotPool]]:
        """Under the lock: the idle children and those waiting to be closed."""
        return [e for entries in self._idle.values() for e in entries] + self._doomed

    def report(self) -> dict[str, object]:
        """The idle cost, as ``qflow doctor`` shows it: whether warm children
        are on, how many are kept per kind, and per kind the idle children,
        their processes and the memory those hold (proportional set size, so
        pages the interpreters share count once), with the isolation level and
        the kind of process (program, oracle or shared oracle) they were booted for."""
        with self._making, self._lock:
            kinds = [(key, list(entries)) for key, entries in self._idle.items() if entries]
            recipes = list(self._recipes.items())
        out = []
        for key, entries in kinds:
            pids: set[int] = set()
            for child, _slot, _pool in entries:
                pids |= process_tree(child.top_pid)
            boot = json.loads(key[3])
            out.append(
                {
                    "isolation": key[0].label,
                    "process": "shared oracle" if boot.get("shared") else boot.get("mode") or "?",
                    "idle": len(entries),
                    "processes": len(pids),
                    "memory_kb": sum(pss_kb(pid) for pid in pids),
                    "address_space_mb": (key[4] >> 20) if isinstance(key[4], int) else None,
                }
            )
        return {
            "on": _enabled,
            "per_kind": max((target(r.iso) for _key, r in recipes), default=None),
            "max_kinds": MAX_KINDS,
            "kinds": out,
            "zygote": zygote.report(),
        }

    def idle_count(self) -> int:
        with self._lock:
            return sum(len(entries) for entries in self._idle.values())

    def clear(self) -> None:
        """Close every idle child and forget the kinds asked for."""
        with self._lock:
            entries = self._all_idle()
            self._idle.clear()
            self._doomed = []
            self._recipes.clear()
        self._discard(entries)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._lock.notify_all()
        self.clear()


_pool = WarmPool()


def warm_pool() -> WarmPool:
    return _pool


def shutdown() -> None:
    """Empty the pool (at exit, or when turned off)."""
    _pool.clear()


atexit.register(_pool.close)


def start_early(config: SandboxConfig) -> threading.Thread:
    """Detect this machine's isolation and ask for the zygote of ``config``'s
    children now, on a thread of its own: the zygote (a process of its own)
    boots on the machine's other core while the caller does other work (a
    bench reads its dataset), where it used to start with the first program
    judged, whose first children then started fresh. What fails here is left
    to the first real use, which says it."""

    def early() -> None:
        try:
            iso = detect_isolation(config.effective_isolation())
            if iso.bwrap is not None:
                zygote.for_launch(iso.launch(0, config.max_disk_mb, config.cgroup, config.preload))
        except Exception:  # the first sandbox made says what is wrong, in its words
            pass

    thread = threading.Thread(target=early, name="qflow-sandbox-early", daemon=True)
    thread.start()
    return thread
