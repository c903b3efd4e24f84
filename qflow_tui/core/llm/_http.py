"""What both HTTP provider clients share for turning failures into one
readable, key-free line."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from urllib.parse import urlsplit, urlunsplit

from ..safe_text import one_line
from ..summary import MAX_CALL_TOKENS
from .base import LLMError

#: What a user without a key can do instead, said with every "set the key" message.
NO_KEY_HINT = (
    "; or use a local server with no key (--model openai/MODEL --base-url http://localhost:11434/v1 "
    "for Ollama, :8080/v1 for llama.cpp), or try `qflow demo`"
)


def clean(text: str, secret: str, limit: int) -> str:
    """One line, at most ``limit`` characters, with the key blanked out, as
    valid, terminal-safe text (a provider's message may hold a lone surrogate,
    or escape sequences meant for the terminal)."""
    text = one_line(text)
    if secret:
        text = text.replace(secret, "***")
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def token_count(value: object) -> int | None:
    """A token count as a server reported it: a whole number from 0 to
    :data:`~qflow_tui.core.summary.MAX_CALL_TOKENS`, else unknown (a server may
    send anything where a count should be, ``10**400`` included)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_CALL_TOKENS:
        return value
    return None


def display_url(url: str) -> str:
    """The URL without any user:password part."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


_CONTEXT_RE = re.compile(
    r"context.?(length|window|size)|prompt is too long|too many tokens|exceeds the available context"
    r"|maximum context|reduce the length",
    re.IGNORECASE,
)


def is_context_error(status: int, message: str) -> bool:
    """Whether a refusal says the prompt (plus answer) does not fit the model's window."""
    return status in (400, 413, 422) and bool(_CONTEXT_RE.search(message))


def retry_after(headers: Mapping[str, str] | None, *, now: float | None = None) -> float | None:
    """Seconds the server asked us to wait: ``retry-after-ms``, or ``retry-after``
    as seconds or an HTTP date; None when it said nothing usable."""
    if not headers:
        return None
    lower = {k.lower(): v for k, v in headers.items()}
    raw_ms = lower.get("retry-after-ms")
    if raw_ms is not None:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = lower.get("retry-after")
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    # Imported here: the email package is 10 ms of every start, and only a
    # provider's Retry-After with a date (seldom) needs it.
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(raw).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def body_message(body: object) -> str | None:
    """The provider's own error message from an error body (the SDKs hand over
    either the whole body or its inner ``error`` object)."""
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and isinstance(message := err.get("message"), str):
            return message
        if isinstance(err, str):
            return err
    if isinstance(body, str):
        return body
    return None


def root_cause(exc: BaseException, wrapper: type[BaseException]) -> str:
    """The innermost cause's message, e.g. "[Errno 111] Connection refused";
    empty when that is only the SDK's own ``wrapper`` exception."""
    seen = set()
    while (exc.__cause__ or exc.__context__) is not None and id(exc) not in seen:
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return str(exc) if not isinstance(exc, wrapper) else ""


