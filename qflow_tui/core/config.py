"""Run settings, with the paper's defaults (QualityFlow Appendix A), and how they
are read: built-in defaults < the user's TOML file < environment < flags."""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .llm.limits import CallLimits
from .llm.retry import RetryPolicy

Checker = Literal["imagined", "python", "yesno", "none"]
CHECKERS: tuple[str, ...] = ("imagined", "python", "yesno", "none")


class ConfigError(ValueError):
    """A setting with a wrong value; the message names the setting and the file."""


@dataclass
class RunConfig:
    """Everything a workflow run depends on besides the problem and the model."""

    model: str = "anthropic/claude-sonnet-4-5"
    """``provider/model``: anthropic/..., openai/..., script/<file.py>, replay/<session.jsonl>."""
    base_url: str | None = None
    """The provider's API root: an OpenAI-compatible server (``http://host:8080/v1``)
    or a preset (``ollama``, ``vllm``, ``lmstudio``, ``llamacpp``); for Anthropic a
    proxy. Unset: ANTHROPIC_BASE_URL or OPENAI_BASE_URL, whichever is the model's."""
    workflow: str = "qualityflow"
    """``qualityflow``; the peers ``agentcoder``, ``codetree``, ``adacoder``; ``zeroshot``
    (one program, unchecked). ``qflow workflows`` lists them with their settings."""
    checker: Checker = "imagined"
    """Code Quality Checker: ``imagined`` (Imagined Execution, the standard setting),
    ``python`` (the relaxed setting: run the visible tests), ``yesno`` (the paper's
    baseline critic), ``none`` (no checks: every step runs)."""
    prompts: int = 6
    """Diversified Prompting: program-generator prompt variants, run as parallel progressions."""
    epochs: int = 3
    """Self-debug epochs per progression, each with a different debug prompt."""
    clarify: int = 3
    """Problem Clarifier attempts per progression."""
    tqc: bool = True
    """Filter synthesized tests with the Test Quality Checker."""
    revert: bool = True
    """Revert to the first generated program when no check accepts (Appendix D ablation: off)."""
    iterations: int = 5
    """AgentCoder: programmer/test-executor refinement iterations (RQ3 of its paper: up to 5);
    AdaCoder: Phase 2 iterations t (its paper's default 5)."""
    budget: int = 20
    """CodeTree: generation budget, the most programs the search writes (its paper: 20)."""
    depth: int = 3
    """CodeTree: maximum search depth d (its paper's Table 3: 3)."""
    width: int = 3
    """CodeTree: maximum search width w, strategies or children per node (its paper's Table 3: 3)."""
    search: str = "critic"
    """CodeTree: ``critic`` (the Critic guides the search), ``bfs`` or ``dfs`` (no Critic)."""
    test_rounds: int = 5
    tests_per_round: int = 10
    max_tests: int = 50
    temperature: float = 0.0
    test_designer_temperature: float = 0.1
    max_tokens: int = 4096
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
    theme: str = "qflow-dark"
    fallback_model: str | None = None
    """With a replay model: the live model that answers calls the recording lacks."""
    workflow_settings: dict[str, Any] = field(default_factory=dict)
    """The settings of workflows that are not built in (a plugin's), by key: from
    their ``[workflow.<name>]`` table, their flags or a recorded session. The
    built-in workflows' settings are the fields above."""

    def setting(self, key: str) -> Any:
        """A workflow setting's value, wherever it is kept."""
        if key in _FIELDS:
            return getattr(self, key)
        if key in self.workflow_settings:
            return self.workflow_settings[key]
        from .workflows.settings import find_setting

        found = find_setting(key)
        if found is None:
            raise ConfigError(f"unknown setting {key!r}: `qflow workflows` lists every workflow's settings")
        return found.default

    def validate(self) -> RunConfig:
        # The workflows' own settings are checked by their definitions (one source
        # of truth for the flags, the config file and the compose form).
        from .workflows import get_workflow
        from .workflows.settings import all_settings

        get_workflow(self.workflow)
        known = all_settings()
        for key in self.workflow_settings:
            if key in _FIELDS or all(s.key != key for s in known):
                raise ConfigError(f"unknown setting {key!r}: `qflow workflows` lists every workflow's settings")
        for setting in known:
            setting.check(self.setting(setting.key))
        for name in ("test_rounds", "tests_per_round", "max_tests", "max_tokens", "retries"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1")
        if self.context_window < 0:
            raise ConfigError("context_window must be a number of tokens (0: unknown)")
        if self.concurrency < 0:
            raise ConfigError("concurrency (--max-connections) must be 0 (automatic) or more")
        if self.retry_wait < 0:
            raise ConfigError("retry_wait must be a number of seconds")
        if self.call_timeout < 0:
            raise ConfigError("call_timeout must be a number of seconds (0 for no limit)")
        if self.test_timeout <= 0:
            raise ConfigError("test_timeout must be a positive number of seconds")
        return self

    def call_limits(self) -> CallLimits:
        """The limits every model call of the run is held to."""
        return CallLimits(time_limit=self.call_timeout or None, repetition_stop=self.repetition_stop)

    def retry_policy(self) -> RetryPolicy:
        """When a failed model call of the run is tried again."""
        return RetryPolicy(attempts=self.retries, max_total_wait=self.retry_wait)

    def public_dict(self) -> dict[str, Any]:
        """The settings as recorded in a session (no secrets live in RunConfig).
        The theme is how this user looks at runs, not a setting of the run."""
        data = dataclasses.asdict(self)
        del data["theme"]
        return data

    def replace(self, **changes: Any) -> RunConfig:
        """A copy with ``changes``; a key that is not a field is a plugin
        workflow's setting (:attr:`workflow_settings`)."""
        others = {k: changes.pop(k) for k in list(changes) if k not in _FIELDS}
        if others:
            changes["workflow_settings"] = {**self.workflow_settings, **others}
        return dataclasses.replace(self, **changes)


_FIELDS = {f.name: f for f in dataclasses.fields(RunConfig)}

#: Settings a ``[models."provider/name"]`` table of the config file may set for one model.
MODEL_SETTINGS = (
    "max_tokens",
    "call_timeout",
    "temperature",
    "seed",
    "base_url",
    "repetition_stop",
    "context_window",
)


def make_config(values: dict[str, Any]) -> RunConfig:
    """A RunConfig of coerced ``values``; a key that is not a field is a plugin
    workflow's setting and goes to :attr:`RunConfig.workflow_settings`."""
    fields = {k: v for k, v in values.items() if k in _FIELDS}
    others = {k: v for k, v in values.items() if k not in _FIELDS}
    if others:
        fields["workflow_settings"] = {**fields.get("workflow_settings", {}), **others}
    return RunConfig(**fields)


def _coerce(name: str, value: Any, where: str) -> Any:
    if name == "workflow_settings":
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: workflow_settings must be a table of settings, not {value!r}")
        return {str(k): _coerce(str(k), v, where) for k, v in value.items()}
    if name in _FIELDS:
        default = getattr(RunConfig(), name)
    else:
        from .workflows.settings import find_setting

        setting = find_setting(name)
        if setting is None:
            raise ConfigError(f"{where}: unknown setting {name!r}; `qflow workflows` lists every workflow's settings")
        default = setting.default
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
            return value.lower() in ("1", "true", "yes", "on")
        raise ConfigError(f"{where}: {name} must be true or false, not {value!r}")
    if isinstance(default, int) and not isinstance(default, bool):
        try:
            return int(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}: {name} must be a whole number, not {value!r}") from None
    if isinstance(default, float):
        try:
            return float(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}: {name} must be a number, not {value!r}") from None
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"{where}: {name} must be a string, not {value!r}")
    return value


