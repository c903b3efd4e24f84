"""Bounded answers from model servers: every request qflow makes has a deadline
for the whole answer (not per read: a server that drips one byte every half
second cannot hold a call open), a bound on the answer's size and on its JSON
nesting (a body nested 100,000 deep is refused in one line, never a
RecursionError), and whatever it says is turned into text only through
:mod:`qflow_tui.core.safe_text` by its readers.

- :func:`ask_json` / :func:`ask_json_sync`: the server's own endpoints beside
  the model calls (``/models``, llama.cpp's ``/props``, ``/apply-template``,
  ``/tokenize``).
- :class:`CappedTransport`: under the provider SDKs' streamed model calls, a cap
  on the bytes one answer may take (the call's whole-answer deadline is its
  time limit, :mod:`qflow_tui.core.llm.limits`). qflow asks for answers
  uncompressed; a server that compresses anyway is decoded here, within the
  cap, so that a compressed bomb cannot grow past it either.
"""

from __future__ import annotations

import asyncio
import json
import threading
import zlib
from collections.abc import AsyncIterator, Mapping

import httpx2

from ..jsonbound import depth_problem
from ..jsontypes import JSONValue

#: Deepest JSON nesting a server's answer may have (a models list is 3 deep).
MAX_DEPTH = 64
#: The most a streamed model answer may take on the wire, decoded.
MAX_STREAM_BYTES = 64 * 1024 * 1024
#: The longest line of an event stream: one event carries a few tokens; an
#: endless line would only grow the SDK's buffer (and its parsing) until the
#: call's time limit.
MAX_EVENT_BYTES = 1024 * 1024


class ServerAnswerError(Exception):
    """A server's answer qflow will not read: too slow, too large, too deep or
    not JSON. The message is one line saying which (the caller names the
    server)."""


def loads(raw: bytes, max_depth: int = MAX_DEPTH) -> JSONValue:
    """``json.loads`` of a server's answer within ``max_depth``; raises
    :class:`ServerAnswerError` (one line) for one that is too deep or not JSON."""
    problem = depth_problem(raw, max_depth)
    if problem:
        raise ServerAnswerError(problem)
    try:
        value: JSONValue = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise ServerAnswerError(f"its answer is not JSON ({type(exc).__name__})") from None
    return value


async def ask_json(
    http: httpx2.AsyncClient,
    method: str,
    url: str,
    *,
    body: object = None,
    deadline: float,
    max_bytes: int,
    max_depth: int = MAX_DEPTH,
) -> tuple[int, JSONValue]:
    """(status, JSON) of one request, the whole answer within ``deadline``
    seconds and ``max_bytes`` bytes (decoded). A non-2xx answer's body is not
    read (None). Raises :class:`ServerAnswerError` (one line) when the answer is
    late, large, deep or not JSON, and ``httpx2.HTTPError`` when there is none."""
    try:
        async with asyncio.timeout(deadline):
            async with http.stream(method, url, json=body, timeout=deadline) as response:
                if not 200 <= response.status_code < 300:
                    return response.status_code, None
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > max_bytes:
                    raise ServerAnswerError(f"its answer is {int(declared)} bytes (at most {max_bytes} is read)")
                data = bytearray()
                async for chunk in response.aiter_bytes():
                    data += chunk
                    if len(data) > max_bytes:
                        raise ServerAnswerError(f"its answer passed {max_bytes} bytes (at most that is read)")
                status = response.status_code
    except TimeoutError:
        raise ServerAnswerError(f"no whole answer within {deadline:g} s") from None
    return status, loads(bytes(data), max_depth)


def ask_json_sync(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    deadline: float,
    max_bytes: int,
    max_depth: int = MAX_DEPTH,
) -> tuple[int, JSONValue]:
    """:func:`ask_json` (a GET) for code that is not async (``qflow models``,
    the compose screen's thread): on a loop of its own, in a thread of its own
    when the caller's thread already runs one."""

    async def ask() -> tuple[int, JSONValue]:
        async with httpx2.AsyncClient(headers=dict(headers or {}), follow_redirects=True) as http:
            return await ask_json(http, "GET", url, deadline=deadline, max_bytes=max_bytes, max_depth=max_depth)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(ask())
    answers: list[tuple[int, JSONValue]] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            answers.append(asyncio.run(ask()))
        except BaseException as exc:  # handed to the caller's thread
            errors.append(exc)

    thread = threading.Thread(target=run, name="qflow ask", daemon=True)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return answers[0]


