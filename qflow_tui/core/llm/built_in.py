"""The built-in model providers, one :class:`Provider` each, registered through
the ``qflow.providers`` entry-point group (pyproject.toml) as a third party's
are (``replay/`` lives in the session layer, which owns recordings:
:data:`..session.replay.PROVIDER`).

The factories of the SDKs' clients (anthropic, openai) import their client
inside, so that naming a provider costs nothing until a run asks for it (the
SDKs take one to three seconds to import); the local and script clients import
only the standard library, and llama.cpp only when a model starts. Each
``needs`` says what a model lacks (a key, a package, a file) without an SDK."""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping

from . import local, script
from .base import LLMClient, LLMError
from .provider_keys import MissingKey, anthropic_key, openai_key, openai_url
from .registry import ClientOptions, NamedModel, Need, Provider


def _key_need(check: MissingKey) -> Need:
    return Need("key", str(check), check.variable)


def _anthropic_needs(model: str, base_url: str | None, env: Mapping[str, str]) -> Need | None:
    try:
        anthropic_key(model, env)
    except MissingKey as exc:
        return _key_need(exc)
    return None


def _openai_needs(model: str, base_url: str | None, env: Mapping[str, str]) -> Need | None:
    try:
        openai_key(model, openai_url(base_url, env), env)
    except MissingKey as exc:
        return _key_need(exc)
    return None


def _anthropic(rest: str, options: ClientOptions) -> LLMClient:
    from .anthropic_client import AnthropicClient

    return AnthropicClient(
        rest,
        base_url=options.base_url,
        env=options.env,
        context_window=options.context_window,
        prompt_cache=options.prompt_cache,
        effort=options.effort,
    )


def _openai(rest: str, options: ClientOptions) -> LLMClient:
    from .openai_client import OpenAIClient

    return OpenAIClient(
        rest,
        base_url=options.base_url,
        env=options.env,
        context_window=options.context_window,
        effort=options.effort,
    )


def _local_needs(model: str, base_url: str | None, env: Mapping[str, str]) -> Need | None:
    if importlib.util.find_spec("xllamacpp") is None:
        return Need("package", f"{model} runs the model in the app with llama.cpp: {local.INSTALL}")
    try:
        local.locate_model(model.partition("/")[2])
    except LLMError as exc:
        return Need("package" if "pip install" in str(exc) else "file", str(exc))
    return None


def _local(rest: str, options: ClientOptions) -> LLMClient:
    return local.LocalClient(rest, prompt_cache=options.prompt_cache, threads=options.threads or None)


def _script_needs(model: str, base_url: str | None, env: Mapping[str, str]) -> Need | None:
    missing = script.script_missing(model.partition("/")[2])
    return Need("file", missing) if missing else None


def _script(rest: str, options: ClientOptions) -> LLMClient:
    return script.ScriptClient(rest)


ANTHROPIC = Provider(
    "anthropic",
    _anthropic,
    "anthropic/claude-sonnet-5-5",
    module=f"{__package__}.anthropic_client",
    needs=_anthropic_needs,
    takes_base_url=True,
)
OPENAI = Provider(
    "openai",
    _openai,
    "openai/gpt-4.1",
    module=f"{__package__}.openai_client",
    needs=_openai_needs,
    takes_base_url=True,
)
LOCAL = Provider(
    "local",
    _local,
    "local/smollm2",
    needs=_local_needs,
    free=True,
    models=(
        NamedModel(
            "smollm2",
            note="local/smollm2 is a 135M-parameter model: a way to try the app offline, "
            "not a way to get good programs",
            small=True,
        ),
    ),
)
SCRIPT = Provider("script", _script, "script/responder.py", needs=_script_needs, free=True)
