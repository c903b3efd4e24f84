"""The app's retry policy, driven through the run's one call path with the real
anthropic and openai SDK clients against the stub server: what is retried, how
long it waits, what it tells, and what is never retried."""

from __future__ import annotations

import asyncio
import socket

import pytest
import stub_server

from qflow_tui.core.config import make_config
from qflow_tui.core.context import RunContext
from qflow_tui.core.events import Emitter, Event
from qflow_tui.core.llm import LLMError
from qflow_tui.core.llm._http import retry_after
from qflow_tui.core.llm.retry import RetryPolicy, RetryWaits
from qflow_tui.core.problem import make_problem

PROBLEM = make_problem("Add two numbers.", "assert add(1, 2) == 3")


class Rec:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, e: Event) -> None:
        self.events.append(e)

    def of(self, kind: str) -> list:
        return [e for e in self.events if e.kind == kind]


def context(client, **config) -> tuple[RunContext, Rec]:
    rec = Rec()
    ctx = RunContext(
        problem=PROBLEM,
        config=make_config({"model": client.name, **config}),
        client=client,
        sandbox=None,
        emit=Emitter(rec),
    )
    # Short backoff where the server gives no retry-after (connection errors).
    ctx.retry = RetryPolicy(attempts=ctx.retry.attempts, base_delay=0.01, max_total_wait=ctx.retry.max_total_wait)
    return ctx, rec


async def call(ctx: RunContext) -> str:
    return await ctx.call(
        ctx.request("program_generator", ("You write Python.", "Write add.")), step="program_generator"
    )


# -- retried ------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [429, 500, 503, 529])
async def test_busy_statuses_are_retried_honouring_retry_after(make, stub, status):
    model = f"flaky-{status}-2-ra150"
    ctx, rec = context(make(model))
    assert await call(ctx) == "".join(stub_server.PIECES)
    assert stub.count(model) == 3
    failed = rec.of("llm_call_failed")
    assert [e.will_retry for e in failed] == [True, True]
    assert all(f"{status}" in e.error for e in failed)
    retries = rec.of("llm_call_retry")
    assert [(e.retry_attempt, e.retry_attempts, e.wait, e.status) for e in retries] == [
        (2, 5, 0.15, status),
        (3, 5, 0.15, status),
    ]
    assert [e.call_id for e in retries] == [e.call_id for e in failed]
    (done,) = rec.of("llm_call_finished")
    assert done.stop_reason == "finished" and done.input_tokens == stub_server.INPUT_TOKENS
    assert ctx.stops == {"retried": 2, "finished": 1}


async def test_retry_after_in_seconds_is_honoured(make, stub):
    ctx, rec = context(make("flaky-429-1-ras1"))
    await call(ctx)
    assert [e.wait for e in rec.of("llm_call_retry")] == [1.0]


@pytest.mark.parametrize("fault", ["truncated", "midstream", "slow-body"])
async def test_a_stream_that_breaks_is_retried_as_a_whole_call_and_its_partial_text_kept(make, stub, fault):
    model = f"flaky-{fault}-1"
    ctx, rec = context(make(model, timeout=0.3))
    assert await call(ctx) == "".join(stub_server.PIECES)
    assert stub.count(model) == 2
    (broken,) = rec.of("llm_call_failed")
    assert broken.will_retry
    # The partial text of the broken attempt stays in the session, under its own call.
    partial = "".join(e.text for e in rec.of("text_delta") if e.call_id == broken.call_id)
    assert broken.partial_chars == len(partial)
    if fault != "slow-body":
        assert partial and "".join(stub_server.PIECES).startswith(partial)
    (done,) = rec.of("llm_call_finished")
    assert done.call_id != broken.call_id


async def test_a_refused_connection_is_retried_then_given_up(make):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = make("ok", base_url=f"http://127.0.0.1:{port}")
    ctx, rec = context(client, retries=3)
    with pytest.raises(LLMError) as info:
        await call(ctx)
    assert "is the server running?" in str(info.value)
    assert "gave up after 3 attempts" in str(info.value)
    assert [e.wait for e in rec.of("llm_call_retry")] == [0.01, 0.02]  # exponential backoff


async def test_a_provider_that_stays_busy_is_given_up_after_the_attempts(make, stub):
    ctx, rec = context(make("status-529"), retries=3)
    with pytest.raises(LLMError) as info:
        await call(ctx)
    assert stub.count("status-529") == 3
    msg = str(info.value)
    assert "gave up after 3 attempts" in msg and "529" in msg and not info.value.fatal
    assert [e.will_retry for e in rec.of("llm_call_failed")] == [True, True, False]
    assert ctx.stops == {"retried": 2, "failed": 1}


async def test_a_retry_after_beyond_the_wait_cap_is_not_waited_for(make, stub):
    ctx, rec = context(make("flaky-429-3-ras600"), retry_wait=60)
    with pytest.raises(LLMError) as info:
        await call(ctx)
    assert stub.count("flaky-429-3-ras600") == 1
    assert rec.of("llm_call_retry") == []
    assert "rate limited (429)" in str(info.value)


