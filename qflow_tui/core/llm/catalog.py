"""The models a user can name: those of the dated price table, the named local
models, and what an OpenAI-compatible server's ``/v1/models`` reports (with its
context window where it says it). The compose form's Model field and ``qflow
models`` list the same."""

from __future__ import annotations

from dataclasses import dataclass

from ..safe_text import one_line
from ._http import display_url
from .base import LLMError
from .prices import RETIREMENTS, Price, load_prices
from .registry import PROVIDERS

#: Seconds the server may take to list its models.
LIST_TIMEOUT = 3.0
#: A model list larger than this is not one.
MAX_LIST_BYTES = 4 * 1024 * 1024
#: The most models of one server listed (the compose form completes from them).
MAX_LISTED = 10_000


def n_ctx_of(entry: object) -> int | None:
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
    ones their provider retires last, then the models each provider names
    (``local/smollm2``, a plugin provider's)."""
    prices = load_prices() if prices is None else prices
    # Retiring models last, so that completing "anthropic/claude-so" offers a
    # model that will still answer next month.
    order = sorted(prices.items(), key=lambda item: (item[0] in RETIREMENTS, item[0]))
    known = [KnownModel(name, "price table", price=price) for name, price in order]
    listed = {k.name for k in known}
    for prefix, provider in PROVIDERS.items():
        entry = PROVIDERS.entries.get(prefix)
        plugin = entry is not None and not entry.builtin
        source = f"provider plugin {entry.distribution or prefix}" if entry is not None and plugin else "built in"
        if provider.alone and prefix not in listed:
            listed.add(prefix)
            known.append(KnownModel(prefix, source))
        for model in provider.models:
            name = f"{prefix}/{model.name}"
            if name not in listed:
                listed.add(name)
                known.append(KnownModel(name, source))
    return known


@dataclass(frozen=True)
class ServerModels:
    """What one server's ``/models`` listed: the models kept (at most
    :data:`MAX_LISTED`) and how many entries its list held."""

    models: list[KnownModel]
    offered: int
    """Entries in the server's list, the ones past :data:`MAX_LISTED` included."""
    where: str = ""
    """The server, as it may be shown (no password)."""

    @property
    def cut(self) -> bool:
        """The server offered more than :data:`MAX_LISTED`: only the first are kept."""
        return self.offered > MAX_LISTED


def server_models(base_url: str, *, timeout: float = LIST_TIMEOUT) -> list[KnownModel]:
    """The models the OpenAI-compatible server at ``base_url`` (``.../v1``) serves,
    named ``openai/<id>``, within ``timeout`` seconds for the whole answer and
    :data:`MAX_LIST_BYTES`; an id is kept as the server spelled it only when it
    is plain text (one with control characters is shown cleaned and marked).
    Raises :class:`LLMError` in one line when it cannot say. At most
    :data:`MAX_LISTED`: :func:`server_model_list` says when the list was cut."""
    return server_model_list(base_url, timeout=timeout).models


def server_model_list(base_url: str, *, timeout: float = LIST_TIMEOUT) -> ServerModels:
    """:func:`server_models`, with how many models the server offered."""
    import httpx2  # the server is asked only here: launching the form needs neither

    from .bounded import ServerAnswerError, ask_json_sync

    where = display_url(base_url)
    url = base_url.rstrip("/") + "/models"
    try:
        status, body = ask_json_sync(url, deadline=timeout, max_bytes=MAX_LIST_BYTES)
    except ServerAnswerError as exc:
        raise LLMError(f"{where}/models: {exc}: is it an OpenAI-compatible server (…/v1)?") from None
    except (httpx2.HTTPError, OSError, ValueError) as exc:
        raise LLMError(f"could not reach {where}: is the server running? ({_reason(exc)})") from None
    if status != 200:
        raise LLMError(f"{where} answered {status} to /models: is it an OpenAI-compatible server (…/v1)?")
    return model_list_from(body, where)


def models_from(body: object, where: str) -> list[KnownModel]:
    """The models of a ``/models`` answer (its JSON, read within bounds), named
    ``openai/<id>``; :class:`LLMError` (one line) when it is not a model list."""
    return model_list_from(body, where).models


def model_list_from(body: object, where: str) -> ServerModels:
    """:func:`models_from`, with how many entries the list held."""
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        raise LLMError(f"{where}/models is not a model list: is it an OpenAI-compatible server (…/v1)?")
    known = []
    for entry in data[:MAX_LISTED]:
        name = entry.get("id") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name.strip():
            continue
        shown = one_line(name, 200)
        cleaned = f"{where} (its id is shown cleaned: it held control characters or ran long)"
        source = where if shown == name else cleaned
        known.append(KnownModel(f"openai/{shown}", source, n_ctx_of(entry)))
    return ServerModels(known, len(data), where)


def _reason(exc: BaseException) -> str:
    """The innermost operating-system cause of a connection failure, in words:
    ``[Errno 111] Connect call failed ('127.0.0.1', 11434)``. The chain can end in
    the HTTP library's own bookkeeping (an asyncio ``no running event loop`` raised
    while it cleaned up), which says nothing to a user: the last ``OSError`` on the
    way down is the reason; without one, the outermost message."""
    seen: set[int] = set()
    reason: BaseException = exc
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, OSError):
            reason = cause
        cause = cause.__cause__ or cause.__context__
    return one_line(str(reason) or type(reason).__name__, 200)
