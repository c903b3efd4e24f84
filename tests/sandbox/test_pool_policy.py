"""The warm pool's choices when slots are short, with stand-in children (no
process is started): a run closes only what it must, never the warm children
of the kinds it is about to take unless nothing else could give a slot back,
and shared oracles given back are kept for every run in flight."""

from __future__ import annotations

import itertools
import threading
import time
from types import SimpleNamespace

import pytest

from qflow_tui.core.sandbox import pool
from qflow_tui.core.sandbox.isolation import SlotPool, slot_pool

_pids = itertools.count(10**9)
_bases = itertools.count(-1000, -1)


#: What the fake children were told, in order: ("kill" | "close", child).
EVENTS: list[tuple[str, object]] = []


class FakeChild:
    def __init__(self, kind: str):
        self.kind = kind
        self.closed = False
        self.runs = 0
        self.proc = SimpleNamespace(pid=next(_pids))

    def alive(self) -> bool:
        return not self.closed

    def at_rest(self) -> bool:
        return not self.closed

    def kill(self) -> None:
        EVENTS.append(("kill", self))

    def close(self) -> None:
        EVENTS.append(("close", self))
        self.closed = True


def fake_iso(slots: int) -> SimpleNamespace:
    # A uid base no real isolation has: its slot pool is this test's alone.
    return SimpleNamespace(uid_base=next(_bases), slots=slots, label="fake")


@pytest.fixture
def four_slots(monkeypatch):
    """A pool that warms nothing of its own (its thread only closes what runs
    evict) over a slot pool of 4: (isolation, slot pool, warm pool)."""
    monkeypatch.setattr(pool, "_enabled", False)
    iso = fake_iso(4)
    wp = pool.WarmPool()
    yield iso, slot_pool(iso), wp
    wp.close()


def file_idle(wp: pool.WarmPool, key: str, slots: SlotPool, n: int) -> list[FakeChild]:
    children = []
    for _ in range(n):
        (slot,) = slots.acquire(1)
        child = FakeChild(key)
        wp._idle.setdefault(key, []).append((child, slot, slots))  # type: ignore[arg-type]
        children.append(child)
    return children


def wants(iso, *keys: str, shared: tuple[str, ...] = ()):
    return [(key, pool.Recipe(iso, lambda slot, warm: FakeChild("made"), shared=key in shared)) for key in keys]


def test_a_run_short_of_a_slot_closes_an_idle_child_of_another_kind(four_slots):
    iso, slots, wp = four_slots
    (program,) = file_idle(wp, "program", slots, 1)
    (other,) = file_idle(wp, "other", slots, 1)
    running = slots.acquire(2)  # two children of runs in flight
    got = wp._take(wants(iso, "program", "oracle"), slots)
    assert got[0] == (program, 0)  # the warm program's child is taken, not closed
    assert got[1][0] is None and got[1][1] not in running
    assert other.closed and not program.closed
    assert wp._freeing == {} and wp._evicted == set()  # the closed child's slot is counted back


def test_a_run_waits_for_a_slot_rather_than_close_what_the_next_run_takes(four_slots):
    iso, slots, wp = four_slots
    programs = file_idle(wp, "program", slots, 2)
    running = slots.acquire(2)
    # A run in flight ends a moment later and gives its slot back.
    threading.Timer(0.2, slots.release, [running[:1]]).start()
    start = time.monotonic()
    got = wp._take(wants(iso, "program", "oracle"), slots)
    assert time.monotonic() - start >= 0.15
    assert got[0][0] is programs[0] and got[1] == (None, running[0])
    assert not any(child.closed for child in programs)  # on main every idle child was closed


def test_idle_children_alone_never_hold_every_slot(four_slots):
    iso, slots, wp = four_slots
    programs = file_idle(wp, "program", slots, 4)
    got = wp._take(wants(iso, "program", "oracle"), slots)
    assert got[0][0] is programs[0] and got[1][0] is None
    assert sum(child.closed for child in programs) == 1  # the one a run would take last
    assert programs[-1].closed


def test_shared_oracles_given_back_are_kept_for_every_run_in_flight():
    iso = fake_iso(8)
    wp = pool.WarmPool()
    key = "shared"
    wp._recipes[key] = wants(iso, key, shared=(key,))[0][1]
    oracles = [FakeChild(key) for _ in range(pool.max_runs(iso))]
    wp._lent[key] = len(oracles)
    try:
        kept = [wp.give_back(key, child, slot) for slot, child in enumerate(oracles)]  # type: ignore[arg-type]
        # Four runs in flight on 8 slots: keeping only target() (2 on two
        # cores) closed one oracle in two and started it again.
        assert kept == [True] * len(oracles)
        assert wp.give_back(key, FakeChild(key), 9) is False  # type: ignore[arg-type]
        # The next run takes the one given back last.
        got = wp._take([(key, wp._recipes[key])], slot_pool(iso))
        assert got[0][0] is oracles[-1]
    finally:
        wp._idle.clear()
        wp.close()


def test_closing_a_child_no_run_evicted_leaves_the_count_of_slots_being_freed(four_slots):
    # A run short of a slot counts what evicted children will give back before
    # it evicts more; a child closed for another reason (the pool cleared, one
    # warmed while it closed) gave back nothing counted, and taking one off
    # there made the next run evict a child too many.
    _iso, slots, wp = four_slots
    (evicted,) = file_idle(wp, "other", slots, 1)
    (cleared,) = file_idle(wp, "program", slots, 1)
    entry = wp._idle["other"].pop()
    wp._evicted.add(id(evicted))
    wp._freeing[slots] = 1
    wp._close_all([wp._idle["program"].pop()])
    assert cleared.closed and wp._freeing == {slots: 1}
    wp._close_all([entry])
    assert evicted.closed and wp._freeing == {} and wp._evicted == set()


def test_idle_children_are_all_killed_before_the_first_is_waited_for(four_slots):
    # Closing one after another waited for each to end in turn: at exit, a
    # bench's idle children took 11-23 ms; killed together, 7-12.
    _iso, slots, wp = four_slots
    children = file_idle(wp, "program", slots, 2) + file_idle(wp, "oracle", slots, 2)
    EVENTS.clear()
    wp.clear()
    assert [what for what, _child in EVENTS] == ["kill"] * 4 + ["close"] * 4
    assert {id(child) for _what, child in EVENTS} == {id(child) for child in children}
    assert slots.free() == 4
