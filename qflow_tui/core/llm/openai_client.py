"""``openai/<model>``: OpenAI, or any OpenAI-compatible server (Ollama, vLLM,
llama.cpp, LM Studio) through ``--base-url`` / OPENAI_BASE_URL, streaming with
usage.

Token counts come from the stream's last chunk (``stream_options.include_usage``).
A local server may leave that chunk out, or report a count no call can have: the
counts are then ``None`` (unknown, not 0), and the run counts the call itself
(``RunContext``: the server's tokenizer, else an estimate, marked as one).

Every failure becomes an :class:`LLMError` whose message says what to do next,
never a traceback and never the API key; each carries ``status`` (HTTP status or
``None``) and ``retryable``.

Retries: the SDK's own retries are off (``max_retries=0`` by default): the
app's retry policy (core/llm/retry.py) retries what is worth retrying where the
user can see it (which call, attempt k of n, how long it waits), honouring the
``retry-after`` these errors carry as ``LLMError.retry_after``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Iterator, Mapping
from typing import Any

import httpx2
import openai

from ..safe_text import StreamText
from ._http import (
    ProviderErrors,
    body_message,
    clean,
    display_url,
    token_count,
)
from .base import Completion, DeltaCallback, LLMError, LLMRequest, estimate_tokens, prompt_text_tokens
from .bounded import capped_http_client
from .provider_keys import LOCAL_DUMMY_KEY, is_official_openai, openai_key, openai_url
from .provider_keys import OPENAI_KEY_VAR as KEY_VAR
from .provider_keys import OPENAI_URL_VAR as BASE_URL_VAR
from .window import ServerSide, prompt_tokens, server_window, text_tokens, too_long

DEFAULT_MAX_RETRIES = 0


class OpenAIClient(ProviderErrors):
    """Streams one chat-completions call per :meth:`complete`."""

    provider = "openai"
    sampling = {"temperature": "sent as each agent asks (the paper's 0; 0.1 for the test designer)"}
    #: Sends ``effort`` as ``reasoning_effort`` when one is set.
    takes_effort = True
    connection_wrapper = openai.APIConnectionError
    base_url_var = BASE_URL_VAR
    key_var = KEY_VAR
    server_kind = "an OpenAI-compatible server"

    def _official(self) -> bool:
        return self.official

    def __init__(
        self,
        model_name: str,
        *,
        base_url: str | None = None,
        env: Mapping[str, str] | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float | None = None,
        context_window: int | None = None,
        cache_prompt: bool = False,
        effort: str = "",
    ) -> None:
        env = os.environ if env is None else env
        self.model = model_name
        self.effort = effort
        """``reasoning_effort`` for a reasoning model; empty: not sent (a model
        that does not reason refuses it)."""
        self.cache_prompt = cache_prompt
        """Ask a llama.cpp server to keep the prompt in its slot (``cache_prompt``),
        so the next call with the same prefix skips evaluating it. OpenAI's own
        API caches long prefixes by itself."""
        self.context_window = context_window
        """Tokens the model can see at once: configured, or read from the server."""
        self._window_source = "configured" if context_window else ""
        self._window_lock: asyncio.Lock | None = None
        self.name = f"{self.provider}/{model_name}"
        # Always hand the SDK an explicit URL so that only ``env`` decides (the SDK
        # would otherwise read OPENAI_BASE_URL from the process environment).
        self.base_url = openai_url(base_url, env)
        self.official = is_official_openai(self.base_url)
        key = openai_key(self.name, self.base_url, env)
        self.key_from_env = bool(key)
        if not key:
            key = LOCAL_DUMMY_KEY
        self.max_retries = max_retries
        self._timeout = timeout
        self._secret = key if self.key_from_env else ""
        kwargs: dict[str, Any] = {}
        if timeout is not None:
            kwargs["timeout"] = httpx2.Timeout(timeout, connect=min(timeout, 5.0))
        # Each answer capped in size (the call's time limit is its whole deadline).
        http = capped_http_client(openai.DefaultAsyncHttpxClient, limits=openai.DEFAULT_CONNECTION_LIMITS)
        self._client = openai.AsyncOpenAI(
            api_key=key, base_url=self.base_url, max_retries=max_retries, http_client=http, **kwargs
        )
        # A compatible server may say its window (llama.cpp does); the official API is not asked.
        self._ask_window = context_window is None and not self.official
        self._key = key
        self._http: httpx2.AsyncClient | None = None
        self._side: ServerSide | None = None

    def _aux(self) -> ServerSide:
        """The server's own endpoints (models, props, template, tokenize), each
        answer bounded (see :class:`~qflow_tui.core.llm.window.ServerSide`)."""
        if self._side is None:
            self._http = httpx2.AsyncClient(headers={"authorization": f"Bearer {self._key}"})
            self._side = ServerSide(self._http)
        return self._side

    async def _check_fits(self, messages: list[dict[str, str]]) -> None:
        """Refuse, before sending, a prompt the model's window cannot hold."""
        if self._ask_window:
            self._window_lock = self._window_lock or asyncio.Lock()
            async with self._window_lock:
                if self._ask_window:
                    self._ask_window = False
                    self.context_window = await server_window(self._aux(), self.base_url, self.model)
                    self._window_source = "as the server reports it" if self.context_window else ""
        if not self.context_window:
            return
        exact_from = self._aux() if (self._http is not None or not self.official) else None
        tokens, exact = await prompt_tokens(exact_from, self.base_url, messages)
        if tokens >= self.context_window:
            raise too_long(self.name, tokens, exact, self.context_window, self._window_source)

    async def count_tokens(self, request: LLMRequest, text: str) -> tuple[int, int, bool]:
        """(prompt, answer, exact) of a call cut before its usage came: by a
        llama.cpp server's own tokenizer where it has one, else estimated."""
        messages = [dict(m) for m in request.messages]
        if request.system:
            messages.insert(0, {"role": "system", "content": request.system})
        if self.official:
            return prompt_text_tokens(request), estimate_tokens(text), False
        prompt, exact = await prompt_tokens(self._aux(), self.base_url, messages)
        answer = await text_tokens(self._aux(), self.base_url, text) if exact else None
        if answer is None:
            return prompt, estimate_tokens(text), False
        return prompt, answer, True

    def __repr__(self) -> str:
        return f"OpenAIClient({self.name!r}, base_url={display_url(self.base_url)!r})"

    async def complete(self, request: LLMRequest, on_delta: DeltaCallback) -> Completion:
        messages = [dict(m) for m in request.messages]
        if request.system:
            messages.insert(0, {"role": "system", "content": request.system})
        await self._check_fits(messages)
        params: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": request.temperature,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.seed is not None:
            params["seed"] = request.seed
        if self.effort:
            params["reasoning_effort"] = self.effort
        if self.cache_prompt:
            params["extra_body"] = {"cache_prompt": True}
        # api.openai.com wants max_completion_tokens (its reasoning models refuse
        # max_tokens); the compatible servers know max_tokens.
        params["max_completion_tokens" if self.official else "max_tokens"] = request.max_tokens
        start = time.perf_counter()
        first: float | None = None
        parts: list[str] = []
        usage = None
        finish: str | None = None
        served_by: str | None = None
        received = 0
        decoded = StreamText()
        # Only the SDK's own work runs under ``_errors``: an exception raised by
        # on_delta is the caller's and propagates untouched. Leaving the ``async
        # with`` for any reason (including cancellation) closes the response, so
        # no connection outlives the call.
        async with contextlib.AsyncExitStack() as stack:
            with self._errors():
                stream = await self._client.chat.completions.create(**params)
            await stack.enter_async_context(stream)
            chunks = stream.__aiter__()
            while True:
                with self._errors():
                    try:
                        chunk = await chunks.__anext__()
                    except StopAsyncIteration:
                        break
                received += 1
                # The SDK builds chunks without checking them: a server's chunk may
                # hold anything where a field should be, so each is read with care.
                model = getattr(chunk, "model", None)
                served_by = served_by or (model if isinstance(model, str) else None)
                if getattr(chunk, "usage", None) is not None:
                    usage = chunk.usage
                choices = getattr(chunk, "choices", None)
                for choice in choices if isinstance(choices, list) else ():
                    if getattr(choice, "index", None) != 0:
                        continue
                    reason = getattr(choice, "finish_reason", None)
                    if isinstance(reason, str) and reason:
                        finish = reason
                    text = getattr(getattr(choice, "delta", None), "content", None)
                    # A surrogate pair split across two chunks is joined; lone ones are marked.
                    text = decoded.feed(text) if isinstance(text, str) else None
                    if not text:
                        continue
                    if first is None:
                        first = time.perf_counter() - start
                    parts.append(text)
                    on_delta(text)
            if tail := decoded.end():
                parts.append(tail)
                on_delta(tail)
        latency = time.perf_counter() - start
        if received == 0:
            raise self._error(
                f"{self.name}: empty or unreadable stream from {display_url(self.base_url)}: "
                "is it an OpenAI-compatible server (base URL usually ending in /v1)?"
            )
        if finish is None:
            raise self._error(
                f"the stream from {display_url(self.base_url)} ended before the model finished "
                "(connection dropped?): try again",
                retryable=True,
            )
        input_tokens = token_count(getattr(usage, "prompt_tokens", None))
        output_tokens = token_count(getattr(usage, "completion_tokens", None))
        # OpenAI caches long prefixes by itself and says how much of prompt_tokens it served.
        cached = token_count(getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", None))
        reasoning = token_count(getattr(getattr(usage, "completion_tokens_details", None), "reasoning_tokens", None))
        return Completion(
            text="".join(parts),
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            latency=latency,
            tokens_estimated=False,
            cache_read_tokens=cached,
            thinking_tokens=reasoning if reasoning else None,
            stop_reason=finish,
            time_to_first_token=first,
            extra={
                "truncated": finish == "length",
                "model": served_by,
                # Counts it did not report, or that cannot be (10**400), are unknown.
                "usage_reported": input_tokens is not None and output_tokens is not None,
            },
        )

    async def aclose(self) -> None:
        await self._client.close()
        if self._http is not None:
            await self._http.aclose()

    # -- errors ------------------------------------------------------------------

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except openai.APIStatusError as exc:
            raise self._sdk_status_error(exc) from None
        except openai.APITimeoutError:
            raise self._timeout_error() from None
        except openai.APIConnectionError as exc:
            raise self._connection_error(exc) from None
        except openai.APIError as exc:  # an error object inside a 200 stream
            raise self._error(
                f"{self.name} failed mid-stream: {clean(exc.message, self._secret, 300)}: try again",
                retryable=True,
            ) from None
        except httpx2.TimeoutException:  # a stalled stream after the response started
            raise self._timeout_error() from None
        except httpx2.TransportError as exc:
            raise self._transport_error(exc) from None
        except Exception as exc:  # malformed or unexpected data from the server
            raise self._unreadable_error(exc) from None

    def _sdk_status_error(self, exc: openai.APIStatusError) -> LLMError:
        detail = clean(body_message(exc.body) or "", self._secret, 300)
        return self._status_error(exc.status_code, detail, exc.response.headers)

    def _key_refused(self) -> str:
        if self.key_from_env:
            return super()._key_refused()
        return f"{self._where()} wants an API key (401): set {self.key_var} to the key it expects"

    def _model_hint(self) -> str:
        hint = super()._model_hint()
        if not self.official:
            hint += (
                f" (is it pulled/loaded on the server?) and that {display_url(self.base_url)}"
                " is the API root, usually ending in /v1"
            )
        return hint
