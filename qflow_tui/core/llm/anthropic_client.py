"""``anthropic/<model>``: Claude through the official SDK, streaming.

Every failure the SDK can raise becomes an :class:`LLMError` whose message says
what to do next (which variable to set, which name to check, whether to simply
try again), never a traceback and never the API key. Each error also carries
``status`` (the HTTP status or ``None``) and ``retryable`` (worth trying again
later) for callers that run their own retry policy.

Temperature is not sent. The SDK (2.x) speaks API version 2026-10-21, which
dropped the sampling parameters: ``messages.stream`` has no ``temperature``
argument any more, and the API answers 400 to one smuggled in through
``extra_body``. ``request.temperature`` still goes into the session log; the
Completion says ``extra["temperature_sent"] = False`` so nobody mistakes it for
what the model ran with.

Thinking. The Claude 5 models think before they answer (adaptive thinking, on
by default; the API refuses to turn it off). The thinking streams as its own
blocks: only text deltas reach the panes and only text blocks the answer, and
the thinking's tokens (billed as output) are counted apart as
``Completion.thinking_tokens``. ``effort`` (``output_config.effort``: ``low`` to
``max``) bounds how much the model thinks; unset, nothing is sent and the
model's default applies (models without effort refuse it).

Retries: the SDK's own retries are off (``max_retries=0`` by default): the
app's retry policy (core/llm/retry.py) retries what is worth retrying where the
user can see it (which call, attempt k of n, how long it waits), honouring the
``retry-after`` these errors carry as ``LLMError.retry_after``.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator, Mapping
from typing import Any

import anthropic
import httpx2

from ..safe_text import StreamText, valid_text
from ._http import ProviderErrors, body_message, clean, display_url, token_count
from .base import Completion, DeltaCallback, LLMError, LLMRequest, prompt_text_tokens
from .bounded import capped_http_client
from .prices import cache_min_tokens
from .provider_keys import ANTHROPIC_DEFAULT_URL as DEFAULT_BASE_URL
from .provider_keys import ANTHROPIC_KEY_VAR as KEY_VAR
from .provider_keys import ANTHROPIC_URL_VAR as BASE_URL_VAR
from .provider_keys import anthropic_key, anthropic_url
from .window import prompt_tokens, too_long

DEFAULT_MAX_RETRIES = 0

# A streamed ``event: error`` arrives on an HTTP 200 response: its error type says
# what the status would have been.
_TYPE_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}


class AnthropicClient(ProviderErrors):
    """Streams one Messages API call per :meth:`complete`."""

    provider = "anthropic"
    #: What this API takes of the sampling settings (see the module docstring).
    sampling = {"temperature": "not sent (the API takes none): the provider's default", "seed": "not sent"}
    #: Sends ``effort`` when one is set (see the module docstring).
    takes_effort = True
    connection_wrapper = anthropic.APIConnectionError
    base_url_var = BASE_URL_VAR
    key_var = KEY_VAR
    server_kind = "an Anthropic Messages API server"

    def _official(self) -> bool:
        return self.base_url == DEFAULT_BASE_URL

    def __init__(
        self,
        model_name: str,
        *,
        base_url: str | None = None,
        env: Mapping[str, str] | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float | None = None,
        context_window: int | None = None,
        prompt_cache: bool = True,
        effort: str = "",
    ) -> None:
        env = os.environ if env is None else env
        self.model = model_name
        self.effort = effort
        """``output_config.effort`` for every call; empty: the model's default, not sent."""
        self.prompt_cache = prompt_cache
        """Ask the API to cache each prompt's prefix where it is long enough."""
        self.context_window = context_window
        """Tokens the model can see at once, when configured (the API does not say)."""
        self.name = f"{self.provider}/{model_name}"
        self.cache_min_tokens = cache_min_tokens(self.name)
        """The shortest prompt this model caches (per model: see core/llm/prices.py);
        a shorter one is sent without the marker."""
        key = anthropic_key(self.name, env)
        # Always hand the SDK an explicit URL so that only ``env`` decides (the SDK
        # would otherwise read ANTHROPIC_BASE_URL from the process environment).
        self.base_url = anthropic_url(base_url, env)
        self.max_retries = max_retries
        self._timeout = timeout
        self._secret = key
        kwargs: dict[str, Any] = {}
        if timeout is not None:
            kwargs["timeout"] = httpx2.Timeout(timeout, connect=min(timeout, 5.0))
        # Each answer capped in size (the call's time limit is its whole deadline).
        http = capped_http_client(anthropic.DefaultAsyncHttpxClient, limits=anthropic.DEFAULT_CONNECTION_LIMITS)
        self._client = anthropic.AsyncAnthropic(
            api_key=key, base_url=self.base_url, max_retries=max_retries, http_client=http, **kwargs
        )

    def __repr__(self) -> str:
        return f"AnthropicClient({self.name!r}, base_url={display_url(self.base_url)!r})"

    async def complete(self, request: LLMRequest, on_delta: DeltaCallback) -> Completion:
        params: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(m) for m in request.messages],
            "max_tokens": request.max_tokens,
        }
        if self.effort:
            params["output_config"] = {"effort": self.effort}
        if request.system:  # the API refuses an empty system text block
            params["system"] = request.system
        if self.prompt_cache and prompt_text_tokens(request) >= self.cache_min_tokens:
            # The top-level marker caches up to the last cacheable block: the prompts
            # put what calls share first, so the next call with that prefix reads it
            # at a tenth of the price (a write costs 1.25x, once).
            params["cache_control"] = {"type": "ephemeral"}
        if self.context_window:
            shown = [{"role": "system", "content": request.system}, *request.messages]
            tokens, exact = await prompt_tokens(None, None, shown)
            if tokens >= self.context_window:
                raise too_long(self.name, tokens, exact, self.context_window, "configured")
        start = time.perf_counter()
        first: float | None = None
        parts: list[str] = []
        decoded = StreamText()
        # Only the SDK's own work runs under ``_errors``: an exception raised by
        # on_delta is the caller's and propagates untouched. Leaving the ``async
        # with`` for any reason (including cancellation) closes the response, so
        # no connection outlives the call.
        async with contextlib.AsyncExitStack() as stack:
            with self._errors():
                stream = await stack.enter_async_context(self._client.messages.stream(**params))
            texts = stream.text_stream
            stack.push_async_callback(texts.aclose)  # type: ignore[attr-defined]  # the SDK's stream is an async generator
            while True:
                with self._errors():
                    try:
                        text = await texts.__anext__()
                    except StopAsyncIteration:
                        break
                # A surrogate pair split across two events is joined; lone ones are marked.
                text = decoded.feed(text) if isinstance(text, str) else ""
                if not text:
                    continue
                if first is None:
                    first = time.perf_counter() - start
                parts.append(text)
                on_delta(text)
            if tail := decoded.end():
                parts.append(tail)
                on_delta(tail)
            with self._errors():
                message = await stream.get_final_message()
        latency = time.perf_counter() - start
        # The SDK builds the message from the server's events without checking
        # them: each field is read with care (a server may send anything).
        stop = getattr(message, "stop_reason", None)
        if not isinstance(stop, str) or not stop:
            raise self._error(
                f"the stream from {display_url(self.base_url)} ended before the model finished "
                "(connection dropped?): try again",
                retryable=True,
            )
        content = getattr(message, "content", None)
        blocks = content if isinstance(content, list) else []
        joined = "".join(
            b.text for b in blocks if getattr(b, "type", None) == "text" and isinstance(getattr(b, "text", None), str)
        )
        # The SDK joins the events' raw text: the same repair as the deltas had.
        text = valid_text(joined) or "".join(parts)
        usage = getattr(message, "usage", None)
        input_tokens = token_count(getattr(usage, "input_tokens", None))
        # The API reports the cached parts of the prompt beside input_tokens (the
        # uncached rest): the whole prompt is their sum, each part priced apart.
        cache_read = token_count(getattr(usage, "cache_read_input_tokens", None))
        cache_write = token_count(getattr(usage, "cache_creation_input_tokens", None))
        if input_tokens is not None:
            input_tokens += (cache_write or 0) + (cache_read or 0)
        details = getattr(usage, "output_tokens_details", None)
        thinking = token_count(getattr(details, "thinking_tokens", None))
        model = getattr(message, "model", None)
        return Completion(
            text=text,
            input_tokens=input_tokens,
            output_tokens=token_count(getattr(usage, "output_tokens", None)),
            latency=latency,
            tokens_estimated=False,
            cache_read_tokens=cache_read,
            cache_write_tokens=cache_write,
            thinking_tokens=thinking if thinking else None,
            stop_reason=stop,
            time_to_first_token=first,
            extra={
                "truncated": stop == "max_tokens",
                "model": model if isinstance(model, str) else None,
                "request_id": stream.request_id,
                "temperature_sent": False,
            },
        )

    async def aclose(self) -> None:
        await self._client.close()

    # -- errors ------------------------------------------------------------------

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except anthropic.APIStatusError as exc:
            raise self._sdk_status_error(exc) from None
        except anthropic.APITimeoutError:
            raise self._timeout_error() from None
        except anthropic.APIConnectionError as exc:
            raise self._connection_error(exc) from None
        except httpx2.TimeoutException:  # a stalled stream after the response started
            raise self._timeout_error() from None
        except httpx2.TransportError as exc:
            raise self._transport_error(exc) from None
        except Exception as exc:  # malformed or unexpected data from the server
            raise self._unreadable_error(exc) from None

    def _sdk_status_error(self, exc: anthropic.APIStatusError) -> LLMError:
        status = exc.status_code
        if status < 400:  # an error event inside a 200 stream
            status = _TYPE_STATUS.get(exc.type or "", 500)
        detail = clean(exc.api_message or body_message(exc.body) or "", self._secret, 300)
        return self._status_error(status, detail, exc.response.headers)

    def _model_hint(self) -> str:
        hint = super()._model_hint()
        if self.base_url != DEFAULT_BASE_URL:
            hint += f" and that {display_url(self.base_url)} is the API root (without /v1)"
        return hint
