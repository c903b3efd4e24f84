"""The values of a run's settings: read (built-in defaults < the user's TOML
file < environment < flags), coerced to each setting's type, checked against
its definition (a :class:`RunConfig` field or a workflow's :class:`Setting`)
and looked up. It asks the workflow registry, so it sits in the workflows
layer, above :mod:`qflow_tui.core.config`."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from ...locations import config_file
from ..config import (
    BOUNDS,
    EFFORTS,
    FIELDS,
    MAX_WHOLE,
    MODEL_SETTINGS,
    ConfigError,
    RunConfig,
    make_config,
    parse_config,
)
from ..safe_text import one_line, valid_text
from ..sandbox.config import timeout_problem
from . import WORKFLOWS, get_workflow
from .settings import Setting


def all_settings() -> list[Setting]:
    """Every workflow's settings, each key once (workflows may share a key, as
    AgentCoder and AdaCoder share ``iterations``)."""
    seen: dict[str, Setting] = {}
    for spec in WORKFLOWS.values():
        for setting in spec.settings:
            seen.setdefault(setting.key, setting)
    return list(seen.values())


def find_setting(key: str) -> Setting | None:
    """The setting called ``key`` of any workflow installed."""
    return next((s for s in all_settings() if s.key == key), None)


def setting_value(config: RunConfig, key: str) -> Any:
    """A workflow setting's value in ``config``, wherever it is kept: a field,
    :attr:`RunConfig.workflow_settings`, or else its definition's default."""
    if key in FIELDS:
        return getattr(config, key)
    if key in config.workflow_settings:
        return config.workflow_settings[key]
    found = find_setting(key)
    if found is None:
        raise ConfigError(f"unknown setting {key!r}: `qflow workflows` lists every workflow's settings")
    return found.default


def validate(config: RunConfig) -> RunConfig:
    """``config``, or :class:`ConfigError` (one line naming the setting) for
    the first value of a wrong type or out of its range (see
    :func:`value_problem`); a plugin workflow's settings are checked by their
    own definitions."""
    for name in FIELDS:
        if name == "workflow_settings":
            continue
        problem = value_problem(name, getattr(config, name))
        if problem:
            raise ConfigError(problem)
    known = {s.key for s in all_settings()}
    for key, value in config.workflow_settings.items():
        if key in FIELDS or key not in known:
            raise ConfigError(
                f"unknown setting {one_line(repr(key), 60)}: `qflow workflows` lists every workflow's settings"
            )
        problem = value_problem(key, value)
        if problem:
            raise ConfigError(problem)
    return config


def value_problem(name: str, value: Any) -> str | None:
    """Why ``value`` cannot be setting ``name`` (one line naming it and saying
    what to give), or None when it can: the type of the field's default, a
    finite number, and the range of the setting's own definition (a workflow's
    :class:`Setting`, :data:`~qflow_tui.core.config.BOUNDS`, the sandbox's time limits)."""
    if name in FIELDS:
        default = getattr(RunConfig, name, None)
    else:  # a plugin workflow's setting: its own definition's default says its type
        found = find_setting(name)
        default = found.default if found is not None else None
    kind = type(default)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            return f"{name} must be true or false, not {_shown(value)}"
        return None
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{name} must be a whole number, not {_shown(value)}"
        if abs(value) > MAX_WHOLE:
            return f"{name} is far too large ({_shown(value)}); give a sensible whole number"
    elif isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"{name} must be a number, not {_shown(value)}"
        if not math.isfinite(value):
            return f"{name} must be a finite number, not {value}"
    elif value is not None and not isinstance(value, str):
        return f"{name} must be text, not {_shown(value)}"
    if name == "workflow" and value not in WORKFLOWS:
        try:
            get_workflow(value)
        except ConfigError as exc:  # the workflows' own words for it
            return str(exc)
    if name == "model" and not value:
        return "model must name one, as provider/model (e.g. anthropic/claude-sonnet-5-5)"
    if name == "effort" and value and value not in EFFORTS:
        return f"effort {_shown(value)}: give one of {', '.join(EFFORTS)} (or leave it empty: the model's default)"
    if name == "test_timeout":
        why = timeout_problem(value)
        return f"test_timeout {value:g}: {why}" if why else None
    setting = find_setting(name)
    if setting is not None:
        try:
            setting.check(value)
        except ConfigError as exc:
            return str(exc)
    if name in BOUNDS:
        low, high, what = BOUNDS[name]
        if not low <= value <= high:
            low_text, high_text = (f"{int(low):,}", f"{int(high):,}") if kind is int else (f"{low:g}", f"{high:g}")
            return f"{name} {_shown(value)}: give {low_text} to {high_text} ({what})"
    return None


def _shown(value: Any) -> str:
    """A value as a message shows it: its repr, shortened, as valid text."""
    if isinstance(value, int) and abs(value) >= 10**15:
        return f"a whole number of {value.bit_length()} bits"  # repr refuses past 4,300 digits
    text = repr(value)
    return valid_text(text if len(text) <= 60 else text[:59] + "…")


