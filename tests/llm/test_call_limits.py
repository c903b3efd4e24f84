"""Per-call limits: a wall-time limit and a stop for degenerate repetition, on
script models, on the real SDK clients against the stub server, and through a
whole QualityFlow run (the run finishes; the cut calls are counted)."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path

import pytest
from stub_server import LOOP

from qflow_tui.core.config import ConfigError, RunConfig
from qflow_tui.core.llm import LLMError, LLMRequest
from qflow_tui.core.llm.limits import CallLimits, RepetitionDetector, complete_within_limits, normalise_stop_reason
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.problem import make_problem
from qflow_tui.core.workflow_run import run_workflow
from qflow_tui.core.workflows.values import load_config

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "mbpp11"
sys.path.insert(0, str(ROOT / "tests"))
from helpers import Recorder, TestSandbox  # noqa: E402


def req(max_tokens: int = 4096) -> LLMRequest:
    return LLMRequest(agent="program_generator", messages=[{"role": "user", "content": "hi"}], max_tokens=max_tokens)


# -- the detector -----------------------------------------------------------------


def feed_all(detector: RepetitionDetector, text: str, piece: int = 7) -> bool:
    return any(detector.feed(text[i : i + piece]) for i in range(0, len(text), piece))


def test_a_span_repeated_over_and_over_is_seen_and_kept_once():
    head = "def add(a, b):\n    return a + b\n"
    d = RepetitionDetector()
    assert feed_all(d, head + LOOP * 200)
    assert d.period == len(LOOP)
    assert d.repeated >= 5 * len(LOOP)
    collapsed = d.collapsed()
    assert collapsed.startswith(head)
    assert collapsed.count("again") == 1  # the loop, once
    # It stopped early: not all 200 copies had to arrive.
    assert len(d.text) < len(head + LOOP * 40)


def test_a_long_repeated_paragraph_is_seen_too():
    paragraph = "".join(f"line {i}: the value of x is {i * 7}\n" for i in range(30))  # ~900 chars
    d = RepetitionDetector()
    assert feed_all(d, "intro\n" + paragraph * 8, piece=50)
    assert d.period == len(paragraph)


@pytest.mark.parametrize(
    "text",
    [
        # Ordinary code with a few identical lines and a short literal row.
        "def f(n):\n" + "    pass\n" * 4 + "    return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n" * 3,
        # A test designer's answer: many similar asserts, none the same.
        "".join(f"assert remove_Occ('a{'b' * i}a', 'a') == '{'b' * i}'\n" for i in range(120)),
        # Prose of varied lines, long.
        "".join(f"Step {i}: compute {i} * {i + 1} = {i * (i + 1)} and keep it.\n" for i in range(400)),
    ],
)
def test_ordinary_text_is_not_taken_for_repetition(text):
    assert not feed_all(RepetitionDetector(), text)


def test_work_stays_linear_in_the_stream():
    d = RepetitionDetector()
    checks = 0
    original = d._check

    def counting() -> bool:
        nonlocal checks
        checks += 1
        return original()

    d._check = counting  # type: ignore[method-assign]
    # ~160k characters, twenty windows' worth (800k took six seconds and
    # showed nothing more).
    text = "".join(f"{i} is a number we have not seen before\n" for i in range(4000))
    assert not feed_all(d, text, piece=5)
    # One look at a bounded window per ``check_every`` characters, never more.
    assert checks <= len(text) // d.check_every + 1


@pytest.mark.parametrize(
    "raw, ours",
    [("end_turn", "finished"), ("stop", "finished"), ("max_tokens", "max_tokens"), ("length", "max_tokens")],
)
def test_provider_stop_reasons_are_normalised(raw, ours):
    assert normalise_stop_reason(raw) == ours
    assert normalise_stop_reason(None) == "finished"


# -- script models -----------------------------------------------------------------


async def test_a_looping_script_is_stopped_and_marked():
    sent: list[str] = []
    client = ScriptClient.from_function(lambda r: "Here:\n" + LOOP * 5000)
    completion = await complete_within_limits(client, req(max_tokens=100000), sent.append, CallLimits())
    assert completion.stop_reason == "repetition"
    # One copy of the span is kept (its period may start a character early).
    assert completion.text.rstrip("\n") == ("Here:\n" + LOOP).rstrip("\n")
    assert len("".join(sent)) < len(LOOP) * 100  # the stream was ended, not read to its end


async def test_without_the_repetition_stop_the_loop_runs_to_max_tokens():
    client = ScriptClient.from_function(lambda r: "Here:\n" + LOOP * 5000)
    completion = await complete_within_limits(
        client, req(max_tokens=500), lambda _: None, CallLimits(repetition_stop=False)
    )
    assert completion.stop_reason == "max_tokens"
    assert completion.provider_stop_reason == "max_tokens"


async def test_a_script_answer_is_cut_at_max_tokens_like_a_real_model():
    client = ScriptClient.from_function(lambda r: "one two three four five six")
    completion = await complete_within_limits(client, req(max_tokens=4), lambda _: None, CallLimits())
    assert completion.text == "one two three four"
    assert completion.stop_reason == "max_tokens"
    full = await complete_within_limits(client, req(max_tokens=6), lambda _: None, CallLimits())
    assert full.stop_reason == "finished" and full.text.endswith("six")


async def test_a_call_over_its_time_limit_ends_as_a_non_fatal_error():
    async def slow(request):
        await asyncio.sleep(60)
        return "never"

    client = ScriptClient.from_function(slow)
    with pytest.raises(LLMError) as info:
        await complete_within_limits(client, req(), lambda _: None, CallLimits(time_limit=0.2))
    err = info.value
    assert err.stop_reason == "timeout" and not err.fatal and not err.retryable
    assert "within 0.2 s" in str(err) and "--call-timeout" in str(err)


# -- the real SDK clients against the stub server ---------------------------------------


async def test_a_runaway_stream_from_a_real_server_is_stopped(make, stub):
    client = make("runaway")
    completion = await complete_within_limits(client, req(), lambda _: None, CallLimits())
    assert completion.stop_reason == "repetition"
    assert completion.text.rstrip("\n") == ("def add" + LOOP).rstrip("\n")
    assert completion.time_to_first_token is not None
    # The client really hung up: the server noticed the closed connection.
    assert await asyncio.to_thread(stub.disconnected.wait, 5)


async def test_a_stalled_stream_from_a_real_server_hits_the_time_limit(make, stub):
    client = make("hang")
    # Long enough for the stream to start on a busy machine (the server sees the
    # request, then keep-alives only): the limit then ends a call that had begun.
    with pytest.raises(LLMError) as info:
        await complete_within_limits(client, req(), lambda _: None, CallLimits(time_limit=3.0))
    assert info.value.stop_reason == "timeout"
    assert await asyncio.to_thread(stub.disconnected.wait, 60)


# -- a whole run ------------------------------------------------------------------------


def _mbpp11_respond():
    spec = importlib.util.spec_from_file_location("mbpp11_limits", ROOT / "tests" / "scripts" / "mbpp11.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.respond


async def test_a_run_with_a_looping_and_a_stalled_call_finishes_and_counts_them(tmp_path):
    story = _mbpp11_respond()

    async def respond(request):
        if request["agent"] == "program_generator" and request["progression"] == 1:
            return "def remove_Occ(s, ch):\n" + LOOP * 3000  # loops
        if request["agent"] == "program_generator" and request["progression"] == 2:
            await asyncio.sleep(60)  # stalls
        return story(request)

    problem = make_problem((DATA / "problem.txt").read_text(), (DATA / "tests.py").read_text())
    config = RunConfig(model="script/inline", call_timeout=1.0).replace(prompts=3)
    rec = Recorder()
    outcome = await run_workflow(
        problem,
        config,
        client=ScriptClient.from_function(respond),
        sandbox=TestSandbox(),
        sinks=[rec],
        session_dir=tmp_path,
    )
    assert outcome.outcome == "accepted" and outcome.progression == 0
    assert outcome.stops["repetition"] == 1 and outcome.stops["timeout"] == 1
    assert outcome.cut_calls == 2
    summary = outcome.summary()
    assert summary["cut_calls"] == 2 and summary["stops"]["repetition"] == 1
    (looped,) = [e for e in rec.of("llm_call_finished") if e.stop_reason == "repetition"]
    assert looped.progression == 1 and "repeated" in looped.detail
    (timed_out,) = rec.of("llm_call_failed")
    assert timed_out.stop_reason == "timeout" and timed_out.progression == 2
    assert [e for e in rec.of("notice") if "progression 2 stopped" in e.message]
    # The session says the same.
    from qflow_tui.core.session import read_session, summarize

    assert summarize(read_session(outcome.session)).cut_calls == 2


# -- settings ---------------------------------------------------------------------------


def test_call_timeout_from_flags_file_and_the_models_own_table(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(
        '[run]\ncall_timeout = 120\n\n[models."openai/qwen"]\ncall_timeout = 900\nmax_tokens = 1024\n', encoding="utf-8"
    )
    assert load_config(path, env={}).call_timeout == 120
    qwen = load_config(path, env={}, overrides={"model": "openai/qwen"})
    assert (qwen.call_timeout, qwen.max_tokens) == (900, 1024)
    flag = load_config(path, env={}, overrides={"model": "openai/qwen", "call_timeout": 30})
    assert flag.call_timeout == 30
    assert RunConfig(call_timeout=0).call_limits().time_limit is None


def test_a_wrong_model_setting_is_one_clear_line(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[models."openai/qwen"]\nwarp = 9\n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path, env={})
    assert "unknown setting 'warp'" in str(info.value) and 'models."openai/qwen"' in str(info.value)
