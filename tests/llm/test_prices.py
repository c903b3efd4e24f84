"""Cost: a dated price table (built in, extended by the config file), cost per
agent and in total where the price is known, "unpriced" otherwise."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from qflow_tui.core.llm.prices import BUILT_IN, PriceError, load_prices, run_cost

ROOT = Path(__file__).resolve().parents[2]
TOKENS = {
    "program_generator": {"input": 1000, "output": 500, "calls": 1},
    "test_designer": {"input": 2000, "output": 0, "calls": 1},
}


def test_cost_per_agent_and_total_with_the_date_of_the_prices():
    cost = run_cost("anthropic/claude-sonnet-4-5", TOKENS, dict(BUILT_IN))
    # $3 per million in, $15 per million out.
    assert cost["per_agent"] == {"program_generator": 0.0105, "test_designer": 0.006}
    assert cost["total"] == 0.0165 and cost["currency"] == "USD"
    assert cost["prices_as_of"] == BUILT_IN["anthropic/claude-sonnet-4-5"].as_of


def test_unknown_models_are_unpriced_and_what_runs_here_is_free():
    assert run_cost("openai/some-new-model", TOKENS, dict(BUILT_IN)) == {"unpriced": "openai/some-new-model"}
    assert run_cost("openai/qwen2.5-coder", TOKENS, dict(BUILT_IN), local=True)["total"] == 0
    assert run_cost("local/smollm2", TOKENS, dict(BUILT_IN))["total"] == 0


def test_the_config_file_adds_and_overrides_prices(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(
        '[prices."openai/some-new-model"]\ninput = 1.0\noutput = 2.0\nas_of = "2026-11-01"\n'
        '[prices."openai/gpt-4.1"]\ninput = 9.0\noutput = 9.0\n',
        encoding="utf-8",
    )
    prices = load_prices(path)
    assert run_cost("openai/some-new-model", TOKENS, prices)["total"] == 0.004
    assert prices["openai/gpt-4.1"].input == 9.0
    path.write_text('[prices."openai/x"]\ninput = "cheap"\n', encoding="utf-8")
    with pytest.raises(PriceError) as info:
        load_prices(path)
    assert 'prices."openai/x"' in str(info.value) and "dollars per million tokens" in str(info.value)
    # A price below 0 or not finite would let a spend fall, or never compare with a cap.
    for bad in ("input = -1.0\noutput = 2.0", "input = nan\noutput = 2.0", "input = 1.0\noutput = inf",
                "input = 1.0\noutput = 2.0\ncache_read = -0.5"):  # fmt: skip
        path.write_text(f'[prices."openai/x"]\n{bad}\n', encoding="utf-8")
        with pytest.raises(PriceError) as info:
            load_prices(path)
        assert "each 0 or more" in str(info.value)


def test_solve_json_carries_the_cost(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "qflow_tui.cli",
            "solve",
            "--problem",
            "mbpp/11",
            "--model",
            "script/tests/scripts/mbpp11.py",
            "--prompts",
            "1",
            "--session-dir",
            str(tmp_path),
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    cost = json.loads(out.stdout)["cost"]
    assert cost["total"] == 0 and set(cost["per_agent"]) >= {"program_generator", "code_quality_checker"}


def test_the_minimum_cacheable_length_is_per_model_and_the_config_file_can_say_it(tmp_path):
    from qflow_tui.core.llm.prices import DEFAULT_CACHE_MIN_TOKENS, cache_min_tokens

    prices = dict(BUILT_IN)
    assert cache_min_tokens("anthropic/claude-haiku-4-5", prices) == 4096
    assert cache_min_tokens("anthropic/claude-sonnet-4-5", prices) == 1024
    assert cache_min_tokens("anthropic/claude-unknown", prices) == DEFAULT_CACHE_MIN_TOKENS
    path = tmp_path / "config.toml"
    # A price given again keeps the table's minimum unless it says its own.
    path.write_text('[prices."anthropic/claude-haiku-4-5"]\ninput = 1.0\noutput = 5.0\n', encoding="utf-8")
    assert load_prices(path)["anthropic/claude-haiku-4-5"].cache_min_tokens == 4096
    path.write_text('[prices."anthropic/x"]\ninput = 1.0\noutput = 5.0\ncache_min_tokens = "lots"\n', encoding="utf-8")
    with pytest.raises(PriceError) as info:
        load_prices(path)
    assert "cache_min_tokens must be a whole number of tokens" in str(info.value)
