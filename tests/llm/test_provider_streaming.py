"""Both real provider clients against the stub server: streaming, usage,
cancellation and closing. Parametrized over anthropic and openai."""

from __future__ import annotations

import asyncio

import pytest
import stub_server
from stub_server import ANTHROPIC_KEY, KEYS, OPENAI_KEY

from qflow_tui.core.llm import LLMError, LLMRequest, make_client
from qflow_tui.core.llm.anthropic_client import AnthropicClient
from qflow_tui.core.llm.openai_client import OpenAIClient


def req(system: str = "You write Python.") -> LLMRequest:
    return LLMRequest(
        agent="program_generator",
        messages=[{"role": "user", "content": "Write add(a, b)."}],
        system=system,
        temperature=0.3,
        max_tokens=321,
    )


async def test_deltas_arrive_in_order_and_join_to_the_text(make, provider):
    client = make("ok")
    deltas: list[str] = []
    completion = await client.complete(req(), deltas.append)
    assert deltas == stub_server.PIECES
    assert completion.text == "".join(deltas) == "def add(a, b):\n    return a + b\n"
    assert client.name == f"{provider}/ok"


async def test_token_counts_and_latency_come_from_the_stream(make):
    completion = await make("ok").complete(req(), lambda _: None)
    assert completion.input_tokens == stub_server.INPUT_TOKENS
    assert completion.output_tokens == stub_server.OUTPUT_TOKENS
    assert completion.tokens_estimated is False
    assert completion.latency > 0
    assert completion.extra["truncated"] is False
    assert completion.time_to_first_token <= completion.latency


async def test_thinking_is_counted_apart_and_never_shown(make, stub, provider):
    """A Claude 5 model thinks before it answers: the thinking is billed as
    output but is not the answer, so no delta, no text, and its tokens apart."""
    deltas: list[str] = []
    completion = await make("thinking").complete(req(), deltas.append)
    assert deltas == stub_server.PIECES
    assert completion.text == "".join(stub_server.PIECES)
    assert stub_server.THOUGHT not in completion.text
    assert completion.output_tokens == stub_server.OUTPUT_TOKENS
    assert completion.thinking_tokens == stub_server.THINKING
    assert (await make("ok").complete(req(), lambda _: None)).thinking_tokens is None


async def test_effort_is_sent_only_when_set(make, stub, provider):
    await make("ok").complete(req(), lambda _: None)
    await make("ok", effort="low").complete(req(), lambda _: None)
    unset, low = (r["body"] for r in stub.requests)
    # Anthropic's output_config.effort, OpenAI's reasoning_effort: a model without
    # effort levels refuses either, so nothing goes unless a user asked.
    assert "output_config" not in unset and "reasoning_effort" not in unset
    if provider == "anthropic":
        assert low["output_config"] == {"effort": "low"}
    else:
        assert low["reasoning_effort"] == "low"


async def test_cancelling_mid_stream_closes_the_connection(make, stub):
    client = make("hang")
    got_first = asyncio.Event()
    task = asyncio.create_task(client.complete(req(), lambda _: got_first.set()))
    await asyncio.wait_for(got_first.wait(), 5)
    assert not stub.disconnected.is_set()  # the server is still streaming keep-alives
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # The server only notices when the client has really closed the socket.
    assert await asyncio.to_thread(stub.disconnected.wait, 5)


async def test_an_error_in_on_delta_propagates_untouched_and_closes(make, stub):
    class Boom(ValueError):
        pass

    def on_delta(_: str) -> None:
        raise Boom("the UI broke")

    with pytest.raises(Boom):
        await make("hang").complete(req(), on_delta)
    assert await asyncio.to_thread(stub.disconnected.wait, 5)


async def test_aclose_closes_the_sdk_client(make):
    client = make("ok")
    await client.complete(req(), lambda _: None)
    await client.aclose()
    assert client._client.is_closed()


async def test_missing_key_names_the_variable(provider):
    model = {"anthropic": "claude-sonnet-5-5", "openai": "gpt-4.1"}[provider]
    with pytest.raises(LLMError) as info:
        make_client(f"{provider}/{model}", env={})
    var = "ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY"
    message = str(info.value)
    assert message.startswith(f"set {var} to use {provider}/{model}; ")
    # ... and says what to do without a key.
    assert "--base-url http://localhost:11434/v1" in message and "qflow demo" in message


async def test_make_client_builds_the_provider_client(stub, provider):
    url = stub.url if provider == "anthropic" else stub.url + "/v1"
    client = make_client(f"{provider}/ok", base_url=url, env=dict(KEYS))
    try:
        assert isinstance(client, AnthropicClient if provider == "anthropic" else OpenAIClient)
        assert (await client.complete(req(), lambda _: None)).text.startswith("def add")
    finally:
        await client.aclose()


async def test_base_url_comes_from_the_env_dict_not_the_process(make, stub, provider, monkeypatch):
    var = "ANTHROPIC_BASE_URL" if provider == "anthropic" else "OPENAI_BASE_URL"
    # The SDKs would read the process environment; only the env dict may count.
    monkeypatch.setenv(var, "http://127.0.0.1:9/nowhere")
    url = stub.url if provider == "anthropic" else stub.url + "/v1"
    client = make("ok", env={**KEYS, var: url}, base_url=None)
    assert client.base_url == url
    assert (await client.complete(req(), lambda _: None)).text.startswith("def add")


async def test_repr_never_shows_the_key(make):
    client = make("ok")
    text = repr(client) + str(vars(client).get("name"))
    assert ANTHROPIC_KEY not in text and OPENAI_KEY not in text
    assert "127.0.0.1" in repr(client)
