"""A model's context window: read from a local server where it says, and a
prompt that cannot fit refused before it is sent.

llama.cpp's server reports each slot's window as ``meta.n_ctx`` in
``/v1/models`` (and ``default_generation_settings.n_ctx`` in ``/props``); it
refuses only a prompt larger than the slot, and cuts an answer that runs into
the end of the window. Counting the prompt exactly needs the server's chat
template and tokenizer (``/apply-template`` then ``/tokenize``, both llama.cpp);
elsewhere a word-and-punctuation count stands in, which for code is at most
the real token count, so an estimate never refuses a prompt that would fit.
"""

from __future__ import annotations

import httpx2

from ..jsontypes import JSONValue
from .base import LLMError, estimate_tokens
from .bounded import ServerAnswerError, ask_json
from .catalog import MAX_LIST_BYTES, n_ctx_of

#: Seconds each question to the server may take for its whole answer; a server
#: that does not answer them simply has no known window.
ASK_TIMEOUT = 5.0
#: The largest templated prompt or token list read back (a prompt of a
#: million-token window, JSON-encoded, with room to spare).
MAX_TEXT_BYTES = 32 * 1024 * 1024


def api_root(base_url: str) -> str:
    """``http://h:8080/v1`` -> ``http://h:8080`` (llama.cpp's own endpoints live there)."""
    return base_url[: -len("/v1")] if base_url.endswith("/v1") else base_url


class ServerSide:
    """The server's own endpoints beside the model calls, asked through one
    HTTP client, each answer whole within :data:`ASK_TIMEOUT` and bounded in
    size and depth (:func:`~qflow_tui.core.llm.bounded.ask_json`). Once one
    answers too late, too large or unreadably, none is asked again: a server
    that drips would otherwise cost every model call that long."""

    def __init__(self, http: httpx2.AsyncClient) -> None:
        self.http = http
        self.gave_up = ""
        """Why the server is no longer asked (empty: it is)."""
        self.absent: set[str] = set()
        """Endpoints the server said it does not have (404, 405, 501): not asked
        again, so a server without llama.cpp's ``/apply-template`` costs one
        round trip, not one per model call."""

    async def ask(self, method: str, url: str, body: object = None, max_bytes: int = MAX_LIST_BYTES) -> JSONValue:
        """The JSON of a 200 answer, or None (any other answer, or none)."""
        if self.gave_up or url in self.absent:
            return None
        try:
            status, data = await ask_json(self.http, method, url, body=body, deadline=ASK_TIMEOUT, max_bytes=max_bytes)
        except ServerAnswerError as exc:
            self.gave_up = str(exc)
            return None
        except httpx2.TimeoutException:
            self.gave_up = f"no answer within {ASK_TIMEOUT:g} s"
            return None
        except httpx2.HTTPError:
            return None
        if status in (404, 405, 501):
            self.absent.add(url)
        return data if status == 200 else None


async def server_window(side: ServerSide, base_url: str, model: str) -> int | None:
    """The context window the server at ``base_url`` reports for ``model``, or None."""
    body = await side.ask("GET", f"{base_url}/models")
    data = body.get("data") if isinstance(body, dict) else None
    if isinstance(data, list) and data:
        named = [e for e in data if isinstance(e, dict) and e.get("id") == model]
        for entry in named or (data if len(data) == 1 else []):
            window = n_ctx_of(entry)
            if window:
                return window
    body = await side.ask("GET", f"{api_root(base_url)}/props")
    settings = body.get("default_generation_settings") if isinstance(body, dict) else None
    n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
    return n_ctx if isinstance(n_ctx, int) and not isinstance(n_ctx, bool) and n_ctx > 0 else None


async def prompt_tokens(
    side: ServerSide | None, base_url: str | None, messages: list[dict[str, str]]
) -> tuple[int, bool]:
    """(tokens, exact) of a chat prompt: exact from a llama.cpp server's template
    and tokenizer, else estimated."""
    if side is not None and base_url is not None:
        root = api_root(base_url)
        body = await side.ask("POST", f"{root}/apply-template", {"messages": messages}, MAX_TEXT_BYTES)
        prompt = body.get("prompt") if isinstance(body, dict) else None
        if isinstance(prompt, str):
            body = await side.ask("POST", f"{root}/tokenize", {"content": prompt, "add_special": True}, MAX_TEXT_BYTES)
            tokens = body.get("tokens") if isinstance(body, dict) else None
            if isinstance(tokens, list):
                return len(tokens), True
    return sum(estimate_tokens(m.get("content", "")) for m in messages), False


async def text_tokens(side: ServerSide, base_url: str, text: str) -> int | None:
    """Tokens of ``text`` by a llama.cpp server's tokenizer; None where it has none."""
    body = await side.ask(
        "POST", f"{api_root(base_url)}/tokenize", {"content": text, "add_special": False}, MAX_TEXT_BYTES
    )
    tokens = body.get("tokens") if isinstance(body, dict) else None
    return len(tokens) if isinstance(tokens, list) else None


def too_long(name: str, tokens: int, exact: bool, window: int, source: str) -> LLMError:
    """The refusal of a prompt that cannot fit, naming the window."""
    counted = "" if exact else " (at least, estimated)"
    return LLMError(
        f"{name}: the prompt is {tokens} tokens{counted} but the model's context window is {window} tokens "
        f"({source}), so it was not sent: use a larger window (llama.cpp: -c/n_ctx per slot; Ollama: "
        "OLLAMA_CONTEXT_LENGTH) or a model with a larger context",
        status=None,
    )
