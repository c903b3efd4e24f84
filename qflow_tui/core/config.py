"""The run-wide settings (model, limits, sandbox, seed...): their fields,
bounds and file. Each workflow's own settings are declared in its spec
(:mod:`qflow_tui.core.workflows.settings`) and kept here by workflow name.
Reading and checking them asks the workflows for their settings, so that lives
a layer up, in :mod:`qflow_tui.core.workflows.values`."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..locations import config_file
from .config_file import MAX_CONFIG_BYTES as MAX_CONFIG_BYTES  # re-exported: the limit is the config's
from .config_file import ConfigError as ConfigError  # re-exported: every setting raises it
from .config_file import edit_config
from .config_file import parse_config as parse_config  # re-exported: the workflows' values read it
from .llm.limits import CallLimits
from .llm.retry import RetryPolicy

if TYPE_CHECKING:
    from tomlkit import TOMLDocument

#: The ``effort`` levels the providers take (empty: not sent).
EFFORTS: tuple[str, ...] = ("low", "medium", "high", "xhigh", "max")


@dataclass
class RunConfig:
    """Everything a workflow run depends on besides the problem and the model."""

    model: str = "anthropic/claude-sonnet-5-5"
    """``provider/model``: anthropic/..., openai/..., script/<file.py>, replay/<session.jsonl>."""
    base_url: str | None = None
    """The provider's API root: an OpenAI-compatible server (``http://host:8080/v1``)
    or a preset (``ollama``, ``vllm``, ``lmstudio``, ``llamacpp``); for Anthropic a
    proxy. Unset: ANTHROPIC_BASE_URL or OPENAI_BASE_URL, whichever is the model's."""
    workflow: str = "qualityflow"
    """``qualityflow``; the peers ``agentcoder``, ``codetree``, ``adacoder``; ``zeroshot``
    (one program, unchecked). ``qflow workflows`` lists them with their settings."""
    temperature: float = 0.0
    """Sampling temperature of every model call (the papers: 0) but where a
    workflow's own setting says otherwise (QualityFlow's Test Designer: 0.1).
    Anthropic's current API takes none: the session still records it."""
    max_tokens: int = 4096
    """The longest answer one model call may write, in tokens; lower it for a
    small local context."""
    context_window: int = 0
    """The model's context window in tokens (0: unknown, or as the server reports
    it: llama.cpp says its ``n_ctx``). A prompt that cannot fit is refused before
    it is sent."""
    seed: int = -1
    """Sampling seed sent where the API takes one (OpenAI and compatible servers;
    -1: none). Makes a local server's runs repeatable."""
    call_timeout: float = 300.0
    """Seconds of wall time one model call may take (0: no limit). A call that
    runs over ends as that agent's failed answer, marked ``timeout``."""
    repetition_stop: bool = True
    """End a streamed answer whose tail has become one span repeated over and
    over (small models at temperature 0 loop until max_tokens); the answer is kept
    with the repetition collapsed, marked ``repetition``."""
    prompt_cache: bool = True
    """Ask the provider to cache each prompt's shared prefix where that pays
    (Anthropic: prompts of 1,024 tokens or more; a llama.cpp server keeps the
    prefix in its slot). OpenAI caches by itself either way."""
    effort: str = ""
    """How much a reasoning model thinks before it answers: ``low``, ``medium``,
    ``high``, ``xhigh`` or ``max`` (Anthropic's ``effort``, OpenAI's
    ``reasoning_effort``); empty: the model's own default, nothing sent. The
    Claude 5 models always think, billed as output tokens: ``low`` keeps that
    small. A model that does not reason refuses it."""
    threads: int = 0
    """CPU threads llama.cpp uses for a ``local/`` model (0: automatic, chosen
    when the model starts from the cores free then: the cores this process may
    use less the load average, at least 1). Other providers ignore it."""
    concurrency: int = 0
    """The most model calls in flight at once per provider (``--max-connections``);
    0: automatic (16 for a network provider, no limit for script and replay
    models). The limit adapts below it: halved when the provider says it is busy
    (429, overloaded), raised again as calls succeed."""
    retries: int = 5
    """Attempts per model call in all when the provider is busy or the connection
    drops (1: never retry); 400/401/403/404 and a too-long prompt are never retried."""
    retry_wait: float = 120.0
    """The most seconds one call may spend waiting between its attempts."""
    test_timeout: float = 3.0
    """Seconds each test may run in the sandbox."""
    sandbox_warm: bool = True
    """Keep a few sandbox children booted ahead of need (bwrap, Python and the
    harness loaded, each used by one program only), so that a run pays for its
    own work only; off: each run starts its own. ``qflow doctor`` shows their
    number and memory."""
    truth_cache: bool = True
    """Keep the ground truth of ``qflow bench``'s HumanEval+ and MBPP+ checks
    (each input's expected output and the reference's time, which sets the
    input's time limit) in the user cache folder, as EvalPlus keeps its own,
    so that later runs do not compute it again; off: computed every run.
    Never used at an isolation level that lets a program reach your files."""
    theme: str = "qflow-dark"
    """The app's look: ``qflow-dark``, ``qflow-light``, a theme file's name from
    ``themes/`` or any Textual theme; remembered when changed in the app."""
    fallback_model: str | None = None
    """With a replay model: the live model that answers calls the recording lacks."""
    workflow_settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Each workflow's own settings as given, by workflow name, then by key:
    from its ``[workflow.<name>]`` table, the environment, the flags (the
    chosen workflow's) or a recorded session. A setting not given takes its
    definition's default (``Setting.of`` reads one; ``resolved_settings`` all
    of the run's workflow's)."""

    def call_limits(self) -> CallLimits:
        """The limits every model call of the run is held to."""
        return CallLimits(time_limit=self.call_timeout or None, repetition_stop=self.repetition_stop)

    def retry_policy(self) -> RetryPolicy:
        """When a failed model call of the run is tried again."""
        return RetryPolicy(attempts=self.retries, max_total_wait=self.retry_wait)

    def run_wide(self) -> dict[str, Any]:
        """The run-wide settings (every field but the workflows' own and the
        theme, which is how this user looks at runs, not a setting of the run).
        No secrets live in RunConfig."""
        data = {f: getattr(self, f) for f in FIELDS if f not in ("theme", "workflow_settings")}
        return data

    def replace(self, **changes: Any) -> RunConfig:
        """A copy with ``changes``; a key that is not a field is a setting of
        the run's workflow (the one ``changes`` chooses, if it does)."""
        others = {k: changes.pop(k) for k in list(changes) if k not in FIELDS}
        copy = dataclasses.replace(self, **changes)
        return copy.with_settings(others) if others else copy

    def with_settings(self, values: Mapping[str, object], workflow: str | None = None) -> RunConfig:
        """A copy in which ``workflow``'s own settings (the run's workflow's by
        default) have ``values`` on top of those already given."""
        name = workflow or self.workflow
        tables = {k: dict(v) for k, v in self.workflow_settings.items()}
        tables[name] = {**tables.get(name, {}), **values}
        return dataclasses.replace(self, workflow_settings=tables)


