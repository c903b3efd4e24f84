"""Adaptive per-provider concurrency: the limiter's arithmetic, its use by the
run's call path, and a real SDK client against a stub server that answers 429
when it is crowded."""

from __future__ import annotations

import asyncio

import pytest
import stub_server

from qflow_tui.core.config import ConfigError, RunConfig
from qflow_tui.core.context import RunContext
from qflow_tui.core.events import Emitter
from qflow_tui.core.llm.limiter import DEFAULT_MAX_CONNECTIONS, ConnectionLimiter, limiter_for
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.problem import make_problem
from qflow_tui.core.workflows.values import load_config, validate

PROBLEM = make_problem("Add two numbers.", "assert add(1, 2) == 3")


async def test_the_limit_is_never_exceeded_and_halves_once_per_burst():
    limiter = ConnectionLimiter(8, cooldown=60)
    release = asyncio.Event()

    async def hold():
        async with limiter.slot():
            await release.wait()

    tasks = [asyncio.create_task(hold()) for _ in range(12)]
    await asyncio.sleep(0)
    assert limiter.in_flight == 8 and limiter.peak == 8
    assert limiter.busy() == 4
    assert limiter.busy() is None  # the rest of the burst: no further halving
    release.set()
    await asyncio.gather(*tasks)
    assert limiter.peak == 8 and limiter.in_flight == 0


async def test_after_a_cut_new_calls_wait_for_the_lower_limit():
    limiter = ConnectionLimiter(4, cooldown=0)
    gates = [asyncio.Event() for _ in range(6)]
    seen: list[int] = []

    async def hold(i: int):
        async with limiter.slot():
            seen.append(limiter.in_flight)
            await gates[i].wait()

    first = [asyncio.create_task(hold(i)) for i in range(4)]
    await asyncio.sleep(0)
    assert limiter.busy() == 2
    later = [asyncio.create_task(hold(i)) for i in (4, 5)]
    for g in gates[:4]:
        g.set()
    await asyncio.gather(*first)
    await asyncio.sleep(0)
    assert limiter.in_flight == 2  # both later calls run, and no more than the new limit
    for g in gates[4:]:
        g.set()
    await asyncio.gather(*later)
    assert seen[4:] and max(seen[4:]) <= 2


def test_successes_raise_the_limit_back_to_the_cap_and_no_further():
    limiter = ConnectionLimiter(8, cooldown=0)
    limiter.busy()
    limiter.busy()
    assert limiter.limit == 2
    for _ in range(2):
        limiter.succeeded()
    assert limiter.limit == 3
    for _ in range(100):
        limiter.succeeded()
    assert limiter.limit == 8
    assert ConnectionLimiter(1, cooldown=0).busy() is None  # never below one


async def test_a_cancelled_waiter_leaves_no_slot_behind():
    limiter = ConnectionLimiter(1)
    inside = asyncio.Event()
    leave = asyncio.Event()

    async def hold():
        async with limiter.slot():
            inside.set()
            await leave.wait()

    holder = asyncio.create_task(hold())
    await inside.wait()
    waiter = asyncio.create_task(hold())
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    leave.set()
    await holder
    assert limiter.in_flight == 0
    async with limiter.slot():
        assert limiter.in_flight == 1


async def test_script_models_get_no_limit_and_network_providers_share_one(make):
    script = ScriptClient.from_function(lambda r: "x")
    assert limiter_for(script, 0).limit is None
    assert limiter_for(script, 3).limit == 3
    client = make("ok")
    shared = limiter_for(client, 0)
    assert shared.limit == DEFAULT_MAX_CONNECTIONS and limiter_for(client, 0) is shared
    assert limiter_for(client, 4) is not shared and limiter_for(client, 4).cap == 4


async def test_twenty_script_calls_run_at_once():
    started = 0
    all_in = asyncio.Event()

    async def respond(request):
        nonlocal started
        started += 1
        if started == 20:
            all_in.set()
        await asyncio.wait_for(all_in.wait(), 10)  # only returns once all twenty are in
        return "ok"

    ctx = RunContext(
        problem=PROBLEM,
        config=RunConfig(model="script/x"),
        client=ScriptClient.from_function(respond),
        sandbox=None,
        emit=Emitter(),
    )
    calls = [ctx.call(ctx.request("test_designer", ("s", f"u{i}")), step="test_designer") for i in range(20)]
    assert await asyncio.gather(*calls) == ["ok"] * 20
    assert ctx.limiter is not None and ctx.limiter.peak == 20


async def test_a_crowded_server_gets_fewer_calls_at_once_and_every_call_finishes(make, stub):
    notices: list[str] = []
    ctx = RunContext(
        problem=PROBLEM,
        config=RunConfig(model="x/busy", concurrency=8, retries=50, retry_wait=60),
        client=make("busy-over-2"),
        sandbox=None,
        emit=Emitter(lambda e: notices.append(e.message) if e.kind == "notice" else None),
    )
    calls = [ctx.call(ctx.request("test_designer", ("s", f"u{i}")), step="test_designer") for i in range(8)]
    assert await asyncio.gather(*calls) == ["".join(stub_server.PIECES)] * 8
    assert ctx.stops["finished"] == 8 and ctx.stops["retried"] >= 1
    assert ctx.limiter is not None and ctx.limiter.peak <= 8
    assert ctx.limiter.limit < 8  # it came down, and has not climbed all the way back in 8 calls
    assert any("is busy: at most 4 calls at once" in n for n in notices)


def test_max_connections_is_a_setting_with_automatic_as_default(tmp_path):
    assert validate(RunConfig()).concurrency == 0
    assert load_config(tmp_path / "none.toml", env={}, overrides={"concurrency": 3}).concurrency == 3
    with pytest.raises(ConfigError):
        validate(RunConfig(concurrency=-1))
