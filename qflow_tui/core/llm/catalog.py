"""The models a user can name: those of the dated price table, the named local
models, and what an OpenAI-compatible server's ``/v1/models`` reports (with its
context window where it says it). The compose form's Model field and ``qflow
models`` list the same."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from ._http import display_url
from .base import LLMError
from .local import NAMED_MODELS
from .prices import RETIREMENTS, Price, load_prices

#: Seconds the server may take to list its models.
LIST_TIMEOUT = 3.0
#: A model list larger than this is not one.
MAX_LIST_BYTES = 4 * 1024 * 1024


def n_ctx_of(entry: Any) -> int | None:
    """llama.cpp's ``meta.n_ctx`` or vLLM's ``max_model_len`` of one /models entry."""
    if isinstance(entry, dict):
        meta = entry.get("meta")
        for value in (meta.get("n_ctx") if isinstance(meta, dict) else None, entry.get("max_model_len")):
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value
    return None


@dataclass(frozen=True)
class KnownModel:
    name: str
    """What to type in Model: ``provider/model``."""
    source: str
    """Where it is known from: ``price table``, ``built in`` or the server's URL."""
    context_window: int | None = None
    price: Price | None = None


def table_models(prices: dict[str, Price] | None = None) -> list[KnownModel]:
    """The price table's models (the config file's ``[prices]`` included), the
    ones their provider retires last, and the named local ones."""
    prices = load_prices() if prices is None else prices
    # Retiring models last, so that completing "anthropic/claude-so" offers a
    # model that will still answer next month.
    order = sorted(prices.items(), key=lambda item: (item[0] in RETIREMENTS, item[0]))
    known = [KnownModel(name, "price table", price=price) for name, price in order]
    return known + [KnownModel(f"local/{name}", "built in") for name in NAMED_MODELS]


def server_models(base_url: str, *, timeout: float = LIST_TIMEOUT) -> list[KnownModel]:
    """The models the OpenAI-compatible server at ``base_url`` (``.../v1``) serves,
    named ``openai/<id>``. Raises :class:`LLMError` in one line when it cannot say."""
    where = display_url(base_url)
    url = base_url.rstrip("/") + "/models"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # the user's own server
            raw = response.read(MAX_LIST_BYTES + 1)
    except urllib.error.HTTPError as exc:
        raise LLMError(f"{where} answered {exc.code} to /models: is it an OpenAI-compatible server (…/v1)?") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise LLMError(f"could not reach {where}: is the server running? ({reason})") from None
    try:
        data = json.loads(raw[:MAX_LIST_BYTES]).get("data")
    except (ValueError, AttributeError):
        data = None
    if not isinstance(data, list):
        raise LLMError(f"{where}/models is not a model list: is it an OpenAI-compatible server (…/v1)?")
    return [
        KnownModel(f"openai/{entry['id']}", where, n_ctx_of(entry))
        for entry in data
        if isinstance(entry, dict) and isinstance(entry.get("id"), str) and entry["id"]
    ]
