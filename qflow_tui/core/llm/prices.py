"""What a run's tokens cost, where the price is known.

A small built-in table of list prices (US dollars per million tokens, dated:
prices change, so every figure says when it was read), which a
``[prices."provider/model"]`` table in the config file extends or overrides::

    [prices."openai/gpt-4.1"]
    input = 2.0
    output = 8.0
    cache_read = 0.5     # optional: prompt tokens served from the cache
    cache_write = 2.0    # optional: prompt tokens written to it
    cache_min_tokens = 1024  # optional: the shortest prompt the provider caches
    as_of = "2026-11-01"

Cached prompt tokens are priced apart: Anthropic reads at a tenth of the input
price and writes (5-minute cache) at 1.25x; OpenAI reads at its published
discount and charges nothing extra to write. A price given without cache rates
takes the provider's usual ratios.

The shortest prompt a provider caches depends on the model (Anthropic's docs,
read 2026-11-25 and 2026-11-27: 1,024 tokens for the Sonnet 5 line, Sonnet 4.6
and 4.5; 4,096 for Haiku 4.5 and Opus 4.5; OpenAI: 1,024): the table
says it per model, and the Anthropic client asks for caching only from there.

A model run in the app (``local/``), a script and a replay cost nothing; any
other model without a price is "unpriced", never a guess.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...locations import config_file
from ..config_file import ConfigError, read_config_text
from ._http import is_local
from .registry import providers


@dataclass(frozen=True)
class Price:
    input: float
    """US dollars per million input tokens."""
    output: float
    """US dollars per million output tokens."""
    as_of: str
    """When the price was read (YYYY-MM-DD)."""
    cache_read: float | None = None
    """US dollars per million prompt tokens read from the cache (None: the input price)."""
    cache_write: float | None = None
    """US dollars per million prompt tokens written to the cache (None: the input price)."""
    cache_min_tokens: int | None = None
    """The shortest prompt the provider caches for this model, in tokens (None:
    :data:`DEFAULT_CACHE_MIN_TOKENS`)."""

    def cost(self, tally: Mapping[str, float]) -> float:
        """US dollars for a tally (``input`` holds the cached parts; each part at its rate)."""
        read, write = tally.get("cache_read", 0), tally.get("cache_write", 0)
        fresh = max(0, tally.get("input", 0) - read - write)
        read_rate = self.input if self.cache_read is None else self.cache_read
        write_rate = self.input if self.cache_write is None else self.cache_write
        return (fresh * self.input + read * read_rate + write * write_rate + tally.get("output", 0) * self.output) / 1e6


#: The providers' cache prices as shares of the input price, for a price given without them.
CACHE_RATIOS = {"anthropic": (0.1, 1.25), "openai": (0.5, 1.0)}


#: The shortest cacheable prompt of a model the table does not say it for: the
#: lowest any current model has, so that caching is never left unasked where it pays.
DEFAULT_CACHE_MIN_TOKENS = 1024


def with_cache_rates(
    model: str,
    input: float,
    output: float,
    as_of: str,
    read: float | None = None,
    cache_min_tokens: int | None = None,
) -> Price:
    """A price whose cache rates follow the model's provider (or ``read`` where published)."""
    ratio_read, ratio_write = CACHE_RATIOS.get(model.partition("/")[0], (1.0, 1.0))
    return Price(
        input, output, as_of, input * ratio_read if read is None else read, input * ratio_write, cache_min_tokens
    )


