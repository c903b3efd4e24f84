"""What a run's tokens cost, where the price is known.

A small built-in table of list prices (US dollars per million tokens, dated:
prices change, so every figure says when it was read), which a
``[prices."provider/model"]`` table in the config file extends or overrides::

    [prices."openai/gpt-4.1"]
    input = 2.0
    output = 8.0
    cache_read = 0.5     # optional: prompt tokens served from the cache
    cache_write = 2.0    # optional: prompt tokens written to it
    as_of = "2026-11-01"

Cached prompt tokens are priced apart: Anthropic reads at a tenth of the input
price and writes (5-minute cache) at 1.25x; OpenAI reads at its published
discount and charges nothing extra to write. A price given without cache rates
takes the provider's usual ratios.

A model run in the app (``local/``), a script and a replay cost nothing; any
other model without a price is "unpriced", never a guess.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...locations import config_file
from ..config_file import ConfigError, read_config_text
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

    def cost(self, tally: Mapping[str, int]) -> float:
        """US dollars for a tally (``input`` holds the cached parts; each part at its rate)."""
        read, write = tally.get("cache_read", 0), tally.get("cache_write", 0)
        fresh = max(0, tally.get("input", 0) - read - write)
        read_rate = self.input if self.cache_read is None else self.cache_read
        write_rate = self.input if self.cache_write is None else self.cache_write
        return (fresh * self.input + read * read_rate + write * write_rate + tally.get("output", 0) * self.output) / 1e6


#: The providers' cache prices as shares of the input price, for a price given without them.
CACHE_RATIOS = {"anthropic": (0.1, 1.25), "openai": (0.5, 1.0)}


def with_cache_rates(model: str, input: float, output: float, as_of: str, read: float | None = None) -> Price:
    """A price whose cache rates follow the model's provider (or ``read`` where published)."""
    ratio_read, ratio_write = CACHE_RATIOS.get(model.partition("/")[0], (1.0, 1.0))
    return Price(input, output, as_of, input * ratio_read if read is None else read, input * ratio_write)


#: List prices as published by the providers when this table was written.
BUILT_IN: dict[str, Price] = {
    "anthropic/claude-sonnet-4-5": with_cache_rates("anthropic/", 3.0, 15.0, "2025-10-01"),
    "anthropic/claude-opus-4-1": with_cache_rates("anthropic/", 15.0, 75.0, "2025-10-01"),
    "anthropic/claude-haiku-4-5": with_cache_rates("anthropic/", 1.0, 5.0, "2025-10-15"),
    "openai/gpt-4.1": with_cache_rates("openai/", 2.0, 8.0, "2025-10-01", read=0.5),
    "openai/gpt-4.1-mini": with_cache_rates("openai/", 0.4, 1.6, "2025-10-01", read=0.1),
    "openai/gpt-4o": with_cache_rates("openai/", 2.5, 10.0, "2025-10-01", read=1.25),
    "openai/gpt-4o-mini": with_cache_rates("openai/", 0.15, 0.6, "2025-10-01", read=0.075),
}


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
            prices[model] = Price(base.input, base.output, base.as_of, read, write)
        except (KeyError, TypeError, ValueError):
            raise PriceError(
                f"{where}: needs input = and output = (and optionally cache_read =, cache_write =) "
                "in dollars per million tokens"
            ) from None
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


def run_cost(
    model: str, tokens: dict[str, dict[str, int]], prices: dict[str, Price], *, local: bool = False
) -> dict[str, Any]:
    """The ``cost`` of a run's summary: per agent and in total, in US dollars,
    or ``{"unpriced": model}``."""
    price = price_of(model, prices, local=local)
    if price is None:
        return {"unpriced": model}
    per_agent = {agent: round(price.cost(t), 6) for agent, t in sorted(tokens.items())}
    return {
        "currency": "USD",
        "total": round(sum(per_agent.values()), 6),
        "per_agent": per_agent,
        "prices_as_of": price.as_of,
    }
