"""A tiny HTTP server on 127.0.0.1 that speaks just enough of the Anthropic
Messages and OpenAI chat-completions streaming formats for the client tests.

The SDKs use httpx2, which respx cannot intercept, so the tests talk real HTTP
to this server through ``base_url``. What it does is chosen by the requested
model name:

=================  ==========================================================
``ok`` (default)   stream ``PIECES`` with usage (input 11, output 7)
``no-usage``       OpenAI only: the same stream without the usage chunk
``absurd-usage``   ``ok`` whose usage says ``ABSURD`` prompt (input) tokens
``status-NNN``     answer HTTP NNN with a provider-shaped error body
``echo-key-400``   400 whose message repeats the key the client sent
``malformed``      a 200 event stream whose data is not JSON
``not-sse``        a 200 plain JSON body where a stream was asked for
``truncated``      two pieces, then the connection closes (no stop event)
``midstream``      one piece, then a streamed error event (overloaded)
``hang``           one piece, then keep-alives until the client goes away
``slow-headers``   wait ``SLOW`` seconds before answering at all
``slow-body``      send the headers, then wait ``SLOW`` seconds
``runaway``        one piece, then ``LOOP`` over and over until the client
                   goes away (a small model at temperature 0 looping)
``context-400``    400 with llama.cpp's "exceeds the available context size"
``flaky-W-N``      the first N requests for this model fail as W says, the
                   rest stream ``ok``. W: a status (``429``, ``500``, ``503``,
                   ``529``) or a stream fault (``truncated``, ``midstream``,
                   ``slow-body``, ``malformed``). A ``-raMS`` suffix on a status
                   sends ``retry-after-ms: MS`` (``-rasS``: ``retry-after: S``)
GET ``/v1/models``  the models with llama.cpp's ``meta.n_ctx`` when ``n_ctx`` is
                   set; ``/apply-template`` and ``/tokenize`` as llama.cpp
                   (one token per whitespace-separated word)
``split-pairs``    ``SPLIT_PIECES``: a surrogate pair cut across two chunks
                   (as a proxy slicing by UTF-16 unit sends it), a lone
                   surrogate, and a pair cut at the very end of the stream
``busy-over-N``    429 (retry-after-ms 20) while more than N requests are in
                   flight, else ``ok`` streamed slowly (``STEP`` per piece)
``thinking``       ``ok`` after a thinking block (Anthropic: a ``thinking``
                   content block at index 0, the text at 1; ``THINKING``
                   of the ``OUTPUT_TOKENS`` were thinking, in the usage's
                   ``output_tokens_details``; OpenAI: ``reasoning_tokens``)
``thinking-cut``   Anthropic: the thinking block, then ``max_tokens`` with no
                   text: every output token was thinking
``cache``          ``ok`` with prompt caching on the system text (one token a
                   word): Anthropic caches it only when the request carries a
                   ``cache_control`` marker and reports a write for a prefix
                   it has not seen, a read for one it has (``input_tokens``
                   stays the uncached ``INPUT_TOKENS``); OpenAI caches by
                   itself and reports reads as ``cached_tokens`` inside
                   ``prompt_tokens``. A cut stream (``runaway``) reports no usage
=================  ==========================================================
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PIECES = ["def add", "(a, b):", "\n    return", " a + b", "\n"]
INPUT_TOKENS = 11
OUTPUT_TOKENS = 7
THINKING = 4
THOUGHT = "The caller wants a sum; a + b it is."
SLOW = 1.5
LOOP = "    return a + b  # again\n"
STEP = 0.04
#: ``split-pairs``: U+1F600 cut in two, a lone high surrogate mid-text, and a
#: high surrogate whose low half never comes (the stream ends).
SPLIT_PIECES = ["smile ", "\ud83d", "\ude00 then a lone ", "\ud800", " one", "\ud83d"]
#: What a client must make of them: the pair joined, each lone half marked.
SPLIT_TEXT = "smile \U0001f600 then a lone \ufffd one\ufffd"
#: The prompt tokens ``absurd-usage`` reports: more than any float holds.
ABSURD = 10**400
#: The most pieces a ``runaway`` stream sends before giving up on the client.
LOOP_LIMIT = 20000

# Fake keys for the tests; "SECRET" makes a leak easy to spot.
ANTHROPIC_KEY = "sk-ant-test-SECRET-0123456789"
OPENAI_KEY = "sk-test-SECRET-9876543210"
KEYS = {"ANTHROPIC_API_KEY": ANTHROPIC_KEY, "OPENAI_API_KEY": OPENAI_KEY}

_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


class StubServer:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.aux: list[str] = []
        """Paths of the questions that are not model calls (models, props, tokenize)."""
        self.prefixes: set[str] = set()
        """The system texts the ``cache`` model has cached."""
        self.n_ctx: int | None = None
        """The window the server reports (llama.cpp's n_ctx); None: says nothing."""
        self.more_models = 0
        """Models ``/v1/models`` lists after ``ok`` (``m0``, ``m1``, ...)."""
        self.in_flight = 0
        self.peak = 0
        """The most requests that were ever being answered at once."""
        self.disconnected = threading.Event()  # set when a ``hang`` client goes away
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        stub = self

        class Handler(_Handler):
            server_stub = stub

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def count(self, model: str) -> int:
        with self._lock:
            return sum(1 for r in self.requests if r["body"].get("model") == model)

    def start(self) -> StubServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def _record(self, entry: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(entry)


class _Handler(BaseHTTPRequestHandler):
    server_stub: StubServer
    protocol_version = "HTTP/1.0"  # one request per connection; bodies end at close

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    # -- plumbing ----------------------------------------------------------------

    def do_GET(self) -> None:
        stub = self.server_stub
        with stub._lock:
            stub.aux.append(self.path)
        if self.path == "/v1/models":
            entry: dict[str, Any] = {"id": "ok", "object": "model", "owned_by": "llamacpp"}
            if stub.n_ctx is not None:
                entry["meta"] = {"n_ctx": stub.n_ctx, "n_ctx_train": 8192}
            more = [{"id": f"m{i}", "object": "model"} for i in range(stub.more_models)]
            self._json(200, {"object": "list", "data": [entry, *more]})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        stub = self.server_stub
        if self.path in ("/apply-template", "/tokenize"):
            with stub._lock:
                stub.aux.append(self.path)
            if stub.n_ctx is None:
                self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                return
        else:
            stub._record({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
        if self.path == "/apply-template" and stub.n_ctx is not None:
            text = "".join(f"<|{m['role']}|> {m['content']} <|end|> " for m in body.get("messages", []))
            self._json(200, {"prompt": text})
            return
        if self.path == "/tokenize" and stub.n_ctx is not None:
            self._json(200, {"tokens": list(range(len(str(body.get("content", "")).split())))})
            return
        if self.path.endswith("/v1/messages"):
            kind = "anthropic"
        elif self.path.endswith("/chat/completions"):
            kind = "openai"
        else:
            self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        model = str(body.get("model", "ok"))
        self.body = body
        with stub._lock:
            stub.in_flight += 1
            stub.peak = max(stub.peak, stub.in_flight)
            crowded = stub.in_flight
        try:
            self._answer(kind, model, crowded)
        finally:
            with stub._lock:
                stub.in_flight -= 1

    def _answer(self, kind: str, model: str, crowded: int) -> None:
        if model.startswith("busy-over-"):
            if crowded > int(model.rsplit("-", 1)[1]):
                self._error(kind, 429, "too many requests at once", headers={"retry-after-ms": "20"})
                return
            self._stream(kind, model)
            return
        if model.startswith("flaky-"):
            model = self._flaky(kind, model)
            if not model:
                return
        if model.startswith("status-"):
            self._error(kind, int(model.split("-", 1)[1]), f"stub error for {model}")
        elif model == "echo-key-400":
            key = self.headers.get("x-api-key") or self.headers.get("authorization", "").removeprefix("Bearer ")
            self._error(kind, 400, f"bad request from key {key}: max_tokens too large " + "x" * 500)
        elif model == "context-400":
            self._error(
                kind, 400, "request (5000 tokens) exceeds the available context size (2048 tokens), try increasing it"
            )
        elif model == "slow-headers":
            time.sleep(SLOW)
            self._json(200, {})
        elif model == "not-sse":
            self._json(200, {"hello": "world"})
        else:
            self._stream(kind, model)

    def _flaky(self, kind: str, model: str) -> str:
        """The behaviour for this request of a ``flaky-W-N[-raMS]`` model: W while
        fewer than N requests for it came before, then ``ok`` (returns "" when
        the answer was already sent)."""
        parts = model.removeprefix("flaky-").replace("slow-body", "slow_body").split("-")
        what, times = parts[0].replace("_", "-"), int(parts[1])
        seen = self.server_stub.count(model) - 1  # this request is recorded already
        if seen >= times:
            return "ok"
        if not what.isdigit():
            return what
        headers = {}
        for extra in parts[2:]:
            if extra.startswith("ras"):
                headers["retry-after"] = extra[3:]
            elif extra.startswith("ra"):
                headers["retry-after-ms"] = extra[2:]
        self._error(kind, int(what), f"stub error {what} for {model}", headers=headers or None)
        return ""

    def _cache(self, kind: str) -> tuple[int, int, int]:
        """(tokens read from, written to the cache, system text's tokens) for this request."""
        body = self.body
        if kind == "anthropic":
            system = body.get("system") or ""
            if isinstance(system, list):
                system = "".join(b.get("text", "") for b in system if isinstance(b, dict))
            marked = "cache_control" in body or '"cache_control"' in json.dumps(body.get("system", ""))
        else:
            messages = body.get("messages") or []
            system = messages[0]["content"] if messages and messages[0].get("role") == "system" else ""
            marked = True  # OpenAI caches without being asked
        size = len(str(system).split())
        if not marked or not size:
            return 0, 0, size
        stub = self.server_stub
        with stub._lock:
            seen = system in stub.prefixes
            stub.prefixes.add(system)
        if seen:
            return size, 0, size
        return 0, size if kind == "anthropic" else 0, size

    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, kind: str, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        if headers is None:
            headers = {"retry-after": "0", "retry-after-ms": "5"} if status == 429 or status >= 500 else {}
        if kind == "anthropic":
            etype = _ANTHROPIC_ERROR_TYPES.get(status, "api_error")
            payload: Any = {"type": "error", "error": {"type": etype, "message": message}}
        else:
            payload = {"error": {"message": message, "type": "stub_error", "param": None, "code": str(status)}}
        self._json(status, payload, headers)

    def _send(self, text: str) -> None:
        self.wfile.write(text.encode())
        self.wfile.flush()

    # -- streams -----------------------------------------------------------------

    def _stream(self, kind: str, model: str) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.end_headers()
        self.wfile.flush()
        if model == "slow-body":
            time.sleep(SLOW)
        if model == "malformed":
            self._send(
                "event: message_start\ndata: {this is not json\n\n" if kind == "anthropic" else "data: {nope\n\n"
            )
            return
        cache = self._cache(kind) if model == "cache" else None
        events = _anthropic_events(model, cache) if kind == "anthropic" else _openai_events(model, cache)
        try:
            for event in events:
                self._send(event)
                if model.startswith("busy-over-"):
                    time.sleep(STEP)
            if model == "hang":
                ping = 'event: ping\ndata: {"type": "ping"}\n\n' if kind == "anthropic" else ": keep-alive\n\n"
                while not self.server_stub._stopping.is_set():
                    time.sleep(0.02)
                    self._send(ping)
            if model == "runaway":
                piece = _piece(kind, model, LOOP)
                for _ in range(LOOP_LIMIT):
                    if self.server_stub._stopping.is_set():
                        break
                    self._send(piece)
                    time.sleep(0.0005)
        except OSError:  # the client closed the connection
            if model in ("hang", "runaway"):
                self.server_stub.disconnected.set()


def _sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


def _piece(kind: str, model: str, text: str) -> str:
    if kind == "anthropic":
        return _sse(
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        )
    return _chunk(model, {"content": text})


def _anthropic_events(model: str, cache: tuple[int, int, int] | None = None) -> list[str]:
    pieces = SPLIT_PIECES if model == "split-pairs" else PIECES
    if model in ("truncated",):
        pieces = PIECES[:2]
    elif model == "thinking-cut":
        pieces = []
    elif model in ("midstream", "hang", "runaway"):
        pieces = PIECES[:1]
    out = [
        _sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_stub",
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": model,
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": ABSURD if model == "absurd-usage" else INPUT_TOKENS,
                        "output_tokens": 1,
                        **_anthropic_cache(cache),
                    },
                },
            },
        ),
    ]
    text_at = 0
    if model.startswith("thinking"):  # the Claude 5 models think first, in a block of its own
        text_at = 1
        out += [
            _sse(
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}},
            ),
            _sse(
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": THOUGHT}},
            ),
            _sse(
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "c2ln"}},
            ),
            _sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ]
    out += [
        _sse(
            "content_block_start",
            {"type": "content_block_start", "index": text_at, "content_block": {"type": "text", "text": ""}},
        ),
        _sse("ping", {"type": "ping"}),
    ]
    for piece in pieces:
        out.append(
            _sse(
                "content_block_delta",
                {"type": "content_block_delta", "index": text_at, "delta": {"type": "text_delta", "text": piece}},
            )
        )
    if model == "midstream":
        out.append(_sse("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}))
        return out
    if model in ("truncated", "hang", "runaway"):
        return out
    cut = model == "thinking-cut"
    thought = {"thinking": THINKING, "thinking-cut": OUTPUT_TOKENS}.get(model, 0)
    out += [
        _sse("content_block_stop", {"type": "content_block_stop", "index": text_at}),
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "max_tokens" if cut else "end_turn", "stop_sequence": None},
                "usage": {
                    "output_tokens": OUTPUT_TOKENS,
                    **({"output_tokens_details": {"thinking_tokens": thought}} if thought else {}),
                },
            },
        ),
        _sse("message_stop", {"type": "message_stop"}),
    ]
    return out