#: List prices as published by the providers when this table was written.
#: Anthropic's, read 2026-11-27 from its model pages: Sonnet 5.5 (the current
#: Sonnet) and Sonnet 5 at $2/$10, Sonnet 5.5 reading its cache at $0.10 (half
#: Sonnet 5's $0.20), a 5-minute write at $2.50; Opus 5.5 at $4/$20; Sonnet 4.6
#: (legacy) and 4.5 (retiring, see :data:`RETIREMENTS`) at $3/$15; Haiku 4.5 at
#: $1/$5. The shortest cached prompt of the Sonnet 5 line is 1,024 tokens.
BUILT_IN: dict[str, Price] = {
    "anthropic/claude-sonnet-5-5": with_cache_rates(
        "anthropic/", 2.0, 10.0, "2026-11-27", read=0.1, cache_min_tokens=1024
    ),
    "anthropic/claude-sonnet-5": with_cache_rates("anthropic/", 2.0, 10.0, "2026-11-27", cache_min_tokens=1024),
    "anthropic/claude-opus-5-5": with_cache_rates("anthropic/", 4.0, 20.0, "2026-11-27"),
    "anthropic/claude-sonnet-4-6": with_cache_rates("anthropic/", 3.0, 15.0, "2026-11-27", cache_min_tokens=1024),
    "anthropic/claude-sonnet-4-5": with_cache_rates("anthropic/", 3.0, 15.0, "2025-10-01", cache_min_tokens=1024),
    "anthropic/claude-haiku-4-5": with_cache_rates("anthropic/", 1.0, 5.0, "2026-11-27", cache_min_tokens=4096),
    "openai/gpt-4.1": with_cache_rates("openai/", 2.0, 8.0, "2025-10-01", read=0.5, cache_min_tokens=1024),
    "openai/gpt-4.1-mini": with_cache_rates("openai/", 0.4, 1.6, "2025-10-01", read=0.1, cache_min_tokens=1024),
    "openai/gpt-4o": with_cache_rates("openai/", 2.5, 10.0, "2025-10-01", read=1.25, cache_min_tokens=1024),
    "openai/gpt-4o-mini": with_cache_rates("openai/", 0.15, 0.6, "2025-10-01", read=0.075, cache_min_tokens=1024),
}


@dataclass(frozen=True)
class Retirement:
    """A model its provider has announced it will stop serving."""

    on: str
    """The day it stops answering (YYYY-MM-DD)."""
    instead: str
    """The provider's recommended replacement, as ``provider/model``."""


#: Models their providers retire, as announced (Anthropic's model pages and its
#: SDK's deprecation list, read 2026-11-27). A run on one says so before its
#: first call, and ``qflow models`` marks it.
RETIREMENTS: dict[str, Retirement] = {
    "anthropic/claude-sonnet-4-5": Retirement("2026-11-30", "anthropic/claude-sonnet-5-5"),
    "anthropic/claude-sonnet-4-5-20250929": Retirement("2026-11-30", "anthropic/claude-sonnet-5-5"),
    "anthropic/claude-opus-4-5": Retirement("2027-01-22", "anthropic/claude-opus-5-5"),
    "anthropic/claude-opus-4-5-20251101": Retirement("2027-01-22", "anthropic/claude-opus-5-5"),
}


def retirement_notice(model: str, today: str) -> str | None:
    """One line for a run on a retiring or retired ``model`` (``today`` as
    YYYY-MM-DD), or None when its provider has announced no end for it."""
    gone = RETIREMENTS.get(model.strip().lower())
    if gone is None:
        return None
    if today >= gone.on:
        return f"{model} was retired on {gone.on}: its calls fail; choose {gone.instead} (--model or the form's Model)"
    return f"{model} retires on {gone.on}: choose {gone.instead} before then (--model or the form's Model)"


class PriceError(ValueError):
    """A price table in the config file that cannot be read; the message says where."""


