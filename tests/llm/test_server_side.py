"""The server's own endpoints beside the model calls (core/llm/window.py)."""

from __future__ import annotations

import httpx2

from qflow_tui.core.llm.window import ServerSide, prompt_tokens


async def test_an_endpoint_the_server_lacks_is_asked_once_not_per_call():
    # A server without llama.cpp's /apply-template (Ollama, vLLM, a router):
    # every call whose usage is not reported is counted by estimate, and the
    # server is asked for its template once, not once a call.
    asked: list[str] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        asked.append(request.url.path)
        return httpx2.Response(404, json={"error": "not found"})

    async with httpx2.AsyncClient(transport=httpx2.MockTransport(answer)) as http:
        side = ServerSide(http)
        for _ in range(3):
            tokens, exact = await prompt_tokens(side, "http://127.0.0.1:9/v1", [{"role": "user", "content": "a b c"}])
            assert tokens > 0 and not exact
    assert asked == ["/apply-template"]


async def test_an_endpoint_that_failed_for_a_while_is_asked_again():
    # A 503 (a server loading its model) is not "absent": the next call asks.
    asked: list[str] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        asked.append(request.url.path)
        if len(asked) == 1:
            return httpx2.Response(503, json={"error": "loading"})
        return httpx2.Response(
            200, json={"prompt": "a b c"} if request.url.path == "/apply-template" else {"tokens": [1, 2]}
        )

    async with httpx2.AsyncClient(transport=httpx2.MockTransport(answer)) as http:
        side = ServerSide(http)
        first = await prompt_tokens(side, "http://127.0.0.1:9/v1", [{"role": "user", "content": "a b c"}])
        second = await prompt_tokens(side, "http://127.0.0.1:9/v1", [{"role": "user", "content": "a b c"}])
    assert not first[1] and second == (2, True)
