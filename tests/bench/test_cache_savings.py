"""bench/cache_savings.py: the cache models give the figures their rules imply."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from qflow_tui.core.events import LLMCallFinished, LLMCallStarted
from qflow_tui.locations import demo_session

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def savings():
    spec = importlib.util.spec_from_file_location("cache_savings", ROOT / "bench" / "cache_savings.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["cache_savings"] = module
    spec.loader.exec_module(module)
    return module


SYSTEM = "s" * 8000  # 2,000 tokens at 4 characters a token


def call(n: int, start: float, end: float, user: str, system: str = SYSTEM, agent: str = "program_generator"):
    return [
        LLMCallStarted(
            call_id=f"c{n}",
            agent=agent,
            ts=start,
            model="m",
            system=system,
            messages=[{"role": "user", "content": user}],
            temperature=0.0,
        ),
        LLMCallFinished(call_id=f"c{n}", ts=end, response="answer", input_tokens=None, output_tokens=None, latency=1.0),
    ]


def test_a_shared_system_prompt_is_read_once_written(savings):
    events = call(1, 0, 10, "first question") + call(2, 20, 30, "second question")
    run = savings.analyse("t", savings.calls_of(events))
    t = run.per_agent["program_generator"]
    assert not run.measured_ratio and run.chars_per_token == 4.0
    # Anthropic: call 2 reads the system block written by call 1's breakpoint.
    assert t.anthropic_read == pytest.approx(2000)
    # Writes: call 1 writes its whole prompt (system + message); call 2 writes
    # from the end of what it read to its last block.
    first, second = (len(SYSTEM) + 1 + len("first question")) / 4, (1 + len("second question")) / 4
    assert t.anthropic_write == pytest.approx(first + second)
    # OpenAI: the common prefix (8,001 characters, 2,000.25 tokens) read in 128-token steps from 1,024.
    assert t.openai_read == 1024 + 896
    # llama.cpp: the slot that served call 1 shares that prefix with call 2.
    assert t.llamacpp_read == pytest.approx(8001 / 4)


def test_parallel_calls_share_nothing_but_a_later_one_reads(savings):
    events = call(1, 0, 10, "a") + call(2, 1, 11, "b") + call(3, 12, 20, "c")
    run = savings.analyse("t", savings.calls_of(events), slots=2)
    t = run.per_agent["program_generator"]
    assert t.anthropic_read == pytest.approx(2000)  # only call 3 reads
    assert t.openai_read == 1920
    # Call 2 finds slot 0 busy and slot 1 empty; call 3 reuses the prefix.
    assert t.llamacpp_read == pytest.approx(8001 / 4)


def test_entries_expire_after_five_minutes_idle_except_llamacpp(savings):
    events = call(1, 0, 10, "a") + call(2, 10 + 301, 320, "b")
    t = savings.analyse("t", savings.calls_of(events)).per_agent["program_generator"]
    assert t.anthropic_read == 0 and t.openai_read == 0
    assert t.llamacpp_read == pytest.approx(8001 / 4)


def test_nothing_under_the_minimum_is_cached(savings):
    short = "s" * 2000  # 500 tokens
    events = call(1, 0, 10, "a", system=short) + call(2, 20, 30, "b", system=short)
    t = savings.analyse("t", savings.calls_of(events)).per_agent["program_generator"]
    assert t.anthropic_read == t.anthropic_write == t.openai_read == 0
    assert t.llamacpp_read > 0
    shares = t.shares()
    assert shares["anthropic_cost"] == pytest.approx(1.0)


def test_the_minimum_is_the_price_tables_for_the_sessions_model(savings):
    assert savings.anthropic_minimum("anthropic/claude-haiku-4-5") == 4096
    assert savings.anthropic_minimum("anthropic/claude-sonnet-5-5") == 1024
    # A session of another provider is priced as the default model would cache it.
    assert savings.anthropic_minimum("local/smollm2") == savings.anthropic_minimum("anthropic/claude-sonnet-5-5")


def test_the_ratio_comes_from_recorded_usage(savings):
    events = call(1, 0, 10, "a")
    events[1].input_tokens = 1000  # 8,002 characters in 1,000 tokens
    run = savings.analyse("t", savings.calls_of(events))
    assert run.measured_ratio and run.chars_per_token == pytest.approx(8.002)


def test_the_script_prints_the_demo_and_names_what_it_skips(savings, tmp_path, capsys):
    junk = tmp_path / "results.jsonl"
    junk.write_text('{"task_id": 1}\n')
    assert savings.main([str(demo_session()), str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert "40 calls" in out and "code_quality_checker" in out and "  all " in out
    assert "skipped" in err and "results.jsonl" in err
