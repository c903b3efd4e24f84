"""Property-based fuzzing (hypothesis, fixed seeds, bounded) of what qflow
reads from a model server: nested, huge and escape-laden JSON thrown at the
``/models`` reader and at the streamed chat answer (through a real HTTP server
on 127.0.0.1 and the provider SDK). Whatever comes, the answer is a model list
or a completion whose text is valid, or one line (an :class:`LLMError`) that
is terminal-safe; never another exception, a hang or a raw escape."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from qflow_tui.core.llm import LLMError, LLMRequest
from qflow_tui.core.llm.bounded import ServerAnswerError, loads
from qflow_tui.core.llm.catalog import models_from
from qflow_tui.core.llm.limits import CallLimits, complete_within_limits
from qflow_tui.core.llm.openai_client import OpenAIClient
from tests.llm.hostile_server import HostileServer

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
UNSAFE = ("\x1b", "\x07", "\x9b", "\x9d", "\u202e", "\u2066")

#: Text as a hostile server writes it: escapes, bidi controls, lone surrogates, quotes.
hostile_text = st.one_of(
    st.text(max_size=40),
    st.text(
        alphabet=st.sampled_from(
            ["a", "Z", "0", " ", "{", "]", '"', "\\", "\n", "\x1b", "\x07", "\x9b", "\u202e", "\ud800"]
        ),
        max_size=60,
    ),
    st.sampled_from(["\x1b]0;pwned\x07", "\x1b]52;c;ZWNobyBoaQ==\x07", "\x1b[2J", "\u202eevil", "\x1b[31mred"]),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    hostile_text,
)
keys = st.one_of(st.sampled_from(["id", "data", "meta", "n_ctx", "max_model_len", "object", "choices"]), hostile_text)
json_values = st.recursive(
    scalars, lambda kids: st.lists(kids, max_size=5) | st.dictionaries(keys, kids, max_size=5), max_leaves=25
)
#: A models entry as a server might send it, usually close to the real shape.
entries = st.one_of(
    st.fixed_dictionaries(
        {"id": hostile_text},
        optional={"meta": st.fixed_dictionaries({}, optional={"n_ctx": scalars}), "max_model_len": scalars},
    ),
    json_values,
)


def _encoded(value: Any, depth: int) -> bytes:
    """``value`` as JSON, wrapped ``depth`` lists deep."""
    return b"[" * depth + json.dumps(value).encode() + b"]" * depth


def assert_one_safe_line(message: str) -> None:
    assert "\n" not in message and message.strip()
    for bad in UNSAFE:
        assert bad not in message, (bad, message)


@seed(42)
@FUZZ
@given(
    body=st.one_of(st.fixed_dictionaries({"data": st.lists(entries, max_size=8)}), json_values),
    depth=st.one_of(st.just(0), st.integers(min_value=1, max_value=200_000)),
    huge=st.integers(min_value=0, max_value=3),
)
def test_the_models_reader_takes_anything(body, depth, huge):
    if huge and isinstance(body, dict) and isinstance(body.get("data"), list):
        body["data"].append({"id": "x" * (huge * 1_000_000)})
    raw = _encoded(body, depth)
    try:
        value = loads(raw)
        known = models_from(value, "http://127.0.0.1:1/v1")
    except ServerAnswerError as exc:
        assert depth > 60 and "nests" in str(exc)
        return
    except LLMError as exc:
        assert_one_safe_line(str(exc))
        return
    for k in known:
        assert k.name.startswith("openai/") and len(k.name) <= 220
        for bad in UNSAFE:
            assert bad not in k.name + k.source
        k.name.encode("utf-8")  # valid text
        assert k.context_window is None or (isinstance(k.context_window, int) and k.context_window > 0)


# -- the streamed chat answer, through the SDK ----------------------------------------------------


def _chunk(delta: Any, finish: Any = None) -> Any:
    return {
        "id": "c",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


events = st.one_of(
    hostile_text.map(lambda t: _chunk({"content": t})),  # a piece of the answer
    st.just(_chunk({}, "stop")),
    st.just({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 5}}),
    json_values,  # anything at all where a chunk should be
    json_values.map(lambda v: _chunk({"content": v})),
    json_values.map(lambda v: _chunk({"content": "x"}, v)),
)
lines = st.one_of(
    events.map(lambda e: b"data: " + json.dumps(e).encode() + b"\n\n"),
    st.integers(min_value=1, max_value=100_000).map(lambda d: b"data: " + b"[" * d + b"]" * d + b"\n\n"),
    st.sampled_from([b"data: [DONE]\n\n", b": keep-alive\n\n", b"data: {nope\n\n", b"event: error\ndata: {}\n\n"]),
    st.binary(max_size=40),
    st.integers(min_value=1, max_value=3).map(lambda n: b'data: {"a": "' + b"y" * (n * 700_000) + b'"}\n\n'),
)


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    hostile = HostileServer().start()
    hostile.modes["/v1/chat/completions"] = "raw"
    yield hostile
    hostile.stop()


def _ask(url: str) -> Any:
    async def go() -> Any:
        client = OpenAIClient("m", base_url=url + "/v1", env={}, context_window=1_000_000)
        request = LLMRequest(system="s", messages=[{"role": "user", "content": "u"}], max_tokens=16, agent="a")
        try:
            return await complete_within_limits(client, request, lambda _: None, CallLimits(time_limit=60))
        finally:
            await client.aclose()

    return asyncio.run(go())


@seed(7)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.lists(lines, min_size=0, max_size=8))
def test_the_streamed_answer_takes_anything(server, body):
    server.raw["/v1/chat/completions"] = b"".join(body)
    try:
        answer = _ask(server.url)
    except LLMError as exc:
        assert_one_safe_line(str(exc))
        return
    answer.text.encode("utf-8")  # valid text (it is model output: shown cleaned where shown)
    assert answer.stop_reason in ("finished", "max_tokens") or isinstance(answer.stop_reason, str)


def _sse(kind: str, data: Any) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()


#: Anthropic's events, each usually of its real shape, with any field able to be anything.
anthropic_events = st.one_of(
    st.fixed_dictionaries(
        {"type": st.just("message_start")},
        optional={
            "message": st.one_of(
                st.fixed_dictionaries(
                    {
                        "id": st.just("m"),
                        "type": st.just("message"),
                        "role": st.just("assistant"),
                        "content": st.just([]),
                        "model": hostile_text,
                        "usage": st.one_of(
                            st.fixed_dictionaries({"input_tokens": scalars, "output_tokens": scalars}), json_values
                        ),
                    }
                ),
                json_values,
            )
        },
    ).map(lambda d: _sse("message_start", d)),
    st.just(
        _sse(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        )
    ),
    hostile_text.map(
        lambda t: _sse(
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}},
        )
    ),
    json_values.map(lambda v: _sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": v})),
    st.fixed_dictionaries({"stop_reason": st.one_of(st.just("end_turn"), json_values)}).map(
        lambda d: _sse("message_delta", {"type": "message_delta", "delta": d, "usage": {"output_tokens": 5}})
    ),
    json_values.map(
        lambda v: _sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": v})
    ),
    st.just(_sse("message_stop", {"type": "message_stop"})),
    json_values.map(lambda v: _sse("message_delta", v)),
    st.integers(min_value=1, max_value=100_000).map(lambda d: b"event: ping\ndata: " + b"[" * d + b"]" * d + b"\n\n"),
    st.binary(max_size=40),
)


def _ask_anthropic(url: str) -> Any:
    from qflow_tui.core.llm.anthropic_client import AnthropicClient

    async def go() -> Any:
        client = AnthropicClient("m", base_url=url, env={"ANTHROPIC_API_KEY": "k"})
        request = LLMRequest(system="s", messages=[{"role": "user", "content": "u"}], max_tokens=16, agent="a")
        try:
            return await complete_within_limits(client, request, lambda _: None, CallLimits(time_limit=60))
        finally:
            await client.aclose()

    return asyncio.run(go())


@seed(11)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.lists(anthropic_events, min_size=0, max_size=8))
def test_the_anthropic_stream_takes_anything(server, body):
    server.modes["/v1/messages"] = "raw"
    server.raw["/v1/messages"] = b"".join(body)
    try:
        answer = _ask_anthropic(server.url)
    except LLMError as exc:
        assert_one_safe_line(str(exc))
        return
    answer.text.encode("utf-8")
    assert answer.input_tokens is None or isinstance(answer.input_tokens, int)
    assert answer.output_tokens is None or isinstance(answer.output_tokens, int)
