"""Model clients behind one protocol, chosen by a ``provider/model`` name."""

from __future__ import annotations

from .base import Completion, DeltaCallback, LLMClient, LLMError, LLMRequest, estimate_tokens

PROVIDERS = ("anthropic", "openai", "local", "script", "replay")

__all__ = [
    "BASE_URL_PRESETS",
    "PROVIDERS",
    "Completion",
    "DeltaCallback",
    "LLMClient",
    "LLMError",
    "LLMRequest",
    "client_module",
    "estimate_tokens",
    "make_client",
    "resolve_base_url",
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
            f"local/smollm2, script/responder.py, replay/session.jsonl)"
        )
    return provider, rest


#: ``--base-url NAME`` for the usual local OpenAI-compatible servers, at their default ports.
BASE_URL_PRESETS = {
    "ollama": "http://localhost:11434/v1",
    "vllm": "http://localhost:8000/v1",
    "lmstudio": "http://localhost:1234/v1",
    "llamacpp": "http://localhost:8080/v1",
}


def resolve_base_url(provider: str, base_url: str | None) -> str | None:
    """A preset name becomes its URL; anything else must look like a URL."""
    if not base_url:
        return None
    preset = BASE_URL_PRESETS.get(base_url.strip().lower().replace(".", "").replace("-", ""))
    if preset is not None:
        if provider != "openai":
            raise LLMError(
                f"--base-url {base_url}: that preset is an OpenAI-compatible server; "
                f"name the model openai/<model> (e.g. --model openai/qwen2.5-coder --base-url {base_url})"
            )
        return preset
    if "://" not in base_url:
        raise LLMError(
            f"--base-url {base_url!r}: give a URL such as http://localhost:8080/v1 or one of the presets "
            f"{', '.join(BASE_URL_PRESETS)}"
        )
    return base_url


def make_client(
    model: str,
    *,
    base_url: str | None = None,
    fallback: LLMClient | None = None,
    env: dict[str, str] | None = None,
    context_window: int | None = None,
) -> LLMClient:
    """Build the client for a model name. Raises :class:`LLMError` with a message a
    user can act on (unknown prefix, missing API key, missing script file, a
    base URL that is neither a URL nor a preset). Without ``base_url`` each
    provider reads its own variable (ANTHROPIC_BASE_URL, OPENAI_BASE_URL)."""
    import os

    env = dict(os.environ) if env is None else env
    provider, rest = split_model_name(model)
    if provider in ("anthropic", "openai"):
        base_url = resolve_base_url(provider, base_url)
    if provider == "script":
        from .script import ScriptClient

        return ScriptClient(rest)
    if provider in _CLIENT_MODULES:
        _check_key(provider, model, base_url, env)  # said before the SDK's import, which takes seconds
    if provider == "anthropic":
        from .anthropic_client import AnthropicClient

        return AnthropicClient(rest, base_url=base_url, env=env, context_window=context_window)
    if provider == "openai":
        from .openai_client import OpenAIClient

        return OpenAIClient(rest, base_url=base_url, env=env, context_window=context_window)
    if provider == "local":
        from .local import LocalClient

        return LocalClient(rest)
    if provider == "replay":
        from .replay import ReplayClient

        return ReplayClient(rest, fallback=fallback)
    raise AssertionError(provider)  # split_model_name only returns known providers


#: The client module of each HTTP provider: importing its SDK takes one to three seconds.
_CLIENT_MODULES = {"anthropic": f"{__name__}.anthropic_client", "openai": f"{__name__}.openai_client"}


def _check_key(provider: str, model: str, base_url: str | None, env: dict[str, str]) -> None:
    """Raise the :class:`LLMError` the provider's client would, for a missing key,
    without importing its SDK."""
    from .provider_keys import anthropic_key, openai_key, openai_url

    if provider == "anthropic":
        anthropic_key(model, env)
    else:
        openai_key(model, openai_url(base_url, env), env)


def client_module(model: str, *, base_url: str | None = None, env: dict[str, str] | None = None) -> str | None:
    """The module :func:`make_client` imports for ``model`` when it could build the
    client now (its key is set, or its server is local), else None: what the app
    imports on a thread while the user reads the form, so the first Run does not
    freeze for the SDK's import."""
    import os

    env = dict(os.environ) if env is None else env
    try:
        provider, _rest = split_model_name(model)
        if provider not in _CLIENT_MODULES:
            return None
        _check_key(provider, model, resolve_base_url(provider, base_url), env)
    except LLMError:
        return None
    return _CLIENT_MODULES[provider]
