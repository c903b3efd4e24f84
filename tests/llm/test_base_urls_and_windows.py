"""Base URLs per provider and presets for local servers; the context window
read from a llama.cpp-style server and a prompt that cannot fit refused
before it is sent."""

from __future__ import annotations

import pytest
from stub_server import KEYS, OPENAI_KEY

from qflow_tui.core.llm import LLMError, LLMRequest, make_client
from qflow_tui.core.llm.anthropic_client import AnthropicClient
from qflow_tui.core.llm.openai_client import OpenAIClient
from qflow_tui.core.workflow_run import build_client
from qflow_tui.core.workflows.values import load_config


def req(words: int) -> LLMRequest:
    return LLMRequest(
        agent="program_generator",
        messages=[{"role": "user", "content": " ".join(["word"] * words)}],
        system="You write Python.",
    )


# -- base URLs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "preset, url",
    [
        ("ollama", "http://localhost:11434/v1"),
        ("vllm", "http://localhost:8000/v1"),
        ("lmstudio", "http://localhost:1234/v1"),
        ("llamacpp", "http://localhost:8080/v1"),
        ("llama.cpp", "http://localhost:8080/v1"),
    ],
)
async def test_presets_name_the_local_servers(preset, url):
    client = make_client("openai/qwen2.5-coder", base_url=preset, env={})
    try:
        assert client.base_url == url
    finally:
        await client.aclose()


def test_a_preset_for_an_anthropic_model_or_a_bare_word_is_one_clear_line():
    with pytest.raises(LLMError) as info:
        make_client("anthropic/claude-sonnet-5-5", base_url="ollama", env=dict(KEYS))
    assert "name the model openai/<model>" in str(info.value)
    with pytest.raises(LLMError) as info:
        make_client("openai/x", base_url="olama", env=dict(KEYS))
    assert "give a URL such as http://localhost:8080/v1 or one of the presets ollama" in str(info.value)


async def test_each_provider_reads_its_own_base_url_variable(monkeypatch):
    # OPENAI_BASE_URL must not send an Anthropic model to an OpenAI-compatible server.
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:11434/v1")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://localhost:9999")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    for model, url in (
        ("anthropic/claude-sonnet-5-5", "http://localhost:9999"),
        ("openai/q", "http://localhost:11434/v1"),
    ):
        config = load_config(overrides={"model": model})
        assert config.base_url is None
        client = build_client(config)
        try:
            assert client.base_url == url
        finally:
            await client.aclose()


# -- context windows ------------------------------------------------------------------------


async def test_the_window_is_read_from_the_server_and_a_prompt_too_long_is_never_sent(stub):
    stub.n_ctx = 40
    client = OpenAIClient("ok", base_url=stub.url + "/v1", env={"OPENAI_API_KEY": OPENAI_KEY})
    try:
        with pytest.raises(LLMError) as info:
            await client.complete(req(60), lambda _: None)
        assert client.context_window == 40
        msg = str(info.value)
        # The server counted its templated prompt: 5 words of system turn, 62 of user turn.
        assert "the prompt is 67 tokens but the model's context window is 40 tokens (as the server reports it)" in msg
        assert "not sent" in msg and not info.value.retryable and not info.value.fatal
        assert stub.count("ok") == 0  # no model call reached the server
        # A prompt that fits goes through, and the window was asked for once only.
        assert (await client.complete(req(5), lambda _: None)).text.startswith("def add")
        assert stub.aux.count("/v1/models") == 1
        assert stub.count("ok") == 1
    finally:
        await client.aclose()


async def test_a_server_that_does_not_say_has_no_window_and_no_refusal(stub):
    client = OpenAIClient("ok", base_url=stub.url + "/v1", env={"OPENAI_API_KEY": OPENAI_KEY})
    try:
        assert (await client.complete(req(5000), lambda _: None)).text.startswith("def add")
        assert client.context_window is None
        assert "/tokenize" not in stub.aux
    finally:
        await client.aclose()


async def test_a_configured_window_is_checked_by_estimate_on_anthropic(stub):
    client = AnthropicClient("ok", base_url=stub.url, env=dict(KEYS), context_window=100)
    try:
        with pytest.raises(LLMError) as info:
            await client.complete(req(150), lambda _: None)
        assert "(at least, estimated) but the model's context window is 100 tokens (configured)" in str(info.value)
        assert stub.count("ok") == 0
    finally:
        await client.aclose()


def test_context_window_is_a_per_model_setting(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[models."openai/smollm2"]\ncontext_window = 2048\nbase_url = "llamacpp"\n', encoding="utf-8")
    config = load_config(path, env={}, overrides={"model": "openai/smollm2"})
    assert (config.context_window, config.base_url) == (2048, "llamacpp")