def _default_of(name: str, where: str) -> Any:
    """The default of setting ``name``: a field's, or a plugin workflow's
    :class:`Setting`'s; ConfigError naming ``where`` for a name that is neither."""
    if name in FIELDS:
        return getattr(RunConfig(), name)
    setting = find_setting(name)
    if setting is None:
        shown = one_line(repr(name), 60)
        raise ConfigError(f"{where}: unknown setting {shown}; `qflow workflows` lists every workflow's settings")
    return setting.default


def coerce(name: str, value: Any, where: str) -> Any:
    """``value`` for setting ``name`` from ``where`` (the file, an environment
    variable, a flag or a recorded session): text from the environment read as
    the setting's type; then checked (:func:`value_problem`). A name that is
    not a field is a plugin workflow's setting. Raises :class:`ConfigError`
    naming ``where`` and the setting."""
    if name == "workflow_settings":
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: workflow_settings must be a table of settings, not {_shown(value)}")
        return {str(k): coerce(str(k), v, where) for k, v in value.items()}
    default = _default_of(name, where)
    if isinstance(value, str) and not isinstance(default, str) and default is not None:
        text = value.strip()
        if isinstance(default, bool):
            if text.lower() not in ("1", "true", "yes", "on", "0", "false", "no", "off"):
                raise ConfigError(f"{where}: {name} must be true or false, not {_shown(value)}")
            value = text.lower() in ("1", "true", "yes", "on")
        elif isinstance(default, int):
            try:
                value = int(text)
            except ValueError:
                raise ConfigError(f"{where}: {name} must be a whole number, not {_shown(value)}") from None
        elif isinstance(default, float):
            try:
                value = float(text)
            except ValueError:
                raise ConfigError(f"{where}: {name} must be a number, not {_shown(value)}") from None
    elif isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)  # "test_timeout = 5" means 5 seconds
    problem = value_problem(name, value)
    if problem:
        raise ConfigError(f"{where}: {problem}")
    return value


def load_config(
    path: Path | None = None,
    *,
    env: dict[str, str] | None = None,
    overrides: dict[str, Any] | None = None,
) -> RunConfig:
    """Defaults, then the TOML file (``[run]`` table or top level), then
    QFLOW_* environment variables, then explicit overrides (command-line flags)."""
    env = dict(os.environ) if env is None else env
    values: dict[str, Any] = {}
    path = path or config_file()
    data = parse_config(path)
    if data is not None:
        table = data.get("run", data)
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: run must be a table of settings, e.g. [run] then epochs = 3 on the next line")
        models = data.get("models", {})
        for key, value in table.items():
            if key in ("models", "prices") and table is data:
                continue
            if key == "workflow" and table is data and isinstance(value, dict):
                continue  # the [workflow.<name>] tables, read below
            if key not in FIELDS:
                shown = one_line(repr(key), 60)
                raise ConfigError(f"{path}: unknown setting {shown}; known: {', '.join(sorted(FIELDS))}")
            values[key] = coerce(key, value, f"{path}: [run]" if table is not data else str(path))
        tables = data.get("workflow", {})
        if isinstance(tables, dict) or table is not data:  # at the top level, ``workflow = "name"`` chooses one
            values.update(_workflow_tables(tables, path))
        model_table = _model_table(models, path)
    else:
        model_table = {}
    for key in FIELDS:
        var = f"QFLOW_{key.upper()}"
        if var in env:
            values[key] = coerce(key, env[var], var)
    explicit: dict[str, Any] = {}
    for key, value in (overrides or {}).items():
        if value is not None:
            explicit[key] = coerce(key, value, f"--{key.replace('_', '-')}")
    # The chosen model's own settings sit above the run-wide ones of the file
    # but below the environment and the flags.
    model = explicit.get("model") or values.get("model") or RunConfig.model
    for key, value in model_table.get(model, {}).items():
        if key not in explicit and f"QFLOW_{key.upper()}" not in env:
            values[key] = value
    values.update(explicit)
    return validate(make_config(values))


def _workflow_tables(tables: Any, path: Path) -> dict[str, Any]:
    """``[workflow.codetree]`` tables: each workflow's own settings."""
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
            out[key] = coerce(key, value, where)
    return out


def _model_table(models: Any, path: Path) -> dict[str, dict[str, Any]]:
    """``[models."openai/qwen2.5-coder"]`` tables: settings for one model."""
    if not isinstance(models, dict):
        raise ConfigError(f'{path}: models must be tables, e.g. [models."openai/gpt-4.1"]')
    out: dict[str, dict[str, Any]] = {}
    for name, settings in models.items():
        where = f'{path} [models."{one_line(name, 80)}"]'
        if not isinstance(settings, dict):
            raise ConfigError(f"{where}: give settings as a table, then e.g. max_tokens = 1024 on the next line")
        out[name] = {}
        for key, value in settings.items():
            if key not in MODEL_SETTINGS:
                shown = one_line(repr(key), 60)
                raise ConfigError(f"{where}: unknown setting {shown}; known: {', '.join(MODEL_SETTINGS)}")
            out[name][key] = coerce(key, value, where)
    return out