def _anthropic_cache(cache: tuple[int, int, int] | None) -> dict[str, int]:
    if cache is None:
        return {}
    return {"cache_read_input_tokens": cache[0], "cache_creation_input_tokens": cache[1]}


def _chunk(model: str, delta: dict[str, Any], finish: str | None = None) -> str:
    data = {
        "id": "chatcmpl-stub",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(data)}\n\n"


def _openai_events(model: str, cache: tuple[int, int, int] | None = None) -> list[str]:
    pieces = SPLIT_PIECES if model == "split-pairs" else PIECES
    if model == "truncated":
        pieces = PIECES[:2]
    elif model in ("midstream", "hang", "runaway"):
        pieces = PIECES[:1]
    out = [_chunk(model, {"role": "assistant", "content": ""})]
    out += [_chunk(model, {"content": p}) for p in pieces]
    if model == "midstream":
        out.append(
            f"data: {json.dumps({'error': {'message': 'The server is overloaded', 'type': 'server_error'}})}\n\n"
        )
        return out
    if model in ("truncated", "hang", "runaway"):
        return out
    out.append(_chunk(model, {}, finish="stop"))
    if model != "no-usage":
        usage: dict[str, Any] = {
            "prompt_tokens": INPUT_TOKENS,
            "completion_tokens": OUTPUT_TOKENS,
            "total_tokens": INPUT_TOKENS + OUTPUT_TOKENS,
        }
        if model == "absurd-usage":
            usage["prompt_tokens"] = usage["total_tokens"] = ABSURD
        if model == "thinking":
            usage["completion_tokens_details"] = {"reasoning_tokens": THINKING}
        if cache is not None:
            # The system text is part of the prompt; what was seen before comes from the cache.
            usage["prompt_tokens"] += cache[2]
            usage["prompt_tokens_details"] = {"cached_tokens": cache[0]}
        out.append(
            "data: "
            + json.dumps(
                {
                    "id": "chatcmpl-stub",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": model,
                    "choices": [],
                    "usage": usage,
                }
            )
            + "\n\n"
        )
    out.append("data: [DONE]\n\n")
    return out
