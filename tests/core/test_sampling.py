"""The session says which sampling settings really reached the model."""

from __future__ import annotations

import json
from pathlib import Path

from qflow_tui.core.config import RunConfig
from qflow_tui.core.llm.anthropic_client import AnthropicClient
from qflow_tui.core.llm.openai_client import OpenAIClient
from qflow_tui.core.workflow_run import sampling_sent
from tests.helpers import CORRECT, Story


def test_each_provider_says_what_it_sends():
    config = RunConfig()
    assert sampling_sent(AnthropicClient, config)["temperature"].startswith("not sent")
    assert sampling_sent(OpenAIClient, config)["temperature"].startswith("sent")
    assert sampling_sent(OpenAIClient, config)["seed"] == "not set"
    assert sampling_sent(OpenAIClient, config.replace(seed=7))["seed"] == "sent: 7"
    # A Claude 5 model always thinks: how much it may is recorded beside the rest.
    assert sampling_sent(AnthropicClient, config)["effort"] == "not set: the model's default"
    assert sampling_sent(AnthropicClient, config.replace(effort="low"))["effort"] == "sent: low"
    assert sampling_sent(OpenAIClient, config.replace(effort="high"))["effort"] == "sent: high"


def test_a_local_model_and_a_bench_say_what_they_send():
    # A local/ model is llama.cpp's OpenAI server inside the app: it samples.
    from qflow_tui.core.bench.bench_runner import _WatchedClient
    from qflow_tui.core.llm.local import LocalClient

    config = RunConfig()
    assert sampling_sent(LocalClient, config)["temperature"].startswith("sent as each agent asks")
    assert "effort" not in sampling_sent(LocalClient, config)  # llama.cpp is not sent one
    assert sampling_sent(LocalClient, config.replace(effort="low"))["effort"].startswith("not sent: low")
    # A bench watches each problem's calls through a wrapper, which says what the inner client sends.
    assert sampling_sent(_WatchedClient(OpenAIClient), config)["temperature"].startswith("sent")
    assert sampling_sent(_WatchedClient(OpenAIClient), config.replace(effort="low"))["effort"] == "sent: low"


async def test_the_session_header_and_first_event_record_it(tmp_path):
    from tests.core.test_qualityflow import solve

    outcome, rec = await solve(Story(generate=lambda p: CORRECT), tmp_path, prompts=1)
    header = json.loads(Path(outcome.session).read_text(encoding="utf-8").splitlines()[0])  # noqa: ASYNC240
    assert header["sampling"]["temperature"].startswith("not applicable")
    assert rec.of("run_started")[0].sampling == header["sampling"]