def load_config(
    path: Path | None = None,
    *,
    env: dict[str, str] | None = None,
    overrides: dict[str, Any] | None = None,
) -> RunConfig:
    """Defaults, then the TOML file (``[run]`` table or top level), then
    QFLOW_* environment variables, then explicit overrides (command-line flags)."""
    from ..locations import config_file

    env = dict(os.environ) if env is None else env
    values: dict[str, Any] = {}
    path = path or config_file()
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc}); fix or delete the file") from None
        table = data.get("run", data)
        models = data.get("models", {})
        for key, value in table.items():
            if key in ("models", "workflow") and table is data and isinstance(value, dict):
                continue
            if key not in _FIELDS:
                raise ConfigError(f"{path}: unknown setting {key!r}; known: {', '.join(sorted(_FIELDS))}")
            values[key] = _coerce(key, value, str(path))
        tables = data.get("workflow", {})
        if isinstance(tables, dict) or table is not data:  # at the top level, ``workflow = "name"`` chooses one
            values.update(_workflow_tables(tables, path))
        model_table = _model_table(models, path)
    else:
        model_table = {}
    for key in _FIELDS:
        var = f"QFLOW_{key.upper()}"
        if var in env:
            values[key] = _coerce(key, env[var], var)
    explicit: dict[str, Any] = {}
    for key, value in (overrides or {}).items():
        if value is not None:
            explicit[key] = _coerce(key, value, f"--{key.replace('_', '-')}")
    # The chosen model's own settings sit above the run-wide ones of the file
    # but below the environment and the flags.
    model = explicit.get("model") or values.get("model") or RunConfig.model
    for key, value in model_table.get(model, {}).items():
        if key not in explicit and f"QFLOW_{key.upper()}" not in env:
            values[key] = value
    values.update(explicit)
    return make_config(values).validate()


