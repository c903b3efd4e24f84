"""A hostile OpenAI-compatible server on 127.0.0.1 for the tests: each endpoint
answers as the test sets it (``server.modes[path] = mode``).

=============  ==============================================================
``ok``         a well-formed answer (a model list; llama.cpp's props,
               template and tokens; a streamed chat answer with usage)
``drip``       the headers, then one byte every ``DRIP`` seconds for as long
               as ``DRIP_FOR`` seconds (a per-read limit never fires)
``deep``       a body nested ``DEEP`` levels
``huge``       a body of ``HUGE`` bytes (a model list with one enormous id;
               for the chat, one endless line of a streamed chunk)
``escapes``    a model list (or a streamed answer, an error) whose text holds
               ``HOSTILE``: OSC 0, OSC 52, CSI 2J, U+202E
``gzip-bomb``  a streamed chat answer gzip-compressed, decoding to far more
               than any answer
``raw``        ``server.raw[path]`` as the body, as it is (the fuzz tests)
=============  ==============================================================
"""

from __future__ import annotations

import gzip
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DRIP = 0.5
DRIP_FOR = 120.0
DEEP = 100_000
HUGE = 6 * 1024 * 1024
HOSTILE = "\x1b]0;pwned\x07\x1b]52;c;ZWNobyBoaQ==\x07\x1b[2J\u202e"


class HostileServer:
    def __init__(self) -> None:
        self.modes: dict[str, str] = {}
        self.raw: dict[str, bytes] = {}
        self.seen: list[str] = []
        self.stopping = threading.Event()
        server = self

        class Handler(_Handler):
            hostile = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> HostileServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()


def _chunk(delta: dict[str, Any], finish: str | None = None, usage: dict[str, int] | None = None) -> bytes:
    data: dict[str, Any] = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [] if usage else [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    if usage:
        data["usage"] = usage
    return f"data: {json.dumps(data)}\n\n".encode()


def chat_stream(text: str = "def add(a, b):\n    return a + b\n") -> bytes:
    return (
        _chunk({"role": "assistant", "content": ""})
        + _chunk({"content": text})
        + _chunk({}, finish="stop")
        + _chunk({}, usage={"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8})
        + b"data: [DONE]\n\n"
    )


_BOMB: list[bytes] = []
_BOMB_LOCK = threading.Lock()


def gzip_bomb() -> bytes:
    """A streamed chat answer, gzip-compressed, decoding to about 120 MB (made once)."""
    with _BOMB_LOCK:
        if not _BOMB:
            line = _chunk({"content": "a" * 60000})
            _BOMB.append(gzip.compress(b"".join([line] * 2000), compresslevel=9))
        return _BOMB[0]


def _ok(path: str) -> tuple[str, bytes]:
    if path.endswith("/models"):
        return "application/json", json.dumps(
            {"object": "list", "data": [{"id": "m", "meta": {"n_ctx": 4096}}]}
        ).encode()
    if path == "/props":
        return "application/json", json.dumps({"default_generation_settings": {"n_ctx": 4096}}).encode()
    if path == "/apply-template":
        return "application/json", json.dumps({"prompt": "a templated prompt"}).encode()
    if path == "/tokenize":
        return "application/json", json.dumps({"tokens": [1, 2, 3]}).encode()
    return "text/event-stream", chat_stream()


class _Handler(BaseHTTPRequestHandler):
    hostile: HostileServer
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        self._answer()

    def _head(self, kind: str, length: int | None = None, extra: dict[str, str] | None = None) -> None:
        self.send_response(200)
        self.send_header("content-type", kind)
        if length is not None:
            self.send_header("content-length", str(length))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.flush()

    def _answer(self) -> None:
        server = self.hostile
        path = self.path
        server.seen.append(path)
        chat = path.endswith("/chat/completions")
        mode = server.modes.get(path, "ok")
        try:
            if mode == "ok":
                kind, body = _ok(path)
                self._head(kind, len(body))
                self.wfile.write(body)
            elif mode == "raw":
                body = server.raw[path]
                self._head("text/event-stream" if chat else "application/json", len(body))
                self.wfile.write(body)
            elif mode == "drip":
                self._head("text/event-stream" if chat else "application/json")
                start = time.monotonic()
                prefix = b'data: {"id": "c", "choices": [{"index": 0, "delta": {"content": "' if chat else b'{"data": ['
                for byte in prefix:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    if server.stopping.wait(DRIP) or time.monotonic() - start > DRIP_FOR:
                        return
                while not server.stopping.wait(DRIP) and time.monotonic() - start < DRIP_FOR:
                    self.wfile.write(b" ")
                    self.wfile.flush()
            elif mode == "deep":
                body = b"[" * DEEP + b"]" * DEEP
                if chat:
                    body = b"data: " + body + b"\n\n"
                self._head("text/event-stream" if chat else "application/json", len(body))
                self.wfile.write(body)
            elif mode == "huge":
                if chat:
                    self._head("text/event-stream")
                    self.wfile.write(b'data: {"id": "')
                    for _ in range(HUGE // 65536 * 20):  # one endless line, far past any answer
                        if server.stopping.is_set():
                            return
                        self.wfile.write(b"x" * 65536)
                    return
                body = json.dumps({"data": [{"id": "x" * HUGE}]}).encode()
                self._head("application/json", len(body))
                self.wfile.write(body)
            elif mode == "escapes":
                if chat:
                    body = chat_stream(f"def add(a, b):{HOSTILE}\n    return a + b\n")
                    self._head("text/event-stream", len(body))
                else:
                    body = json.dumps({"data": [{"id": f"model{HOSTILE}"}, {"id": "plain"}]}).encode()
                    self._head("application/json", len(body))
                self.wfile.write(body)
            elif mode == "error-escapes":
                body = json.dumps({"error": {"message": f"refused {HOSTILE} today", "type": "x"}}).encode()
                self.send_response(400)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            elif mode == "gzip-bomb":
                body = gzip_bomb()
                self._head("text/event-stream", len(body), {"content-encoding": "gzip"})
                self.wfile.write(body)
        except OSError:  # the client went away
            pass
