"""The registry of model providers: each ``provider/`` prefix and how to build its client.

Providers are found through the ``qflow.providers`` entry-point group, as the
workflows are through ``qflow.workflows``: each entry names a :class:`Provider`
(``package.module:PROVIDER``). The built-in ones (anthropic, openai, local,
script, replay) are registered there too (pyproject.toml), so a third-party
package adds a provider without touching qflow_tui, and gets what a built-in
gets: ``qflow models`` and the compose form's Model field list its models,
``qflow doctor`` names it, a broken one is refused in one line
(:func:`~qflow_tui.core.plugins.load_group`), and every string it declares or
answers is made terminal-safe.

A provider's factory imports its client (and its SDK, which takes one to three
seconds) only when a run asks for that provider. :func:`modelapi` registers one
in this process only (tests, embedding), as inspect_ai's ``@modelapi``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from .. import plugins, typecheck
from ..plugins import EntryPoint, PluginRefused
from ..safe_text import one_line
from .base import LLMClient, LLMError

GROUP = "qflow.providers"
#: What a provider's prefix may be: it is typed before the ``/`` of a model's name.
PREFIX = re.compile(r"[a-z][a-z0-9_-]{0,31}\Z")

#: The built-in providers where they lie, for a checkout run without being
#: installed (no dist-info, so no entry points); pyproject.toml names the same.
BUILT_IN = {
    "anthropic": "qflow_tui.core.llm.built_in:ANTHROPIC",
    "openai": "qflow_tui.core.llm.built_in:OPENAI",
    "local": "qflow_tui.core.llm.built_in:LOCAL",
    "script": "qflow_tui.core.llm.built_in:SCRIPT",
    "replay": "qflow_tui.core.session.replay:PROVIDER",
    "reference": "qflow_tui.core.bench.reference:PROVIDER",
}


@dataclass(frozen=True)
class ClientOptions:
    """What a run asks of the client besides the model's name."""

    base_url: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    context_window: int | None = None
    fallback: LLMClient | None = None
    """With a replay model: the live model for calls the recording lacks."""
    prompt_cache: bool = True
    """Ask the provider to cache the prompt's shared prefix where that pays."""
    effort: str = ""
    """How hard a reasoning model thinks (``low`` to ``max``); empty: the
    provider's default, nothing sent."""
    threads: int = 0
    """CPU threads for a model run on this machine (0: chosen from the cores
    free now); providers that call a server ignore it."""


@dataclass(frozen=True)
class Need:
    """What a model needs before it can answer and does not have."""

    kind: Literal["key", "package", "file", "server"]
    message: str
    """One line a user can act on: ``set ANTHROPIC_API_KEY to use anthropic/...``."""
    variable: str = ""
    """For a key: the environment variable to set."""


@dataclass(frozen=True)
class NamedModel:
    """A model a provider knows by name (what follows its prefix)."""

    name: str
    note: str = ""
    """Said when a run with it starts (a notice in the run and the session)."""
    small: bool = False
    """A tiny model (a way to see the pipeline work): the app opens it with the
    small settings (:data:`~qflow_tui.core.workflows.values.SMALL_SETTINGS`)."""


#: ``(rest of the name, options) -> client``.
Factory = Callable[[str, ClientOptions], LLMClient]
#: ``(model, base_url, env) -> what it lacks``: a cheap check (no SDK import, no
#: network) of a key, a package, a model file.
Needs = Callable[[str, "str | None", Mapping[str, str]], "Need | None"]


@dataclass(frozen=True)
class Provider:
    """One ``prefix/`` of model names."""

    prefix: str
    factory: Factory
    example: str
    """A model name a user could type, for messages."""
    module: str | None = None
    """The module the factory imports when its import is slow (an SDK): what the
    app imports on a thread while the user reads the form."""
    needs: Needs | None = None
    """What a model lacks before it can answer (its key, its package, its
    file), asked before the slow import so a missing one is said at once."""
    takes_base_url: bool = False
    """Whether ``--base-url`` (and its presets) applies."""
    free: bool = False
    """Runs on this machine or from a file: costs nothing."""
    models: tuple[NamedModel, ...] = ()
    """Models known by name: ``qflow models`` and the Model field list them."""
    alone: bool = False
    """The prefix alone names the provider's one model (``--model reference``):
    the factory gets an empty rest, and ``qflow models`` lists the prefix."""

    def named(self, rest: str) -> NamedModel | None:
        """The named model ``rest`` is, if it is one."""
        return next((m for m in self.models if m.name.lower() == rest.lower()), None)


_NAMES: dict[str, Any] = {
    "LLMClient": LLMClient,
    "ClientOptions": ClientOptions,
    "Need": Need,
    "NamedModel": NamedModel,
    "Mapping": Mapping,
}


