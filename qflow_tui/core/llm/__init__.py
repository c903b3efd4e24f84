"""Model clients behind one protocol, chosen by a ``provider/model`` name."""

from __future__ import annotations

import os

from .base import Completion, DeltaCallback, LLMClient, LLMError, LLMRequest, estimate_tokens
from .provider_keys import MissingKey
from .registry import ClientOptions, NamedModel, Need, Provider, broken_providers, modelapi, named_model, providers

__all__ = [
    "BASE_URL_PRESETS",
    "ClientOptions",
    "Completion",
    "DeltaCallback",
    "LLMClient",
    "LLMError",
    "LLMRequest",
    "NamedModel",
    "Need",
    "Provider",
    "broken_providers",
    "client_module",
    "estimate_tokens",
    "make_client",
    "model_need",
    "modelapi",
    "named_model",
    "providers",
    "resolve_base_url",
    "split_model_name",
]


def split_model_name(model: str) -> tuple[str, str]:
    """``provider/rest`` -> (provider, rest). The rest may itself contain slashes
    (a path, ``script//home/me/responder.py``). A provider whose prefix alone
    names its model (:attr:`Provider.alone`, ``reference``) gives an empty rest."""
    provider, sep, rest = model.partition("/")
    known = providers()
    if not sep and provider in known and known[provider].alone:
        return provider, ""  # ``reference``: the prefix alone names the model
    if not sep or not rest or provider not in known:
        raise LLMError(
            f"unknown model {model!r}: name it provider/model with provider one of "
            f"{', '.join(known)} (e.g. {', '.join(p.example for p in known.values())})"
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
    prompt_cache: bool = True,
    effort: str = "",
    threads: int = 0,
) -> LLMClient:
    """Build the client for a model name. Raises :class:`LLMError` with a message a
    user can act on (unknown prefix, missing API key, missing script file, a
    base URL that is neither a URL nor a preset). Without ``base_url`` each
    provider reads its own variable (ANTHROPIC_BASE_URL, OPENAI_BASE_URL)."""
    env = dict(os.environ) if env is None else env
    name, rest = split_model_name(model)
    provider = providers()[name]
    if provider.takes_base_url:
        base_url = resolve_base_url(name, base_url)
    _raise_need(provider, model, base_url, env)  # said before the SDK's import, which takes seconds
    options = ClientOptions(base_url, env, context_window, fallback, prompt_cache, effort, threads)
    return provider.factory(rest, options)


def _raise_need(provider: Provider, model: str, base_url: str | None, env: dict[str, str]) -> None:
    need = provider.needs(model, base_url, env) if provider.needs is not None else None
    if need is None:
        return
    if need.kind == "key" and need.variable:
        raise MissingKey(need.variable, model, need.message)
    raise LLMError(need.message, fatal=True)


def model_need(model: str, *, base_url: str | None = None, env: dict[str, str] | None = None) -> Need | None:
    """What ``model`` lacks before it can answer (its key, its package, its
    file), as its provider says, without importing an SDK; None when nothing
    is missing. An unknown name or a bad base URL is a ``Need`` of kind
    ``server`` with the message saying so."""
    env = dict(os.environ) if env is None else env
    try:
        name, _rest = split_model_name(model)
        provider = providers()[name]
        if provider.takes_base_url:
            base_url = resolve_base_url(name, base_url)
    except LLMError as exc:
        return Need("server", str(exc))
    return provider.needs(model, base_url, env) if provider.needs is not None else None


def client_module(model: str, *, base_url: str | None = None, env: dict[str, str] | None = None) -> str | None:
    """The module :func:`make_client` imports for ``model`` when it could build the
    client now (its key is set, or its server is local), else None: what the app
    imports on a thread while the user reads the form, so the first Run does not
    freeze for the SDK's import."""
    env = dict(os.environ) if env is None else env
    try:
        name, _rest = split_model_name(model)
        provider = providers()[name]
        if provider.module is None:
            return None
        _raise_need(provider, model, resolve_base_url(name, base_url), env)
    except LLMError:
        return None
    return provider.module
