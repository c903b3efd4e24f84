"""Every failure of a real provider client is an LLMError with a short message a
user can act on, no traceback, and never the API key."""

from __future__ import annotations

import socket

import pytest
from stub_server import ANTHROPIC_KEY, OPENAI_KEY

from qflow_tui.core.llm import LLMError, LLMRequest


def req() -> LLMRequest:
    return LLMRequest(agent="test_designer", messages=[{"role": "user", "content": "hi"}], system="s")


def check_clean(err: LLMError) -> str:
    msg = str(err)
    assert ANTHROPIC_KEY not in msg and OPENAI_KEY not in msg
    assert "SECRET" not in msg
    assert "Traceback" not in msg and "\n" not in msg
    assert len(msg) <= 600
    # the SDK's exception chain is not shown under the message
    assert err.__cause__ is None and (err.__context__ is None or err.__suppress_context__)
    return msg


async def fail(client) -> LLMError:
    with pytest.raises(LLMError) as info:
        await client.complete(req(), lambda _: None)
    return info.value


@pytest.mark.parametrize(
    "status, needles, retryable",
    [
        (400, ["rejected the request (400)", "stub error for status-400"], False),
        (401, ["rejected the API key (401)", "check {VAR}"], False),
        (403, ["permission denied", "(403)"], False),
        (404, ["unknown model 'status-404'", "404"], False),
        (429, ["rate limited (429)", "provider busy, try again"], True),
        (500, ["server error 500", "provider busy, try again"], True),
        (503, ["503", "provider busy, try again"], True),
        (529, ["529", "provider busy, try again"], True),
    ],
)
async def test_status_errors_map_to_clear_messages(make, provider, status, needles, retryable):
    var = "ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY"
    err = await fail(make(f"status-{status}"))
    msg = check_clean(err)
    for needle in needles:
        assert needle.replace("{VAR}", var) in msg
    assert err.status == status
    assert err.retryable is retryable


async def test_anthropic_529_says_overloaded(stub):
    from qflow_tui.core.llm.anthropic_client import AnthropicClient

    client = AnthropicClient("status-529", base_url=stub.url, env={"ANTHROPIC_API_KEY": "k-SECRET"}, max_retries=0)
    try:
        assert "overloaded" in check_clean(await fail(client))
    finally:
        await client.aclose()


async def test_provider_message_is_truncated_and_the_key_blanked(make):
    # This server repeats the key it was sent in its error message.
    msg = check_clean(await fail(make("echo-key-400")))
    assert "bad request from key ***" in msg
    assert msg.endswith("…")
    assert len(msg) < 400


async def test_busy_provider_is_retried_by_the_sdk_then_reported(make, stub):
    err = await fail(make("status-429", max_retries=2))
    assert stub.count("status-429") == 3
    assert "after 2 retries" in check_clean(err)


async def test_connection_refused_says_is_the_server_running(make, provider):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}" + ("/v1" if provider == "openai" else "")
    err = await fail(make("ok", base_url=url))
    msg = check_clean(err)
    assert msg.startswith(f"could not reach {url}: is the server running?")
    assert err.retryable is True


async def test_a_short_key_does_not_mangle_messages(make):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    err = await fail(
        make("ok", base_url=f"http://127.0.0.1:{port}", env={"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"})
    )
    assert "(check --base-url" in str(err) and "***" not in str(err)


@pytest.mark.parametrize("model", ["slow-headers", "slow-body"])
async def test_timeout_is_reported(make, model):
    err = await fail(make(model, timeout=0.3))
    msg = check_clean(err)
    assert "timed out" in msg and "0.3 s" in msg
    assert err.retryable is True


@pytest.mark.parametrize("model", ["malformed", "not-sse"])
async def test_malformed_stream_is_an_llm_error(make, model):
    msg = check_clean(await fail(make(model)))
    assert "unreadable" in msg


async def test_stream_cut_short_is_not_taken_for_an_answer(make):
    deltas: list[str] = []
    with pytest.raises(LLMError) as info:
        await make("truncated").complete(req(), deltas.append)
    assert deltas  # some text did arrive...
    assert "ended before the model finished" in check_clean(info.value)  # ...but it is not an answer


async def test_error_event_mid_stream(make, provider):
    err = await fail(make("midstream"))
    msg = check_clean(err)
    assert "try again" in msg
    assert err.retryable is True