# -- the streamed model calls ---------------------------------------------------------------


class AnswerTooLarge(httpx2.ReadError):
    """A streamed answer passed :data:`MAX_STREAM_BYTES`: the SDK sees a broken
    connection (qflow's message says why)."""


class _CappedStream(httpx2.AsyncByteStream):
    def __init__(
        self, inner: httpx2.AsyncByteStream, cap: int, line_cap: int | None, encoding: str, request: httpx2.Request
    ) -> None:
        self.inner = inner
        self.cap = cap
        self.line_cap = line_cap
        self.request = request
        # wbits 47: zlib or gzip framing, whichever the server sent.
        self.decoder = zlib.decompressobj(47 if encoding == "gzip" else 15) if encoding in ("gzip", "deflate") else None

    def _too_large(self, what: str) -> AnswerTooLarge:
        return AnswerTooLarge(f"{what}, more than any model answer", request=self.request)

    async def _decoded(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            if self.decoder is None:
                yield chunk
                continue
            try:
                # Never more than the cap at once, however much the chunk inflates to.
                piece = self.decoder.decompress(chunk, self.cap + 1)
                while True:
                    yield piece
                    if not self.decoder.unconsumed_tail:
                        break
                    piece = self.decoder.decompress(self.decoder.unconsumed_tail, self.cap + 1)
            except zlib.error as exc:
                raise httpx2.DecodingError(f"a compressed answer that does not decode ({exc})") from None

    async def __aiter__(self) -> AsyncIterator[bytes]:
        size = 0
        line = 0  # bytes since the last line break
        async for chunk in self._decoded():
            size += len(chunk)
            if size > self.cap:
                raise self._too_large(f"the answer passed {self.cap // (1024 * 1024)} MB")
            if self.line_cap is not None:
                cut = chunk.rfind(b"\n")
                line = len(chunk) - cut - 1 if cut >= 0 else line + len(chunk)
                if line > self.line_cap:
                    raise self._too_large(f"a line of the stream passed {self.line_cap // 1024} KB")
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


class CappedTransport(httpx2.AsyncBaseTransport):
    """A transport whose answers stop at ``cap`` bytes, decoded (see the module docstring)."""

    def __init__(
        self, inner: httpx2.AsyncBaseTransport, cap: int = MAX_STREAM_BYTES, line_cap: int = MAX_EVENT_BYTES
    ) -> None:
        self.inner = inner
        self.cap = cap
        self.line_cap = line_cap

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        request.headers["accept-encoding"] = "identity"
        response = await self.inner.handle_async_request(request)
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("identity", "gzip", "deflate", ""):
            await response.aclose()
            raise httpx2.DecodingError(f"an answer in {encoding[:40]!r}, which qflow does not read", request=request)
        headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() != "content-encoding"]
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        return httpx2.Response(
            status_code=response.status_code,
            headers=headers,
            stream=_CappedStream(
                response.stream, self.cap, self.line_cap if _is_stream(response) else None, encoding, request
            ),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


def _is_stream(response: httpx2.Response) -> bool:
    return response.headers.get("content-type", "").split(";")[0].strip().lower() == "text/event-stream"


def capped_http_client(
    sdk_client: type[httpx2.AsyncClient], *, limits: httpx2.Limits | None = None
) -> httpx2.AsyncClient:
    """The SDK's own default HTTP client (``openai.DefaultAsyncHttpxClient``)
    over a :class:`CappedTransport`, with the SDK's connection limits."""
    inner = httpx2.AsyncHTTPTransport(limits=limits) if limits is not None else httpx2.AsyncHTTPTransport()
    return sdk_client(transport=CappedTransport(inner))
