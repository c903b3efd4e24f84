"""Tokens and cost, honestly (issue 30): the cached parts of a prompt are kept
apart and priced at their own rates, caching is asked for where it pays, and a
call we cut (repetition, time limit) still counts what it cost, marked as
counted or estimated. Against the stub server, which caches like the providers."""

from __future__ import annotations

import pytest
from stub_server import INPUT_TOKENS, LOOP, OUTPUT_TOKENS

from qflow_tui.core.events import LLMCallFailed, LLMCallFinished
from qflow_tui.core.llm import LLMError, LLMRequest
from qflow_tui.core.llm.limits import CallLimits, complete_within_limits
from qflow_tui.core.llm.prices import BUILT_IN, load_prices, run_cost
from qflow_tui.core.summary import TokenTally, tally_events, tokens_from_dict, tokens_to_dict

#: A system text past Anthropic's minimum cacheable length (1,024 tokens).
LONG = " ".join(f"w{i}" for i in range(1200))


def req(system: str = LONG) -> LLMRequest:
    return LLMRequest(agent="program_generator", messages=[{"role": "user", "content": "solve it"}], system=system)


async def ask(client, request: LLMRequest):
    return await client.complete(request, lambda _: None)


async def test_anthropic_writes_a_new_prefix_then_reads_it_and_the_request_carries_the_marker(make, provider, stub):
    if provider != "anthropic":
        pytest.skip("Anthropic caches only when asked")
    client = make("cache")
    first = await ask(client, req())
    second = await ask(client, req())
    assert stub.requests[-1]["body"]["cache_control"] == {"type": "ephemeral"}
    assert (first.cache_write_tokens, first.cache_read_tokens) == (1200, 0)
    assert (second.cache_write_tokens, second.cache_read_tokens) == (0, 1200)
    # input_tokens is the whole prompt: the uncached rest plus the cached parts.
    assert first.input_tokens == second.input_tokens == INPUT_TOKENS + 1200


async def test_anthropic_is_not_asked_to_cache_a_short_prompt_or_when_caching_is_off(make, provider, stub):
    if provider != "anthropic":
        pytest.skip("Anthropic caches only when asked")
    short = await ask(make("cache"), req("a short system text"))
    assert "cache_control" not in stub.requests[-1]["body"]
    assert (short.cache_read_tokens, short.cache_write_tokens, short.input_tokens) == (0, 0, INPUT_TOKENS)
    await ask(make("cache", prompt_cache=False), req())
    assert "cache_control" not in stub.requests[-1]["body"]


async def test_openai_reports_its_automatic_cache_reads_inside_prompt_tokens(make, provider):
    if provider != "openai":
        pytest.skip("OpenAI caches by itself")
    client = make("cache")
    first, second = await ask(client, req()), await ask(client, req())
    assert (first.input_tokens, first.cache_read_tokens) == (INPUT_TOKENS + 1200, 0)
    assert (second.input_tokens, second.cache_read_tokens) == (INPUT_TOKENS + 1200, 1200)
    assert second.cache_write_tokens is None


async def test_a_llamacpp_slot_is_asked_to_keep_the_prompt(stub):
    from qflow_tui.core.llm.openai_client import OpenAIClient

    client = OpenAIClient("ok", base_url=stub.url + "/v1", env={}, cache_prompt=True)
    try:
        await ask(client, req())
    finally:
        await client.aclose()
    assert stub.requests[-1]["body"]["cache_prompt"] is True


def test_each_part_is_priced_at_its_own_rate():
    sonnet = BUILT_IN["anthropic/claude-sonnet-4-5"]
    assert (sonnet.cache_read, sonnet.cache_write) == pytest.approx((0.3, 3.75))
    tally = TokenTally()
    tally.add(INPUT_TOKENS + 1200, OUTPUT_TOKENS, cache_write=1200)
    tally.add(INPUT_TOKENS + 1200, OUTPUT_TOKENS, cache_read=1200)
    cost = run_cost("anthropic/claude-sonnet-4-5", tokens_to_dict({"pg": tally}), BUILT_IN)
    fresh, out = 2 * INPUT_TOKENS * 3.0, 2 * OUTPUT_TOKENS * 15.0
    assert cost["total"] == pytest.approx(round((fresh + 1200 * 3.75 + 1200 * 0.3 + out) / 1e6, 6))
    # Priced as fresh input, as before, the same tokens cost more.
    assert cost["total"] < (2 * (INPUT_TOKENS + 1200) * 3.0 + out) / 1e6
    mini = run_cost("openai/gpt-4o-mini", {"pg": {"input": 2000, "cache_read": 1000, "output": 0}}, BUILT_IN)
    assert mini["total"] == pytest.approx((1000 * 0.15 + 1000 * 0.075) / 1e6)