def load_prices(path: Path | None = None) -> dict[str, Price]:
    """The built-in table with the config file's ``[prices]`` tables on top."""
    prices = dict(BUILT_IN)
    path = path or config_file()
    try:
        # Bounded, regular files only: the same read as load_config's.
        text = read_config_text(path)
        if text is None:
            return prices
        data = tomllib.loads(text)
    except (ConfigError, tomllib.TOMLDecodeError, RecursionError):
        return prices  # load_config reports a broken file
    table = data.get("prices", {})
    if not isinstance(table, dict):
        raise PriceError(f'{path}: prices must be tables, e.g. [prices."openai/gpt-4.1"] input = 2.0')
    for model, entry in table.items():
        where = f'{path} [prices."{model}"]'
        if not isinstance(entry, dict):
            raise PriceError(f"{where}: give input and output in dollars per million tokens")
        try:
            base = with_cache_rates(
                str(model), float(entry["input"]), float(entry["output"]), str(entry.get("as_of", ""))
            )
            read = float(entry["cache_read"]) if "cache_read" in entry else base.cache_read
            write = float(entry["cache_write"]) if "cache_write" in entry else base.cache_write
            if not all(math.isfinite(v) and v >= 0 for v in (base.input, base.output, read or 0.0, write or 0.0)):
                raise ValueError("a price below 0 or not finite")
        except (KeyError, TypeError, ValueError):
            raise PriceError(
                f"{where}: needs input = and output = (and optionally cache_read =, cache_write =) "
                "in dollars per million tokens, each 0 or more"
            ) from None
        least = entry.get("cache_min_tokens", BUILT_IN[model].cache_min_tokens if model in BUILT_IN else None)
        if least is not None and (not isinstance(least, int) or isinstance(least, bool) or least < 0):
            raise PriceError(f"{where}: cache_min_tokens must be a whole number of tokens, e.g. 1024")
        prices[model] = Price(base.input, base.output, base.as_of, read, write, least)
    return prices


def price_of(model: str, prices: dict[str, Price], *, local: bool = False) -> Price | None:
    """The price of ``model``: the table's; nothing for a model that runs on
    this machine (``local/``, a server on localhost, a script, a replay)."""
    if model in prices:
        return prices[model]
    provider = providers().get(model.partition("/")[0])
    if local or (provider is not None and provider.free):
        return Price(0.0, 0.0, "")
    return None


def cache_min_tokens(model: str, prices: dict[str, Price] | None = None) -> int:
    """The shortest prompt the provider caches for ``model``, in tokens, from the
    price table (the config file's included); the default where it does not say."""
    try:
        price = (load_prices() if prices is None else prices).get(model)
    except PriceError:  # solve and the app report a broken table; caching still works
        price = BUILT_IN.get(model)
    if price is None or price.cache_min_tokens is None:
        return DEFAULT_CACHE_MIN_TOKENS
    return price.cache_min_tokens


def run_price(model: str, base_url: str | None, prices: dict[str, Price] | None = None) -> Price | None:
    """What a run of ``model`` pays per token (None: unpriced), as its summary
    prices it: a server on this machine costs nothing unless the table names
    the model. Raises :class:`PriceError` for a config file it cannot read."""
    return price_of(model, load_prices() if prices is None else prices, local=is_local(str(base_url or "")))


def is_free(price: Price) -> bool:
    """A model that costs nothing to run (``local/``, a script, a replay, a local server)."""
    return not (price.input or price.output or price.cache_read or price.cache_write)


def agents_cost(price: Price, tokens: Mapping[str, Mapping[str, int]]) -> dict[str, float]:
    """US dollars per agent, rounded as a run's summary rounds them."""
    return {agent: round(price.cost(t), 6) for agent, t in sorted(tokens.items())}


def run_cost(
    model: str, tokens: dict[str, dict[str, int]], prices: dict[str, Price], *, local: bool = False
) -> dict[str, Any]:
    """The ``cost`` of a run's summary: per agent and in total, in US dollars,
    or ``{"unpriced": model}``."""
    price = price_of(model, prices, local=local)
    if price is None:
        return {"unpriced": model}
    per_agent = agents_cost(price, tokens)
    return {
        "currency": "USD",
        "total": round(sum(per_agent.values()), 6),
        "per_agent": per_agent,
        "prices_as_of": price.as_of,
    }
