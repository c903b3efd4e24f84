"""The registry of model providers: each ``provider/`` prefix and how to build its client.

As inspect_ai's ``@modelapi``: a provider registers a factory under its prefix
with :func:`modelapi`, and the factory imports the provider's client (and its
SDK, which takes one to three seconds) only when a run asks for that provider.
The built-in providers register in :mod:`.providers`; adding one is a client
module and one ``@modelapi`` function there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .base import LLMClient


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


#: ``(rest of the name, options) -> client``.
Factory = Callable[[str, ClientOptions], "LLMClient"]
#: ``(model, base_url, env)`` -> None, or raises the LLMError the client would for a missing key.
KeyCheck = Callable[[str, "str | None", Mapping[str, str]], None]


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
    check_key: KeyCheck | None = None
    """Checks the key before that slow import, so a missing one is said at once."""
    takes_base_url: bool = False
    """Whether ``--base-url`` (and its presets) applies."""
    free: bool = False
    """Runs on this machine or from a file: costs nothing."""


_REGISTRY: dict[str, Provider] = {}


def modelapi(
    prefix: str,
    *,
    example: str,
    module: str | None = None,
    check_key: KeyCheck | None = None,
    takes_base_url: bool = False,
    free: bool = False,
) -> Callable[[Factory], Factory]:
    """Register the decorated factory as the provider of ``prefix/`` names."""

    def register(factory: Factory) -> Factory:
        _REGISTRY[prefix] = Provider(prefix, factory, example, module, check_key, takes_base_url, free)
        return factory

    return register


def providers() -> Mapping[str, Provider]:
    """Every registered provider by prefix (the package imports the built-ins)."""
    return _REGISTRY