def test_a_configured_price_may_give_its_cache_rates(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[prices."openai/mine"]\ninput = 1.0\noutput = 2.0\ncache_read = 0.25\n')
    price = load_prices(path)["openai/mine"]
    assert (price.cache_read, price.cache_write) == (0.25, 1.0)
    path.write_text('[prices."anthropic/mine"]\ninput = 2.0\noutput = 2.0\n')
    price = load_prices(path)["anthropic/mine"]
    assert (price.cache_read, price.cache_write) == pytest.approx((0.2, 2.5))


async def test_a_call_cut_for_repetition_counts_its_tokens_estimated_without_a_tokenizer(make):
    answer = await complete_within_limits(make("runaway"), req("sys"), lambda _: None, CallLimits(time_limit=30))
    assert answer.stop_reason == "repetition"
    assert answer.tokens_estimated is True
    assert answer.input_tokens is not None and answer.input_tokens > 0
    assert answer.output_tokens is not None and answer.output_tokens > 10 * len(LOOP.split())


async def test_a_cut_call_is_counted_by_the_llamacpp_tokenizer_where_there_is_one(stub, provider, make):
    if provider != "openai":
        pytest.skip("/tokenize is llama.cpp's")
    stub.n_ctx = 100_000
    answer = await complete_within_limits(make("runaway"), req("sys"), lambda _: None, CallLimits(time_limit=30))
    assert answer.tokens_estimated is False
    assert "/tokenize" in stub.aux
    assert answer.output_tokens is not None and answer.output_tokens >= 5 * len(LOOP.split())


async def test_a_call_cut_by_the_time_limit_carries_what_it_cost(make):
    # The stub streams a few words, then hangs: the limit must leave time for
    # those words to arrive on a busy machine (at 0.5 s, a CI run at load 15+
    # cut the call before its first word, and the answer counted 0).
    with pytest.raises(LLMError) as info:
        await complete_within_limits(
            make("hang"), req("sys"), lambda _: None, CallLimits(time_limit=3.0, repetition_stop=False)
        )
    assert info.value.stop_reason == "timeout"
    assert info.value.counted is not None
    prompt, answer, exact = info.value.counted
    assert prompt > 0 and answer > 0 and exact is False


def test_the_tally_keeps_parts_apart_counts_cut_calls_and_reads_old_sessions():
    events = [
        LLMCallFinished(
            agent="a", call_id="c1", response="x", input_tokens=100, output_tokens=5, latency=0.1, cache_read_tokens=80
        ),
        LLMCallFinished(
            agent="a", call_id="c2", response="x", input_tokens=100, output_tokens=5, latency=0.1, cache_write_tokens=90
        ),
        LLMCallFailed(
            agent="a",
            call_id="c3",
            error="timeout",
            stop_reason="timeout",
            input_tokens=50,
            output_tokens=7,
            tokens_estimated=True,
        ),
        LLMCallFailed(agent="a", call_id="c4", error="401", stop_reason="failed"),
    ]
    tally = tally_events(events)["a"]
    assert tally.to_dict() == {
        "input": 250,
        "output": 17,
        "calls": 2,
        "cache_read": 80,
        "cache_write": 90,
        "estimated": 1,
        "cut": 1,
    }
    assert tally.fresh_input == 80
    # A session written before the split reads as it did: every input token fresh.
    old = tokens_from_dict({"a": {"input": 10, "output": 2, "calls": 1}})["a"]
    assert (old.cache_read, old.cache_write, old.fresh_input) == (0, 0, 10)
    assert old.to_dict() == {"input": 10, "output": 2, "calls": 1}


def _write_config(text: str) -> None:
    import os
    from pathlib import Path

    folder = Path(os.environ["QFLOW_CONFIG_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text, encoding="utf-8")


async def test_anthropic_asks_for_caching_from_each_models_own_minimum(make, provider, stub):
    """Anthropic's minimum cacheable prompt is per model (1,024 tokens for Sonnet
    4.5 and Opus 4.1, 4,096 for Haiku 4.5): a prompt between the two is marked
    for the one and not the other, and the config file's price table can say it
    for a model the built-in table lacks."""
    if provider != "anthropic":
        pytest.skip("Anthropic caches only when asked")
    assert BUILT_IN["anthropic/claude-haiku-4-5"].cache_min_tokens == 4096
    assert BUILT_IN["anthropic/claude-sonnet-4-5"].cache_min_tokens == 1024
    between = " ".join(f"w{i}" for i in range(2500))  # about 2,500 tokens
    await ask(make("claude-opus-4-1"), req(between))
    assert stub.requests[-1]["body"]["cache_control"] == {"type": "ephemeral"}
    await ask(make("claude-haiku-4-5"), req(between))
    assert "cache_control" not in stub.requests[-1]["body"]
    await ask(make("claude-haiku-4-5"), req(between * 2))  # past 4,096
    assert stub.requests[-1]["body"]["cache_control"] == {"type": "ephemeral"}
    _write_config('[prices."anthropic/claude-3-5-haiku"]\ninput = 0.8\noutput = 4.0\ncache_min_tokens = 2048\n')
    assert load_prices()["anthropic/claude-3-5-haiku"].cache_min_tokens == 2048
    await ask(make("claude-3-5-haiku"), req(LONG))  # 1,200 tokens: under its 2,048
    assert "cache_control" not in stub.requests[-1]["body"]
    await ask(make("claude-some-new-model"), req(LONG))  # not in the table: the lowest minimum
    assert stub.requests[-1]["body"]["cache_control"] == {"type": "ephemeral"}