#: The fields of :class:`RunConfig` by name; any other setting is a plugin workflow's.
FIELDS = {f.name: f for f in dataclasses.fields(RunConfig)}

#: The bounds of the run-wide numbers (the workflows' own settings carry theirs
#: in their :class:`Setting`; the sandbox's time limit is the sandbox's own):
#: ``name: (lowest, highest, what the value is, in words)``.
BOUNDS: dict[str, tuple[float, float, str]] = {
    "max_tokens": (1, 10_000_000, "tokens per answer"),
    "context_window": (0, 100_000_000, "tokens (0: unknown)"),
    "seed": (-1, 2**31 - 1, "a sampling seed (-1: none)"),
    "concurrency": (0, 10_000, "calls in flight (0: automatic)"),
    "threads": (0, 1024, "CPU threads for a local model (0: automatic)"),
    "retries": (1, 100, "attempts per call (1: never retry)"),
    "temperature": (0.0, 2.0, "a sampling temperature"),
    "call_timeout": (0.0, 86_400.0, "seconds per model call (0: no limit)"),
    "retry_wait": (0.0, 86_400.0, "seconds of waiting between attempts"),
}
#: Whole numbers beyond this are refused whatever the setting: no setting
#: means them, and some consumers (SQLite, C APIs) cannot hold them.
MAX_WHOLE = 2**53


#: Settings a ``[models."provider/name"]`` table of the config file may set for one model.
MODEL_SETTINGS = (
    "max_tokens",
    "call_timeout",
    "temperature",
    "seed",
    "base_url",
    "repetition_stop",
    "context_window",
    "prompt_cache",
    "effort",
    "threads",
)


def make_config(values: dict[str, Any]) -> RunConfig:
    """A RunConfig of coerced ``values``; a key that is not a field is a
    setting of the chosen workflow (:attr:`RunConfig.workflow_settings`)."""
    fields = {k: v for k, v in values.items() if k in FIELDS}
    others = {k: v for k, v in values.items() if k not in FIELDS}
    config = RunConfig(**fields)
    return config.with_settings(others) if others else config


def save_setting(key: str, value: object, path: Path | None = None) -> None:
    """Remember one setting (e.g. the theme) in the user's config file, keeping
    the rest of it as the user wrote it: comments, order and layout (tomlkit).
    A file that is not valid TOML is left alone: raises :class:`ConfigError`."""

    def put(doc: TOMLDocument, empty: bool) -> None:
        if "run" in doc or empty:
            if "run" not in doc:
                doc["run"] = {}  # a [run] table (tomlkit makes one of a dict)
            doc["run"][key] = value
        else:
            doc[key] = value  # the settings at the top level, as the user keeps them

    edit_config(path or config_file(), key, put)
