"""What a run's tokens cost, where the price is known.

A small built-in table of list prices (US dollars per million tokens, dated:
prices change, so every figure says when it was read), which a
``[prices."provider/model"]`` table in the config file extends or overrides::

    [prices."openai/gpt-4.1"]
    input = 2.0
    output = 8.0
    as_of = "2026-11-01"

A model run in the app (``local/``), a script and a replay cost nothing; any
other model without a price is "unpriced", never a guess.
"""

from __future__ import annotations

import tomllib
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


#: List prices as published by the providers when this table was written.
BUILT_IN: dict[str, Price] = {
    "anthropic/claude-sonnet-4-5": Price(3.0, 15.0, "2025-10-01"),
    "anthropic/claude-opus-4-1": Price(15.0, 75.0, "2025-10-01"),
    "anthropic/claude-haiku-4-5": Price(1.0, 5.0, "2025-10-15"),
    "openai/gpt-4.1": Price(2.0, 8.0, "2025-10-01"),
    "openai/gpt-4.1-mini": Price(0.4, 1.6, "2025-10-01"),
    "openai/gpt-4o": Price(2.5, 10.0, "2025-10-01"),
    "openai/gpt-4o-mini": Price(0.15, 0.6, "2025-10-01"),
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
            prices[model] = Price(float(entry["input"]), float(entry["output"]), str(entry.get("as_of", "")))
        except (KeyError, TypeError, ValueError):
            raise PriceError(f"{where}: needs input = and output = in dollars per million tokens") from None
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
    per_agent = {
        agent: round((t.get("input", 0) * price.input + t.get("output", 0) * price.output) / 1e6, 6)
        for agent, t in sorted(tokens.items())
    }
    return {
        "currency": "USD",
        "total": round(sum(per_agent.values()), 6),
        "per_agent": per_agent,
        "prices_as_of": price.as_of,
    }
