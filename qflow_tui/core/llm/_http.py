"""Helpers both HTTP provider clients share for turning failures into one
readable, key-free line."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def clean(text: str, secret: str, limit: int) -> str:
    """One line, at most ``limit`` characters, with the key blanked out."""
    if secret:
        text = text.replace(secret, "***")
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


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


def body_message(body: object) -> str | None:
    """The provider's own error message from an error body (the SDKs hand over
    either the whole body or its inner ``error`` object)."""
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return err["message"]
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