# -- never retried ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "model, needle, fatal",
    [
        ("status-400", "rejected the request (400)", False),
        ("status-401", "rejected the API key (401): check {VAR}", True),
        ("status-403", "(403): the key in {VAR} may not have access", True),
        ("status-404", "unknown model 'status-404'", True),
        ("context-400", "the prompt does not fit the model's context window (400)", False),
        ("malformed", "unreadable response", False),
    ],
)
async def test_what_would_fail_again_is_never_retried(make, stub, provider, model, needle, fatal):
    var = "ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY"
    ctx, rec = context(make(model))
    with pytest.raises(LLMError) as info:
        await call(ctx)
    assert stub.count(model) == 1
    assert rec.of("llm_call_retry") == []
    assert needle.replace("{VAR}", var) in str(info.value)
    assert info.value.fatal is fatal
    assert "gave up" not in str(info.value)


async def test_the_context_error_names_the_window_and_what_to_do(make):
    ctx, _ = context(make("context-400"))
    with pytest.raises(LLMError) as info:
        await call(ctx)
    assert "available context size (2048 tokens)" in str(info.value)
    assert "lower --max-tokens" in str(info.value)


# -- usage and timing on the event ----------------------------------------------------------


@pytest.mark.parametrize("model", ["no-usage", "absurd-usage"])
async def test_usage_a_server_does_not_report_is_counted_by_estimate_and_said_once(stub, model):
    """The client leaves counts it was not given (or that cannot be: 10**400
    prompt tokens) unknown; the run counts the call itself, marks the counts an
    estimate, and says so once, so a cost is never $0 nor a traceback."""
    from qflow_tui.core.llm.base import estimate_tokens
    from qflow_tui.core.llm.openai_client import OpenAIClient

    client = OpenAIClient(model, base_url=stub.url + "/v1", env=dict(stub_server.KEYS))
    try:
        ctx, rec = context(client)
        await call(ctx)
        await call(ctx)
    finally:
        await client.aclose()
    first, second = rec.of("llm_call_finished")
    for done in (first, second):
        assert done.tokens_estimated and not done.usage_reported
        assert done.input_tokens == estimate_tokens("You write Python.") + estimate_tokens("Write add.")
        assert done.output_tokens == (
            estimate_tokens(done.response) if model == "no-usage" else stub_server.OUTPUT_TOKENS
        )
        assert done.time_to_first_token is not None and 0 <= done.time_to_first_token <= done.latency
    (said,) = [n for n in rec.of("notice") if "token counts" in n.message]
    assert said.level == "warning" and "by estimate" in said.message and f"openai/{model}" in said.message
    assert ctx.tokens["program_generator"].estimated == 2


async def test_an_impossible_input_count_from_either_provider_is_estimated(make):
    ctx, rec = context(make("absurd-usage"))
    await call(ctx)
    (done,) = rec.of("llm_call_finished")
    assert done.tokens_estimated and not done.usage_reported
    assert 0 < done.input_tokens < 100 and done.output_tokens == stub_server.OUTPUT_TOKENS
    assert ctx.token_summary()["program_generator"]["input"] == done.input_tokens


async def test_usage_a_server_reports_is_not_an_estimate(stub):
    from qflow_tui.core.llm.openai_client import OpenAIClient

    client = OpenAIClient("ok", base_url=stub.url + "/v1", env=dict(stub_server.KEYS))
    try:
        ctx, rec = context(client)
        await call(ctx)
    finally:
        await client.aclose()
    (done,) = rec.of("llm_call_finished")
    assert (done.input_tokens, done.output_tokens) == (stub_server.INPUT_TOKENS, stub_server.OUTPUT_TOKENS)
    assert done.usage_reported and not done.tokens_estimated and not rec.of("notice")


# -- parsing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers, seconds",
    [
        ({"retry-after-ms": "250"}, 0.25),
        ({"Retry-After": "3"}, 3.0),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"}, 10.0),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_retry_after_header_forms(headers, seconds):
    now = 1445412480.0  # 07:28:00 that day
    assert retry_after(headers, now=now) == seconds


def test_the_policy_backs_off_exponentially_within_its_caps():
    policy = RetryPolicy(attempts=6, base_delay=1, max_delay=4, max_total_wait=8)
    busy = LLMError("busy", status=529, retryable=True)
    assert [policy.wait_before(k, busy, 0) for k in range(1, 7)] == [1, 2, 4, 4, 4, None]
    assert policy.wait_before(2, busy, waited=7) is None  # 7 + 2 > 8
    assert policy.wait_before(1, LLMError("bad", status=400), 0) is None


async def test_a_run_stopping_the_wait_as_the_retry_is_given_up_still_stops_it():
    # The progression waiting to retry is cancelled (the run no longer needs it) at
    # the moment a person gives the retry up: the cancellation must not be lost
    # (asyncio.wait_for on Python 3.11 dropped it and the progression went on).
    waits = RetryWaits()
    waits.begin("c1")
    waiting = asyncio.create_task(waits.wait("c1", 30))
    await asyncio.sleep(0)
    assert waits.give_up("c1") == 1
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
