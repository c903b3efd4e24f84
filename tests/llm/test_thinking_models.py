"""The Claude 5 models think before they answer, and older models retire: a
run on either says so. A whole run against the stub server's thinking model:
the answer is the text alone, the thinking's tokens are counted apart in the
events, the result and the session; a run on a retiring model warns first."""

from __future__ import annotations

import sys
from pathlib import Path

import stub_server
from stub_server import KEYS

from qflow_tui.core.config import RunConfig
from qflow_tui.core.llm.anthropic_client import AnthropicClient
from qflow_tui.core.llm.prices import retirement_notice
from qflow_tui.core.problem import make_problem
from qflow_tui.core.summary import TokenTally
from qflow_tui.core.workflow_run import run_workflow

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from helpers import Recorder, TestSandbox  # noqa: E402

PROBLEM = make_problem("Write add(a, b) returning the sum.", "assert add(1, 2) == 3\n")


async def test_a_thinking_models_run_counts_its_thinking_apart_and_warns_of_a_retiring_model(stub, tmp_path):
    client = AnthropicClient("thinking", base_url=stub.url, env=dict(KEYS))
    rec = Recorder()
    config = RunConfig(model="anthropic/claude-sonnet-4-5", workflow="zeroshot")
    outcome = await run_workflow(
        PROBLEM, config, client=client, sandbox=TestSandbox(), sinks=[rec], session_dir=tmp_path, close_client=True
    )
    (call,) = rec.of("llm_call_finished")
    assert call.response == "".join(stub_server.PIECES)
    assert call.thinking_tokens == stub_server.THINKING and call.output_tokens == stub_server.OUTPUT_TOKENS
    assert stub_server.THOUGHT not in "".join(e.text for e in rec.of("text_delta"))
    (tally,) = outcome.summary()["tokens"].values()
    assert TokenTally.from_dict(tally).thinking == stub_server.THINKING
    # The session file keeps it: a replay and `qflow sessions` count the same.
    from qflow_tui.core.session import read_session, summarize

    tokens = summarize(read_session(outcome.session)).tokens
    assert sum(TokenTally.from_dict(t).thinking for t in tokens.values()) == stub_server.THINKING
    # Said before the first call, in one line, with what to use instead.
    (warned,) = [n for n in rec.of("notice") if "claude-sonnet-4-5" in n.message]
    assert warned.level == "warning" and "2026-11-30" in warned.message
    assert "anthropic/claude-sonnet-5-5" in warned.message and "\n" not in warned.message
    assert rec.events.index(warned) < rec.events.index(rec.of("llm_call_started")[0])


async def test_an_answer_cut_while_thinking_says_what_to_change(stub, tmp_path):
    client = AnthropicClient("thinking-cut", base_url=stub.url, env=dict(KEYS))
    rec = Recorder()
    config = RunConfig(model="anthropic/claude-sonnet-5-5", workflow="zeroshot", max_tokens=7, retries=1)
    await run_workflow(
        PROBLEM, config, client=client, sandbox=TestSandbox(), sinks=[rec], session_dir=tmp_path, close_client=True
    )
    (call,) = rec.of("llm_call_finished")
    assert call.stop_reason == "max_tokens" and call.response == ""
    assert call.detail == "cut at max tokens (7), 7 of them spent thinking: raise max_tokens or lower effort"


def test_a_retiring_model_is_said_before_and_after_its_day():
    before = retirement_notice("anthropic/claude-sonnet-4-5", "2026-11-27")
    after = retirement_notice("anthropic/claude-sonnet-4-5", "2026-12-01")
    assert before == (
        "anthropic/claude-sonnet-4-5 retires on 2026-11-30: choose anthropic/claude-sonnet-5-5 before then "
        "(--model or the form's Model)"
    )
    assert after is not None and after.startswith("anthropic/claude-sonnet-4-5 was retired on 2026-11-30")
    assert retirement_notice("anthropic/claude-sonnet-5-5", "2026-11-27") is None
    assert retirement_notice("script/x.py", "2030-01-01") is None
