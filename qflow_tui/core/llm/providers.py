"""The built-in model providers, one ``@modelapi`` registration each (``replay/``
registers in the session layer, which owns recordings: :mod:`..session.replay`).

Each factory imports its client inside, so that naming a provider costs nothing
until a run asks for it (the SDKs take one to three seconds to import)."""

from __future__ import annotations

from collections.abc import Mapping

from .base import LLMClient
from .provider_keys import anthropic_key, openai_key, openai_url
from .registry import ClientOptions, modelapi


def _anthropic_key(model: str, base_url: str | None, env: Mapping[str, str]) -> None:
    anthropic_key(model, env)


def _openai_key(model: str, base_url: str | None, env: Mapping[str, str]) -> None:
    openai_key(model, openai_url(base_url, env), env)


@modelapi(
    "anthropic",
    example="anthropic/claude-sonnet-5-5",
    module=f"{__package__}.anthropic_client",
    check_key=_anthropic_key,
    takes_base_url=True,
)
def anthropic(rest: str, options: ClientOptions) -> LLMClient:
    from .anthropic_client import AnthropicClient

    return AnthropicClient(
        rest,
        base_url=options.base_url,
        env=options.env,
        context_window=options.context_window,
        prompt_cache=options.prompt_cache,
        effort=options.effort,
    )


@modelapi(
    "openai",
    example="openai/gpt-4.1",
    module=f"{__package__}.openai_client",
    check_key=_openai_key,
    takes_base_url=True,
)
def openai(rest: str, options: ClientOptions) -> LLMClient:
    from .openai_client import OpenAIClient

    return OpenAIClient(
        rest,
        base_url=options.base_url,
        env=options.env,
        context_window=options.context_window,
        effort=options.effort,
    )


@modelapi("local", example="local/smollm2", free=True)
def local(rest: str, options: ClientOptions) -> LLMClient:
    from .local import LocalClient

    return LocalClient(rest, prompt_cache=options.prompt_cache)


@modelapi("script", example="script/responder.py", free=True)
def script(rest: str, options: ClientOptions) -> LLMClient:
    from .script import ScriptClient

    return ScriptClient(rest)
