"""Fixtures for the provider-client tests: a stub server on 127.0.0.1 and a
factory that builds a client of either provider pointed at it (and closes it)."""

from __future__ import annotations

import pytest
from stub_server import KEYS, StubServer

from qflow_tui.core.llm.anthropic_client import AnthropicClient
from qflow_tui.core.llm.openai_client import OpenAIClient


@pytest.fixture
def stub():
    server = StubServer().start()
    yield server
    server.stop()


@pytest.fixture(params=["anthropic", "openai"])
def provider(request) -> str:
    return request.param


@pytest.fixture
async def make(stub, provider):
    """``make(model, **kwargs)`` -> a client of the parametrized provider aimed at
    the stub server, with no retries unless asked."""
    clients = []

    def build(model: str = "ok", *, env: dict | None = None, base_url: str | None = "stub", **kwargs):
        kwargs.setdefault("max_retries", 0)
        if base_url == "stub":
            base_url = stub.url if provider == "anthropic" else stub.url + "/v1"
        cls = AnthropicClient if provider == "anthropic" else OpenAIClient
        client = cls(model, base_url=base_url, env=dict(KEYS) if env is None else env, **kwargs)
        clients.append(client)
        return client

    yield build
    for client in clients:
        await client.aclose()
