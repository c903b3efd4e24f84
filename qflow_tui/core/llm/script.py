"""``script/<file.py>`` or ``script/<package.module>``: a Python module that
plays the model.

What follows ``script/`` is a file when it ends in ``.py`` or holds a ``/``
(a relative one is read from the current folder, see
:func:`resolve_script_path`), and otherwise the dotted name of an installed
module (``script/qflow_mapcoder.script_model``: Python names joined by dots,
no ``.py``, no slash), imported as Python imports it, so a plugin package can
ship a script model that works from any folder.

The module defines ``respond(request: dict) -> str`` (plain or async). The
request dict is :meth:`LLMRequest.as_script_request`. The answer is streamed back
in chunks like a real model's output. A module may set ``STREAM_DELAY`` (seconds
between chunks) to make streaming visible in the app.
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from ..safe_text import valid_text
from .base import (
    TOKEN_RE,
    Completion,
    DeltaCallback,
    LLMError,
    LLMRequest,
    ScriptRequest,
    estimated_completion,
)

_CHUNK_RE = re.compile(r"\S+\s*|\s+")


#: The folder that holds the ``qflow_tui`` package: a checkout's top, or site-packages.
_PACKAGE_PARENT = Path(__file__).resolve().parents[3]


def resolve_script_path(path: str | Path) -> Path:
    """Where a script model's file is. A relative path is read from the current
    folder; one that starts with ``qflow_tui/`` and is not there names a file the
    package ships (the demo's responder), found wherever qflow is installed, so a
    session recorded with it can be forked or re-run from any folder."""
    p = Path(path).expanduser()
    if not p.is_absolute() and not p.exists() and p.parts[:1] == ("qflow_tui",):
        packaged = _PACKAGE_PARENT / p
        if packaged.is_file():
            return packaged
    return p


#: A dotted module name: Python names joined by dots.
_MODULE_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", re.ASCII)

#: What ``script/`` takes, said when it names nothing.
SCRIPT_FORMS = "give script/<path to a .py file>, or script/<package.module> of an installed package"


def script_module_name(spec: str | Path) -> str | None:
    """The installed module ``script/<spec>`` names, or None when ``spec`` is
    a file's path: one ending in ``.py`` or holding a slash is a path; Python
    names joined by dots (``qflow_mapcoder.script_model``) are a module."""
    text = str(spec)
    if isinstance(spec, Path) or text.endswith(".py") or "/" in text or "\\" in text:
        return None
    return text if _MODULE_NAME.fullmatch(text) else None


def script_missing(spec: str | Path) -> str | None:
    """One line saying that ``script/<spec>`` names no file or installed
    module; None when it does (whether it loads is :func:`load_script_module`'s word)."""
    name = script_module_name(spec)
    if name is None:
        if resolve_script_path(spec).is_file():
            return None
        return f"script model {str(spec)!r}: no such file ({SCRIPT_FORMS})"
    try:
        found = importlib.util.find_spec(name)
    except Exception:  # its parent package is not installed, or fails to import
        found = None
    return None if found is not None else f"script model {name!r}: no such module is installed ({SCRIPT_FORMS})"


def load_script_module(path: str | Path) -> ModuleType:
    name = script_module_name(path)
    if name is not None:
        if missing := script_missing(name):
            raise LLMError(missing)
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # the plugin's responder failed to import
            raise LLMError(f"script model {name!r} failed to load: {type(exc).__name__}: {exc}") from exc
        if not callable(getattr(module, "respond", None)):
            raise LLMError(f"script model {name!r} defines no respond(request) function")
        return module
    p = resolve_script_path(path)
    if not p.is_file():
        raise LLMError(f"script model {str(path)!r}: no such file ({SCRIPT_FORMS})")
    name = f"qflow_script_{abs(hash(str(p.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:
        raise LLMError(f"script model {str(path)!r}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's own responder failed to import
        sys.modules.pop(name, None)
        raise LLMError(f"script model {str(path)!r} failed to load: {type(exc).__name__}: {exc}") from exc
    if not callable(getattr(module, "respond", None)):
        raise LLMError(f"script model {str(path)!r} defines no respond(request) function")
    return module


def cut_at_max_tokens(text: str, max_tokens: int) -> tuple[str, bool]:
    """The text a real model would have sent within ``max_tokens`` (counted as
    :func:`estimate_tokens` counts), and whether it had to be cut."""
    for count, match in enumerate(TOKEN_RE.finditer(text), start=1):
        if count > max_tokens:
            return text[: match.start()].rstrip(" "), True
    return text, False


def chunk_text(text: str, words_per_chunk: int = 3) -> list[str]:
    """Split text into small pieces (a few words each) as a model would stream it."""
    parts = _CHUNK_RE.findall(text)
    return ["".join(parts[i : i + words_per_chunk]) for i in range(0, len(parts), words_per_chunk)]


class ScriptClient:
    """The ``script/<file.py>`` model: a Python file plays the model. Its
    ``respond(request)`` is given each call as a :class:`ScriptRequest` dict
    and returns the answer's text (or an awaitable of it); the answer is
    streamed in chunks, ``STREAM_DELAY`` seconds apart when the file sets it.
    A provider plugin can wrap one to answer without a network."""

    def __init__(self, path: str | Path, *, stream_delay: float | None = None) -> None:
        self.path = str(path)
        self.name = f"script/{self.path}"
        module = load_script_module(path)
        self._respond = module.respond
        self._delay = stream_delay if stream_delay is not None else float(getattr(module, "STREAM_DELAY", 0.0))
        known = getattr(module, "KNOWN_ENTRY_POINTS", None)
        self.known_entry_points: tuple[str, ...] | None = (
            tuple(str(k) for k in known) if isinstance(known, list | tuple) else None
        )
        """The functions the script answers for (its ``KNOWN_ENTRY_POINTS``), if it says:
        a problem with another entry point gets answers written for another problem."""

    @classmethod
    def from_function(
        cls, respond: Callable[[ScriptRequest], object], *, name: str = "inline", stream_delay: float = 0.0
    ) -> ScriptClient:
        """A script model from a callable, for tests and embedding: ``respond``
        returns the answer's text, or an awaitable of it (an async function)."""
        self = cls.__new__(cls)
        self.path = name
        self.name = f"script/{name}"
        self._respond = respond
        self._delay = stream_delay
        self.known_entry_points = None
        return self

    async def complete(self, request: LLMRequest, on_delta: DeltaCallback) -> Completion:
        start = time.perf_counter()
        payload = request.as_script_request()
        try:
            if inspect.iscoroutinefunction(self._respond):
                text = await self._respond(payload)
            else:
                text = self._respond(payload)
        except LLMError:
            raise  # a script may play a provider's own failures, fatal ones included
        except Exception as exc:
            raise LLMError(
                f"script model {self.path!r} has no answer for this {request.agent} call (turn {request.turn}): "
                f"it raised {type(exc).__name__}: {exc}; a script model answers only the problems it was written for"
            ) from exc
        if not isinstance(text, str):
            raise LLMError(
                f"script model {self.path!r} returned {type(text).__name__} for agent {request.agent}; "
                "respond() must return a str"
            )
        # A script's text may hold lone surrogates (a "\ud800" in its source): as
        # a provider's stream would be, it is made valid before anyone sees it.
        text = valid_text(text)
        # Like a real model, a script is cut off at the request's max_tokens.
        text, cut = cut_at_max_tokens(text, request.max_tokens)
        for piece in chunk_text(text):
            on_delta(piece)
            # Yield to the loop between chunks so concurrent calls interleave as real
            # streams do, and the UI gets to paint.
            await asyncio.sleep(self._delay)
        return estimated_completion(request, text, start, cut=cut)

    async def aclose(self) -> None:
        return None
