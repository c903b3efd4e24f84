"""Keeping secrets out of session files: known secret values from the
environment, and the shapes of provider keys and URL credentials, are replaced
by ``[redacted]`` before anything reaches the disk."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

#: Environment variables whose values must never be written anywhere.
SECRET_ENV_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_AUTH_TOKEN", "AZURE_OPENAI_API_KEY")
_SECRET_NAME_RE = re.compile(r"(API_KEY|TOKEN|SECRET|PASSWORD)$")
#: Shapes of provider keys, redacted even when they do not come from the
#: environment (a key pasted into a problem statement, a base URL with a key).
_KEY_SHAPES = re.compile(r"\bsk-(?:ant-)?[A-Za-z0-9_\-]{32,}")
_URL_CREDENTIALS = re.compile(r"(?<=://)[^/\s:@\"]+:[^/\s@\"]+@")


def secret_values(env: Mapping[str, str] | None = None) -> list[str]:
    """The values of ``env``'s secret variables (``os.environ`` by default),
    longest first. Only the names are read to choose them: a copy of the whole
    environment was most of a bench session's start."""
    source: Mapping[str, str] = os.environ if env is None else env
    values = set()
    for name in list(source):
        if name in SECRET_ENV_VARS or _SECRET_NAME_RE.search(name):
            value = source.get(name, "")
            if len(value) >= 8:
                values.add(value)
    return sorted(values, key=len, reverse=True)


def redact(text: str, values: list[str]) -> str:
    for v in values:
        if v in text:
            text = text.replace(v, "[redacted]")
    if "sk-" in text:
        text = _KEY_SHAPES.sub("[redacted]", text)
    if "://" in text and "@" in text:
        text = _URL_CREDENTIALS.sub("[redacted]@", text)
    return text
