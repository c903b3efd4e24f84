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

from .base import LLMError, estimate_tokens
from .catalog import n_ctx_of

#: Seconds each question to the server may take; a server that does not answer
#: them simply has no known window.
ASK_TIMEOUT = 5.0


def api_root(base_url: str) -> str:
    """``http://h:8080/v1`` -> ``http://h:8080`` (llama.cpp's own endpoints live there)."""
    return base_url[: -len("/v1")] if base_url.endswith("/v1") else base_url


async def server_window(http: httpx2.AsyncClient, base_url: str, model: str) -> int | None:
    """The context window the server at ``base_url`` reports for ``model``, or None."""
    try:
        r = await http.get(f"{base_url}/models", timeout=ASK_TIMEOUT)
        data = r.json().get("data") if r.status_code == 200 else None
    except (httpx2.HTTPError, ValueError, AttributeError):
        data = None
    if isinstance(data, list) and data:
        named = [e for e in data if isinstance(e, dict) and e.get("id") == model]
        for entry in named or (data if len(data) == 1 else []):
            window = n_ctx_of(entry)
            if window:
                return window
    try:
        r = await http.get(f"{api_root(base_url)}/props", timeout=ASK_TIMEOUT)
        settings = r.json().get("default_generation_settings") if r.status_code == 200 else None
    except (httpx2.HTTPError, ValueError, AttributeError):
        return None
    n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
    return n_ctx if isinstance(n_ctx, int) and n_ctx > 0 else None


async def prompt_tokens(
    http: httpx2.AsyncClient | None, base_url: str | None, messages: list[dict[str, str]]
) -> tuple[int, bool]:
    """(tokens, exact) of a chat prompt: exact from a llama.cpp server's template
    and tokenizer, else estimated."""
    if http is not None and base_url is not None:
        root = api_root(base_url)
        try:
            r = await http.post(f"{root}/apply-template", json={"messages": messages}, timeout=ASK_TIMEOUT)
            prompt = r.json().get("prompt") if r.status_code == 200 else None
            if isinstance(prompt, str):
                r = await http.post(
                    f"{root}/tokenize", json={"content": prompt, "add_special": True}, timeout=ASK_TIMEOUT
                )
                tokens = r.json().get("tokens") if r.status_code == 200 else None
                if isinstance(tokens, list):
                    return len(tokens), True
        except (httpx2.HTTPError, ValueError, AttributeError):
            pass
    return sum(estimate_tokens(m.get("content", "")) for m in messages), False


async def text_tokens(http: httpx2.AsyncClient, base_url: str, text: str) -> int | None:
    """Tokens of ``text`` by a llama.cpp server's tokenizer; None where it has none."""
    try:
        r = await http.post(
            f"{api_root(base_url)}/tokenize", json={"content": text, "add_special": False}, timeout=ASK_TIMEOUT
        )
        tokens = r.json().get("tokens") if r.status_code == 200 else None
    except (httpx2.HTTPError, ValueError, AttributeError):
        return None
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
