"""Each HTTP provider's key and URL, read without importing its SDK.

Importing ``anthropic`` or ``openai`` takes about a second: :func:`make_client`
checks the key with these first, so a missing key is said at once instead of
after that second (the app froze that long on the first Run before saying
"set ANTHROPIC_API_KEY"). The clients check with the same functions."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from ._http import NO_KEY_HINT, display_url, is_local
from .base import LLMError

ANTHROPIC_DEFAULT_URL = "https://api.anthropic.com"
ANTHROPIC_KEY_VAR = "ANTHROPIC_API_KEY"
ANTHROPIC_URL_VAR = "ANTHROPIC_BASE_URL"

OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
OPENAI_KEY_VAR = "OPENAI_API_KEY"
OPENAI_URL_VAR = "OPENAI_BASE_URL"
#: Local servers accept any key; the SDK insists on having one.
LOCAL_DUMMY_KEY = "qflow-local"


class MissingKey(LLMError):
    """A provider's key is not set. ``str()`` is the command line's advice; a
    front end with other ways in (the app's form) words its own from the fields."""

    def __init__(self, variable: str, model: str, message: str) -> None:
        super().__init__(message)
        self.variable = variable
        """The environment variable to set: ``ANTHROPIC_API_KEY``."""
        self.model = model


def anthropic_url(base_url: str | None, env: Mapping[str, str]) -> str:
    """The URL calls go to: the one given, else ANTHROPIC_BASE_URL, else the API's."""
    return (base_url or env.get(ANTHROPIC_URL_VAR) or ANTHROPIC_DEFAULT_URL).rstrip("/")


def anthropic_key(name: str, env: Mapping[str, str]) -> str:
    """The key in ANTHROPIC_API_KEY, or an :class:`LLMError` saying to set it."""
    key = env.get(ANTHROPIC_KEY_VAR, "").strip()
    if not key:
        raise MissingKey(ANTHROPIC_KEY_VAR, name, f"set {ANTHROPIC_KEY_VAR} to use {name}{NO_KEY_HINT}")
    return key


def openai_url(base_url: str | None, env: Mapping[str, str]) -> str:
    """The URL calls go to: the one given, else OPENAI_BASE_URL, else the API's."""
    return (base_url or env.get(OPENAI_URL_VAR) or OPENAI_DEFAULT_URL).rstrip("/")


def is_official_openai(url: str) -> bool:
    return urlsplit(url).hostname == "api.openai.com"


def openai_key(name: str, url: str, env: Mapping[str, str]) -> str:
    """The key in OPENAI_API_KEY; "" for a local server, which needs none; else an
    :class:`LLMError` saying to set it."""
    key = env.get(OPENAI_KEY_VAR, "").strip()
    if key or is_local(url):
        return key
    official = is_official_openai(url)
    where = "" if official else f" at {display_url(url)} (any string works if the server checks no key)"
    raise MissingKey(
        OPENAI_KEY_VAR, name, f"set {OPENAI_KEY_VAR} to use {name}{where}{NO_KEY_HINT if official else ''}"
    )