class ProviderErrors:
    """The failures every HTTP provider has in common, as :class:`LLMError`.

    A client sets ``name``, ``base_url``, ``_secret`` (its key, blanked out of
    every message) and ``_timeout``, and the class attributes below."""

    name: str
    model: str
    base_url: str
    max_retries: int
    _secret: str
    _timeout: float | None
    provider: str = ""
    key_var: str = ""
    """The variable that holds the key, named in a 401 or 403 message."""
    connection_wrapper: type[BaseException] = Exception
    """The SDK's own connection error, which says nothing the cause does not."""
    base_url_var: str = ""
    server_kind: str = "server"
    """What the base URL should be, for the 'unreadable response' message."""

    def _official(self) -> bool:
        """Whether the client talks to the provider's own service."""
        return False

    def _where(self) -> str:
        """Who refused, in a message: the provider, or the server's URL."""
        return self.provider if self._official() else display_url(self.base_url)

    def _key_refused(self) -> str:
        """What a 401 means for this client."""
        return f"{self._where()} rejected the API key (401): check {self.key_var}"

    def _model_hint(self) -> str:
        """What to check after a 404 for the model."""
        return f"check the name after '{self.provider}/'"

    def _status_error(self, status: int, detail: str, headers: Mapping[str, str] | None) -> LLMError:
        """The one ladder from an HTTP status (and the provider's own message,
        already cleaned) to an :class:`LLMError`; each client maps its SDK's
        exceptions to a status and calls this."""
        suffix = f": {detail}" if detail else ""
        retries = f" after {self.max_retries} retries" if self.max_retries else ""
        if status == 401:
            return self._error(self._key_refused(), status=401)
        if status == 403:
            return self._error(
                f"permission denied for {self.name} (403): the key in {self.key_var} may not have access to this model"
                + suffix,
                status=403,
            )
        if status == 404:
            return self._error(
                f"unknown model {self.model!r} (404 from {self._where()}): {self._model_hint()}" + suffix, status=404
            )
        if is_context_error(status, detail):
            return self._context_error(status, detail)
        if status in (400, 413, 422):
            return self._error(f"{self.name} rejected the request ({status}){suffix}", status=status)
        if status == 429:
            return self._error(
                f"{self.name}: rate limited (429){retries}: provider busy, try again later" + suffix,
                status=429,
                retryable=True,
                wait=retry_after(headers),
            )
        if status >= 500 or status in (408, 409):
            what = "overloaded" if status == 529 else f"server error {status}"
            return self._error(
                f"{self.name}: {what}{retries}: provider busy, try again later" + suffix,
                status=status,
                retryable=True,
                wait=retry_after(headers),
            )
        return self._error(f"{self.name}: HTTP {status}{suffix or ' (no message)'}", status=status)

    def _error(
        self, message: str, *, status: int | None = None, retryable: bool = False, wait: float | None = None
    ) -> LLMError:
        # Provider-supplied parts were blanked already; a second pass over the
        # whole message is for keys long enough not to match ordinary words.
        # A rejected key, a forbidden or unknown model: every call would fail alike.
        err = LLMError(
            clean(message, self._secret if len(self._secret) >= 8 else "", 600),
            fatal=status in (401, 403, 404),
            status=status,
            retryable=retryable,
        )
        err.retry_after = wait
        return err

    def _context_error(self, status: int, detail: str) -> LLMError:
        return self._error(
            f"{self.name}: the prompt does not fit the model's context window ({status}): {detail}; "
            "lower --max-tokens or use a model with a larger window",
            status=status,
        )

    def _connection_error(self, exc: BaseException) -> LLMError:
        cause = root_cause(exc, self.connection_wrapper)
        why = f" ({clean(cause, self._secret, 120)})" if cause else ""
        hint = "check your network" if self._official() else f"check --base-url / {self.base_url_var}"
        return self._error(
            f"could not reach {display_url(self.base_url)}: is the server running? ({hint}){why}",
            retryable=True,
        )

    def _timeout_error(self) -> LLMError:
        limit = f" within {self._timeout:g} s" if self._timeout is not None else ""
        return self._error(
            f"{self.name}: no answer from {display_url(self.base_url)}{limit} (timed out): try again",
            retryable=True,
        )

    def _transport_error(self, exc: BaseException) -> LLMError:
        return self._error(
            f"the connection to {display_url(self.base_url)} broke mid-stream "
            f"({clean(str(exc) or type(exc).__name__, self._secret, 120)}): try again",
            retryable=True,
        )

    def _unreadable_error(self, exc: BaseException) -> LLMError:
        if isinstance(exc, RecursionError):  # Python's JSON reader met a chunk nested past its stack
            return self._error(
                f"{self.name}: unreadable response from {display_url(self.base_url)}: its JSON nests too deep "
                f"to read: is it {self.server_kind}?"
            )
        detail = clean(str(exc), self._secret, 200)
        return self._error(
            f"{self.name}: unreadable response from {display_url(self.base_url)}: "
            f"is it {self.server_kind}? ({type(exc).__name__}{': ' + detail if detail else ''})"
        )


#: Hosts of a server on this machine: no key needed, no price charged.
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}


def is_local(url: str) -> bool:
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    return host in LOCAL_HOSTS or host.endswith(".localhost")
