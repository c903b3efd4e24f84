"""A hostile model server (tests/llm/hostile_server.py, on 127.0.0.1) cannot
hang qflow, blow up its memory or stack, or write to the terminal: every
request has a deadline for the whole answer, a bound on its size and depth,
and what it says is shown terminal-safe. Each bound is checked against an
answer that would run far past it (a drip of two minutes against a deadline of
seconds), never by timing qflow itself."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from qflow_tui.core.llm import LLMError, LLMRequest
from qflow_tui.core.llm.base import count_cut
from qflow_tui.core.llm.catalog import server_models
from qflow_tui.core.llm.limits import CallLimits, complete_within_limits
from qflow_tui.core.llm.openai_client import OpenAIClient
from tests.helpers import ROOT
from tests.llm.hostile_server import DRIP_FOR, HostileServer

SIDE = ("/v1/models", "/props", "/apply-template", "/tokenize")
#: Far below the drip's two minutes, far above any deadline here.
BOUND = 45.0


@pytest.fixture
def hostile() -> Iterator[HostileServer]:
    server = HostileServer().start()
    yield server
    server.stop()


def assert_safe(text: str) -> None:
    for bad in ("\x1b", "\x07", "\u202e", "\x9b", "\x9d"):
        assert bad not in text, (bad, text[:500])


def request() -> LLMRequest:
    return LLMRequest(system="sys", messages=[{"role": "user", "content": "write add"}], max_tokens=64, agent="a")


def test_a_dripping_models_list_ends_at_its_deadline(hostile):
    hostile.modes["/v1/models"] = "drip"
    started = time.monotonic()
    with pytest.raises(LLMError) as info:
        server_models(hostile.url + "/v1", timeout=1.0)
    assert time.monotonic() - started < BOUND < DRIP_FOR
    assert "no whole answer within 1 s" in str(info.value)


@pytest.mark.parametrize(
    ("mode", "said"), [("deep", "its JSON nests 100000 deep"), ("huge", "(at most 4194304 is read)")]
)
def test_a_deep_or_huge_models_list_is_one_line(hostile, mode, said):
    hostile.modes["/v1/models"] = mode
    with pytest.raises(LLMError) as info:
        server_models(hostile.url + "/v1")
    assert said in str(info.value) and "\n" not in str(info.value)


def test_model_ids_are_shown_terminal_safe(hostile):
    hostile.modes["/v1/models"] = "escapes"
    names = [k.name for k in server_models(hostile.url + "/v1")]
    assert names[1] == "openai/plain"
    assert_safe(names[0])
    out = subprocess.run(
        [sys.executable, "-m", "qflow_tui.cli", "models", "--base-url", hostile.url + "/v1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "openai/plain" in out.stdout and "shown cleaned" in out.stdout
    assert_safe(out.stdout + out.stderr)


def test_qflow_models_on_a_dripping_server_fails_in_one_line(hostile):
    hostile.modes["/v1/models"] = "drip"
    started = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-m", "qflow_tui.cli", "models", "--base-url", hostile.url + "/v1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert time.monotonic() - started < BOUND
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "no whole answer within 3 s" in out.stderr


async def test_dripping_side_endpoints_cannot_hold_a_call_past_its_limit(hostile):
    for path in SIDE:
        hostile.modes[path] = "drip"
    hostile.modes["/v1/chat/completions"] = "drip"
    client = OpenAIClient("m", base_url=hostile.url + "/v1", env={})
    try:
        started = time.monotonic()
        with pytest.raises(LLMError) as info:
            await complete_within_limits(client, request(), lambda _: None, CallLimits(time_limit=2.0))
        assert time.monotonic() - started < BOUND
        assert info.value.stop_reason == "timeout" and info.value.counted is not None
        # Counting a cut call asks no server that gave up once, and no longer than its deadline.
        started = time.monotonic()
        counted = await count_cut(client, request(), "some text")
        assert time.monotonic() - started < BOUND and counted[2] is False
        # A second call does not wait for the side endpoints again: they gave up.
        started = time.monotonic()
        with pytest.raises(LLMError):
            await complete_within_limits(client, request(), lambda _: None, CallLimits(time_limit=2.0))
        assert time.monotonic() - started < BOUND
    finally:
        await client.aclose()


async def test_deep_huge_and_deep_side_answers_leave_the_estimate(hostile):
    hostile.modes["/v1/models"] = "deep"
    hostile.modes["/props"] = "huge"
    hostile.modes["/apply-template"] = "deep"
    client = OpenAIClient("m", base_url=hostile.url + "/v1", env={})
    try:
        answer = await client.complete(request(), lambda _: None)
        assert answer.text.startswith("def add") and client.context_window is None
    finally:
        await client.aclose()


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("deep", "its JSON nests too deep to read"),
        ("huge", "a line of the stream passed 1024 KB, more than any model answer"),
        ("drip", "no complete answer within 2 s"),
        ("error-escapes", "refused"),
    ],
)
async def test_a_hostile_chat_stream_is_one_line(hostile, mode, said):
    hostile.modes["/v1/chat/completions"] = mode
    client = OpenAIClient("m", base_url=hostile.url + "/v1", env={})
    try:
        started = time.monotonic()
        with pytest.raises(LLMError) as info:
            # A limit the drip meets; the others end on their own long before theirs.
            limit = 2.0 if mode == "drip" else 40.0
            await complete_within_limits(client, request(), lambda _: None, CallLimits(time_limit=limit))
        assert time.monotonic() - started < BOUND
        message = str(info.value)
        assert said in message, message
        assert "\n" not in message and "RecursionError" not in message
        assert_safe(message)
    finally:
        await client.aclose()


@pytest.mark.parametrize("mode", ["gzip-bomb", "huge"])
async def test_a_streamed_answer_stops_at_its_cap_decoded(hostile, mode):
    """The cap counts what the answer decodes to: a gzip bomb (a few hundred
    KB that inflate to about 120 MB) stops at it like a plain flood."""
    import httpx2

    from qflow_tui.core.llm.bounded import AnswerTooLarge, CappedTransport

    hostile.modes["/v1/chat/completions"] = mode
    cap = 1024 * 1024
    transport = CappedTransport(httpx2.AsyncHTTPTransport(), cap=cap, line_cap=10 * cap)
    async with httpx2.AsyncClient(transport=transport, timeout=120) as http:
        got = 0
        with pytest.raises(AnswerTooLarge, match="the answer passed 1 MB"):
            async with http.stream("POST", hostile.url + "/v1/chat/completions", json={}) as response:
                async for chunk in response.aiter_bytes():
                    got += len(chunk)
        assert got <= cap


def test_qflow_solve_with_dripping_side_endpoints_ends_at_its_call_timeout(hostile, tmp_path):
    """The red team's case: /models, /props and the template drip, and so does
    the model; `--call-timeout 5` once ran past 150 s."""
    for path in SIDE:
        hostile.modes[path] = "drip"
    hostile.modes["/v1/chat/completions"] = "drip"
    started = time.monotonic()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "qflow_tui.cli",
            "solve",
            "--problem",
            "tests/data/mbpp11/problem.txt",
            "--tests",
            "tests/data/mbpp11/tests.py",
            "--model",
            "openai/m",
            "--base-url",
            hostile.url + "/v1",
            "--workflow",
            "zeroshot",
            "--call-timeout",
            "5",
            "--retries",
            "2",
            "--session-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, "OPENAI_API_KEY": ""},
    )
    assert time.monotonic() - started < 2 * BOUND, out.stderr[-2000:]
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert_safe(out.stdout + out.stderr)


def test_escapes_in_a_chat_answer_never_reach_qflow_solve_s_output(hostile, tmp_path):
    hostile.modes["/v1/chat/completions"] = "escapes"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "qflow_tui.cli",
            "solve",
            "--problem",
            "tests/data/mbpp11/problem.txt",
            "--tests",
            "tests/data/mbpp11/tests.py",
            "--model",
            "openai/m",
            "--base-url",
            hostile.url + "/v1",
            "--workflow",
            "zeroshot",
            "--session-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert "Traceback" not in out.stderr, out.stderr
    assert_safe(out.stdout + out.stderr)
    session = next(tmp_path.glob("*.jsonl"))
    assert any("pwned" in json.dumps(json.loads(line)) for line in session.read_text(encoding="utf-8").splitlines())


def test_the_loop_is_free_while_a_sync_ask_waits(hostile):
    """ask_json_sync from inside a running loop runs on a thread of its own."""
    from qflow_tui.core.llm.bounded import ask_json_sync

    async def inside() -> tuple[int, object]:
        return ask_json_sync(hostile.url + "/v1/models", deadline=5, max_bytes=1 << 20)

    status, data = asyncio.run(inside())
    assert status == 200 and isinstance(data, dict)
