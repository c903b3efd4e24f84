"""Model clients behind one protocol, chosen by a ``provider/model`` name."""

from __future__ import annotations

from .base import Completion, DeltaCallback, LLMClient, LLMError, LLMRequest, estimate_tokens

PROVIDERS = ("anthropic", "openai", "script", "replay")

__all__ = [
    "PROVIDERS",
    "Completion",
    "DeltaCallback",
    "LLMClient",
    "LLMError",
    "LLMRequest",
    "estimate_tokens",
    "make_client",
    "split_model_name",
]


def split_model_name(model: str) -> tuple[str, str]:
    """``provider/rest`` -> (provider, rest). The rest may itself contain slashes
    (a path, ``script//home/me/responder.py``)."""
    provider, sep, rest = model.partition("/")
    if not sep or not rest or provider not in PROVIDERS:
        raise LLMError(
            f"unknown model {model!r}: name it provider/model with provider one of "
            f"{', '.join(PROVIDERS)} (e.g. anthropic/claude-sonnet-4-5, openai/gpt-4.1, "
            f"script/responder.py, replay/session.jsonl)"
        )
    return provider, rest


def make_client(
    model: str,
    *,
    base_url: str | None = None,
    fallback: LLMClient | None = None,
    env: dict[str, str] | None = None,
) -> LLMClient:
    """Build the client for a model name. Raises :class:`LLMError` with a message a
    user can act on (unknown prefix, missing API key, missing script file)."""
    import os

    env = dict(os.environ) if env is None else env
    provider, rest = split_model_name(model)
    if provider == "script":
        from .script import ScriptClient

        return ScriptClient(rest)
    if provider == "anthropic":
        from .anthropic_client import AnthropicClient

        return AnthropicClient(rest, base_url=base_url, env=env)
    if provider == "openai":
        from .openai_client import OpenAIClient

        return OpenAIClient(rest, base_url=base_url, env=env)
    if provider == "replay":
        from .replay import ReplayClient

        return ReplayClient(rest, fallback=fallback)
    raise AssertionError(provider)  # split_model_name only returns known providers
