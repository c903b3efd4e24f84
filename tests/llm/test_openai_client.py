"""What only the OpenAI client does: the request it sends, usage left out by a
local server, and keys for local servers."""

from __future__ import annotations

import pytest
from stub_server import OPENAI_KEY

from qflow_tui.core.llm import LLMError, LLMRequest
from qflow_tui.core.llm._http import is_local
from qflow_tui.core.llm.openai_client import LOCAL_DUMMY_KEY, OpenAIClient


def req(system: str = "You write Python.") -> LLMRequest:
    return LLMRequest(
        agent="program_generator",
        messages=[{"role": "user", "content": "Write add(a, b)."}],
        system=system,
        temperature=0.4,
        max_tokens=222,
    )


async def run(client: OpenAIClient, request: LLMRequest | None = None):
    try:
        return await client.complete(request or req(), lambda _: None)
    finally:
        await client.aclose()


async def test_request_puts_the_system_prompt_first_and_asks_for_usage(stub):
    await run(OpenAIClient("ok", base_url=stub.url + "/v1", env={"OPENAI_API_KEY": OPENAI_KEY}))
    (sent,) = stub.requests
    assert sent["path"] == "/v1/chat/completions"
    body = sent["body"]
    assert body["messages"] == [
        {"role": "system", "content": "You write Python."},
        {"role": "user", "content": "Write add(a, b)."},
    ]
    assert body["temperature"] == 0.4
    assert body["max_tokens"] == 222  # compatible servers know max_tokens
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert sent["headers"].get("authorization") == f"Bearer {OPENAI_KEY}"


async def test_empty_system_prompt_sends_no_system_message(stub):
    await run(OpenAIClient("ok", base_url=stub.url + "/v1", env={"OPENAI_API_KEY": OPENAI_KEY}), req(system=""))
    assert [m["role"] for m in stub.requests[0]["body"]["messages"]] == ["user"]


async def test_missing_usage_is_unknown_not_zero(stub):
    completion = await run(OpenAIClient("no-usage", base_url=stub.url + "/v1", env={"OPENAI_API_KEY": OPENAI_KEY}))
    assert completion.text.startswith("def add")
    assert completion.input_tokens is None and completion.output_tokens is None
    assert completion.tokens_estimated is False
    assert completion.extra["usage_reported"] is False


async def test_an_impossible_count_is_unknown_not_a_crash(stub):
    """10**400 prompt tokens (more than a float holds): unknown, so the run counts
    the call itself instead of pricing it into an OverflowError."""
    from qflow_tui.core.llm._http import token_count
    from qflow_tui.core.summary import MAX_CALL_TOKENS

    completion = await run(OpenAIClient("absurd-usage", base_url=stub.url + "/v1", env={"OPENAI_API_KEY": OPENAI_KEY}))
    assert completion.input_tokens is None and completion.output_tokens == 7
    assert completion.extra["usage_reported"] is False
    assert token_count(MAX_CALL_TOKENS) == MAX_CALL_TOKENS and token_count(MAX_CALL_TOKENS + 1) is None
    assert token_count(10**400) is None and token_count(-1) is None and token_count(True) is None


async def test_local_server_without_a_key_gets_a_dummy_key(stub):
    client = OpenAIClient("ok", base_url=stub.url.replace("127.0.0.1", "localhost") + "/v1", env={})
    assert client.key_from_env is False
    completion = await run(client)
    assert completion.text.startswith("def add")
    assert stub.requests[0]["headers"].get("authorization") == f"Bearer {LOCAL_DUMMY_KEY}"


async def test_local_server_that_wants_a_key_says_which_variable(stub):
    with pytest.raises(LLMError) as info:
        await run(OpenAIClient("status-401", base_url=stub.url + "/v1", env={}, max_retries=0))
    assert "wants an API key (401): set OPENAI_API_KEY" in str(info.value)


def test_remote_compatible_server_without_a_key_is_refused():
    with pytest.raises(LLMError) as info:
        OpenAIClient("qwen", base_url="https://llm.example.com/v1", env={})
    msg = str(info.value)
    assert msg.startswith("set OPENAI_API_KEY to use openai/qwen at https://llm.example.com/v1")


def test_base_url_from_env_and_default():
    assert (
        OpenAIClient("m", env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://h:1/v1/"}).base_url == "http://h:1/v1"
    )
    client = OpenAIClient("gpt-4.1", env={"OPENAI_API_KEY": "k"})
    assert client.base_url == "https://api.openai.com/v1" and client.official
    assert client.max_retries == 0 and client._client.max_retries == 0


def test_user_and_password_in_the_url_are_not_shown():
    client = OpenAIClient("m", base_url="http://user:hunter2@example.com/v1", env={"OPENAI_API_KEY": OPENAI_KEY})
    assert "hunter2" not in repr(client) and OPENAI_KEY not in repr(client)


@pytest.mark.parametrize(
    "url, local",
    [
        ("http://localhost:11434/v1", True),
        ("http://127.0.0.1:8000/v1", True),
        ("http://[::1]:1234/v1", True),
        ("http://ollama.localhost/v1", True),
        ("https://api.openai.com/v1", False),
        ("http://192.168.1.5:8000/v1", False),
    ],
)
def test_is_local(url, local):
    assert is_local(url) is local


async def test_a_seed_is_sent_only_when_one_is_set(stub):
    await run(OpenAIClient("ok", base_url=stub.url + "/v1", env={"OPENAI_API_KEY": OPENAI_KEY}))
    seeded = req()
    seeded.seed = 42
    await run(OpenAIClient("ok", base_url=stub.url + "/v1", env={"OPENAI_API_KEY": OPENAI_KEY}), seeded)
    assert "seed" not in stub.requests[0]["body"] and stub.requests[1]["body"]["seed"] == 42


def test_the_run_config_seed_reaches_every_request(tmp_path):
    from qflow_tui.core.config import RunConfig
    from qflow_tui.core.context import RunContext
    from qflow_tui.core.events import Emitter
    from qflow_tui.core.llm.script import ScriptClient
    from qflow_tui.core.problem import make_problem
    from qflow_tui.core.workflows.values import load_config

    path = tmp_path / "config.toml"
    path.write_text('[models."openai/qwen"]\nseed = 7\n', encoding="utf-8")
    assert load_config(path, env={}, overrides={"model": "openai/qwen"}).seed == 7
    ctx = RunContext(
        problem=make_problem("Add.", "assert add(1, 2) == 3"),
        config=RunConfig(seed=7),
        client=ScriptClient.from_function(lambda r: "x"),
        sandbox=None,
        emit=Emitter(),
    )
    assert ctx.request("program_generator", ("s", "u")).seed == 7
    ctx.config = RunConfig()
    assert ctx.request("program_generator", ("s", "u")).seed is None