class _PluginFactory:
    """A plugin's factory: whatever it raises but an :class:`LLMError` becomes
    one (one line naming the provider), so a run fails as for a built-in."""

    def __init__(self, prefix: str, factory: Factory) -> None:
        self.prefix = prefix
        self.factory = factory

    def __call__(self, rest: str, options: ClientOptions) -> LLMClient:
        try:
            return self.factory(rest, options)
        except LLMError as exc:
            raise LLMError(one_line(str(exc), typecheck.TEXT_LIMIT), fatal=exc.fatal) from None
        except Exception as exc:
            raise LLMError(
                f"provider {self.prefix}: its factory failed: {plugins.exception_words(exc)}", fatal=True
            ) from None


def _provider_error(prefix: str) -> Callable[[str], Exception]:
    def error(problem: str) -> Exception:
        return LLMError(f"provider {one_line(prefix, 32)}: {problem}", fatal=True)

    return error


def checked_provider(provider: Provider) -> Provider:
    """A plugin's provider, checked (raises :class:`PluginRefused` naming the
    field that is wrong), its strings made terminal-safe, its ``needs`` guarded
    (each answer checked and cleaned) and its factory's failures worded."""
    problem = typecheck.fields_problem(provider, _NAMES)
    if problem:
        raise PluginRefused(f"its provider's {problem}")
    if not PREFIX.match(provider.prefix):
        raise PluginRefused(
            f"its prefix {one_line(repr(provider.prefix), 40)} is not a word (a-z, then a-z, 0-9, - or _)"
        )
    if not provider.example.startswith(f"{provider.prefix}/") and not (
        provider.alone and provider.example == provider.prefix
    ):
        raise PluginRefused(f"its example {one_line(repr(provider.example), 80)} does not start with its prefix")
    for model in provider.models:
        if not model.name.strip() or any(c.isspace() for c in model.name):
            raise PluginRefused(f"its model name {one_line(repr(model.name), 60)} is empty or holds spaces")
    safe = typecheck.safe_strings(provider)
    guarded = plugins.guard_functions(safe, _provider_error(safe.prefix), _NAMES)
    # The factory answers with a client (a protocol no isinstance can check):
    # its failures are worded instead.
    return replace(guarded, factory=_PluginFactory(safe.prefix, safe.factory))


class _Check:
    def __call__(self, obj: object, entry: EntryPoint) -> Provider:
        if not isinstance(obj, Provider):
            raise PluginRefused(f"it is a {type(obj).__name__}, not a Provider")
        if entry.builtin:
            return obj
        checked = checked_provider(obj)
        if checked.prefix != entry.name:
            raise PluginRefused(
                f"its entry is named {one_line(entry.name, 32)!r} but its prefix is "
                f"{checked.prefix!r}: name the entry after the prefix"
            )
        return checked


def _builtin_entries() -> list[EntryPoint]:
    return [EntryPoint(GROUP, name, value) for name, value in BUILT_IN.items()]


def _order(item: tuple[str, Provider]) -> tuple[int, str]:
    """The built-ins in the order users meet them, then plugins by prefix."""
    order = list(BUILT_IN)
    return (order.index(item[0]) if item[0] in order else len(order), item[0])


#: Every provider, by prefix.
PROVIDERS: plugins.Registry[Provider] = plugins.Registry(
    GROUP, "provider", _Check(), lambda p: p.prefix, _builtin_entries, order=_order
)


def modelapi(
    prefix: str,
    *,
    example: str,
    module: str | None = None,
    needs: Needs | None = None,
    takes_base_url: bool = False,
    free: bool = False,
    models: tuple[NamedModel, ...] = (),
    alone: bool = False,
) -> Callable[[Factory], Factory]:
    """Register the decorated factory as the provider of ``prefix/`` names in
    this process (tests, embedding); a package registers through the
    ``qflow.providers`` entry-point group instead."""

    def register(factory: Factory) -> Factory:
        PROVIDERS.register(
            prefix, Provider(prefix, factory, example, module, needs, takes_base_url, free, models, alone)
        )
        return factory

    return register


def providers() -> Mapping[str, Provider]:
    """Every provider by prefix: the built-ins, then the plugins installed."""
    return PROVIDERS


def broken_providers() -> list[str]:
    """Providers whose entry point was not loaded, one terminal-safe line each."""
    return PROVIDERS.refused_lines()


def named_model(model: str) -> NamedModel | None:
    """The provider's declaration of ``provider/name``, when it names it."""
    prefix, _, rest = model.partition("/")
    provider = PROVIDERS.get(prefix)
    return provider.named(rest) if provider is not None and rest else None