def _workflow_tables(tables: Any, path: Path) -> dict[str, Any]:
    """``[workflow.codetree]`` tables: each workflow's own settings."""
    from .workflows import get_workflow

    if not isinstance(tables, dict):
        raise ConfigError(f"{path}: give a workflow's settings as a table, e.g. [workflow.codetree] budget = 10")
    out: dict[str, Any] = {}
    for name, settings in tables.items():
        where = f"{path} [workflow.{name}]"
        if not isinstance(settings, dict):
            raise ConfigError(f"{where}: give settings as a table, e.g. [workflow.{name}] followed by key = value")
        try:
            keys = [s.key for s in get_workflow(name).settings]
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        for key, value in settings.items():
            if key not in keys:
                known = ", ".join(keys) or "none"
                raise ConfigError(f"{where}: {name} has no setting {key!r}; its settings: {known}")
            out[key] = _coerce(key, value, where)
    return out


def _model_table(models: Any, path: Path) -> dict[str, dict[str, Any]]:
    """``[models."openai/qwen2.5-coder"]`` tables: settings for one model."""
    if not isinstance(models, dict):
        raise ConfigError(f'{path}: models must be tables, e.g. [models."openai/gpt-4.1"]')
    out: dict[str, dict[str, Any]] = {}
    for name, settings in models.items():
        where = f'{path} [models."{name}"]'
        if not isinstance(settings, dict):
            raise ConfigError(f'{where}: give settings as a table, e.g. [models."{name}"] max_tokens = 1024')
        out[name] = {}
        for key, value in settings.items():
            if key not in MODEL_SETTINGS:
                raise ConfigError(f"{where}: unknown setting {key!r}; known: {', '.join(MODEL_SETTINGS)}")
            out[name][key] = _coerce(key, value, where)
    return out


def save_setting(key: str, value: Any, path: Path | None = None) -> None:
    """Remember one setting (e.g. the theme) in the user's config file, keeping
    the rest of it as the user wrote it: comments, order and layout (tomlkit).
    A file that is not valid TOML is left alone: raises :class:`ConfigError`."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    from ..locations import config_file

    path = path or config_file()
    text = ""
    if path.exists():
        try:
            text = path.read_text(encoding="utf-8")
            doc = tomlkit.parse(text)
        except (TOMLKitError, UnicodeDecodeError) as exc:
            why = f"{path}: not valid TOML ({exc}); not saving {key} there, fix or delete the file"
            raise ConfigError(why) from None
    else:
        doc = tomlkit.document()
    if "run" in doc or not text.strip():
        table = doc.get("run")
        if table is None:
            table = tomlkit.table()
            doc["run"] = table
    else:
        table = doc  # the settings at the top level, as the user keeps them
    table[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(tomlkit.dumps(doc), encoding="utf-8")
