"""``qflow models``: the models you can name with ``--model``: the price table's
(with their dated prices), the named local ones, and, with ``--base-url`` (a URL
or a preset: ollama, vllm, lmstudio, llamacpp), the models that server reports,
with its context window where it says it."""

from __future__ import annotations

import argparse
import datetime
import json
from typing import TYPE_CHECKING

from ..core.safe_text import one_line
from . import Subparsers, fail

if TYPE_CHECKING:  # types only: the modules load when the command runs
    from ..core.llm.catalog import KnownModel


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser("models", help="list the models you can name, and a local server's", description=__doc__)
    p.add_argument("--base-url", help="also list what this OpenAI-compatible server serves (a URL or a preset)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def _price(known: KnownModel) -> str:
    p = known.price
    if p is None:
        return ""
    if not (p.input or p.output):
        return "free"
    return f"${p.input:g} in / ${p.output:g} out per Mtok (cached ${p.cache_read:g}), as of {p.as_of or '?'}"


def today() -> str:
    """Today as YYYY-MM-DD (a function, so a test can set the day)."""
    return datetime.date.today().isoformat()


def _retires(known: KnownModel) -> str:
    """ "retires DAY: use X" before the day, "retired DAY: use X" from it on."""
    from ..core.llm.prices import RETIREMENTS

    gone = RETIREMENTS.get(known.name)
    if gone is None:
        return ""
    verb = "retired" if today() >= gone.on else "retires"
    return f"{verb} {gone.on}: use {gone.instead}"


def run(args: argparse.Namespace) -> int:
    from ..core.llm import LLMError, resolve_base_url
    from ..core.llm.catalog import MAX_LISTED, server_model_list, table_models
    from ..core.llm.prices import PriceError

    try:
        known = table_models()
    except PriceError as exc:
        return fail(str(exc))
    cut = ""
    cut_json = None
    if args.base_url:
        # Asked for a server: one that cannot say is one line and a failure, not
        # a catalog that reads as if the server had answered.
        try:
            url = resolve_base_url("openai", args.base_url)
            assert url is not None
            listed = server_model_list(url)
        except LLMError as exc:
            return fail(str(exc), code=1)
        known = listed.models + known
        if listed.cut:
            # A list cut short says so: the models past the cut can still be named.
            where = listed.where
            cut = (
                f"{where} offers {listed.offered} models: only the first {MAX_LISTED} are listed here; "
                "any of the others can still be named as openai/<id>"
            )
            cut_json = {"server": where, "offered": listed.offered, "listed": MAX_LISTED}
    if args.json:
        rows = [
            {
                "model": k.name,
                "source": k.source,
                "context_window": k.context_window,
                "price": _price(k) or None,
                "retires": _retires(k) or None,
            }
            for k in known
        ]
        print(json.dumps({"models": rows, "cut": cut_json}, indent=2))
        return 0
    names = [one_line(k.name, 200) for k in known]  # a server's ids are its own text
    width = max(len(n) for n in names)
    for name, k in zip(names, known, strict=True):
        window = f"{k.context_window} tokens" if k.context_window else ""
        extra = "  ".join(x for x in (one_line(k.source, 200), window, _price(k), _retires(k)) if x)
        print(f"{name:<{width}}  {extra}")
    if cut:
        print(f"({cut})")
    return 0
