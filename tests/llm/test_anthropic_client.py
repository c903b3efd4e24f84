"""What only the Anthropic client does: the request it sends."""

from __future__ import annotations

from stub_server import ANTHROPIC_KEY

from qflow_tui.core.llm import LLMRequest
from qflow_tui.core.llm.anthropic_client import AnthropicClient


async def test_request_carries_system_messages_and_max_tokens(stub):
    client = AnthropicClient("ok", base_url=stub.url, env={"ANTHROPIC_API_KEY": ANTHROPIC_KEY})
    messages = [
        {"role": "user", "content": "Write add(a, b)."},
        {"role": "assistant", "content": "def add(a, b): return a - b"},
        {"role": "user", "content": "Fix it."},
    ]
    try:
        completion = await client.complete(
            LLMRequest(agent="self_debugger", messages=messages, system="You debug.", temperature=0.7, max_tokens=123),
            lambda _: None,
        )
    finally:
        await client.aclose()
    (sent,) = stub.requests
    assert sent["path"] == "/v1/messages"
    body = sent["body"]
    assert body["model"] == "ok"
    assert body["system"] == "You debug."
    assert body["messages"] == messages
    assert body["max_tokens"] == 123
    assert body["stream"] is True
    # API version 2026-10-21 has no sampling parameters: not sent, and said so.
    assert "temperature" not in body
    assert completion.extra["temperature_sent"] is False
    assert completion.stop_reason == "end_turn"
    headers = {k.lower(): v for k, v in sent["headers"].items()}
    assert ANTHROPIC_KEY in headers.get("authorization", "") + headers.get("x-api-key", "")


async def test_empty_system_is_left_out(stub):
    client = AnthropicClient("ok", base_url=stub.url, env={"ANTHROPIC_API_KEY": ANTHROPIC_KEY})
    try:
        await client.complete(
            LLMRequest(agent="clarifier", messages=[{"role": "user", "content": "x"}]), lambda _: None
        )
    finally:
        await client.aclose()
    assert "system" not in stub.requests[0]["body"]


async def test_default_base_url_and_retries():
    client = AnthropicClient("claude-sonnet-5-5", env={"ANTHROPIC_API_KEY": ANTHROPIC_KEY})
    try:
        assert client.base_url == "https://api.anthropic.com"
        # The SDK retries nothing by itself: the policy in core/llm/retry.py decides, visibly.
        assert client.max_retries == 0 and client._client.max_retries == 0
        assert ANTHROPIC_KEY not in repr(client)
    finally:
        await client.aclose()
