"""The values of a run's settings: read (built-in defaults < the user's TOML
file < environment < flags), coerced to each setting's type, checked against
its definition (a :class:`RunConfig` field, or a workflow's :class:`Setting`)
and recorded. It asks the workflow registry, so it sits in the workflows
layer, above :mod:`qflow_tui.core.config`."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
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
from ..jsontypes import JSONObject
from ..safe_text import one_line, valid_text
from ..sandbox.config import timeout_problem
from . import WORKFLOWS, get_workflow
from .settings import AnySetting, SettingValue

#: Where a recorded run keeps its workflow's settings (every one, resolved).
RECORDED = "workflow_settings"


def all_settings() -> list[AnySetting]:
    """Every workflow's settings, each key once (workflows may share a key, as
    AgentCoder and AdaCoder share ``iterations``): the command line's flags."""
    seen: dict[str, AnySetting] = {}
    for spec in WORKFLOWS.values():
        for setting in spec.settings:
            seen.setdefault(setting.key, setting)
    return list(seen.values())


def owners(key: str) -> list[str]:
    """The workflows that have a setting called ``key``."""
    return [spec.name for spec in WORKFLOWS.values() if any(s.key == key for s in spec.settings)]


def own_setting(workflow: str, key: str) -> AnySetting | None:
    """Workflow ``workflow``'s setting called ``key``, or None (no such workflow, or no such setting)."""
    spec = WORKFLOWS.get(workflow)
    return next((s for s in spec.settings if s.key == key), None) if spec is not None else None


#: The README's reduced run for a tiny model (a provider's ``NamedModel.small``,
#: ``local/smollm2``): with the paper's settings one MBPP problem took 849 s on
#: 2 cores, with these 23 s (shared/FACTS.md). Each workflow setting applies to
#: the workflows that have it.
SMALL_SETTINGS: dict[str, SettingValue] = {"prompts": 1, "epochs": 1, "clarify": 0}
SMALL_MAX_TOKENS = 256


def small_settings(config: RunConfig) -> tuple[RunConfig, list[str]]:
    """``config`` with the small settings where it still holds the defaults
    (a value the user set is kept), and what changed as ``key value`` words."""
    changed: list[str] = []
    own: dict[str, SettingValue] = {}
    for key, value in SMALL_SETTINGS.items():
        setting = own_setting(config.workflow, key)
        if setting is not None and setting.of(config) == setting.default and value != setting.default:
            own[key] = value
            changed.append(f"{key} {value}")
    if config.max_tokens == RunConfig.max_tokens:
        config = config.replace(max_tokens=SMALL_MAX_TOKENS)
        changed.append(f"max-tokens {SMALL_MAX_TOKENS}")
    return (config.with_settings(own) if own else config), changed


def resolved_settings(config: RunConfig) -> dict[str, SettingValue]:
    """Every setting of the run's workflow with its value (given, or its
    default), in the order the workflow declares them: what a session and a
    bench record, so that a reader never depends on today's defaults."""
    spec = WORKFLOWS.get(config.workflow)
    return {s.key: s.of(config) for s in spec.settings} if spec is not None else {}


def recorded_config(config: RunConfig) -> JSONObject:
    """The settings as a session's header and first event record them: the
    run-wide ones, then the workflow's own, every one resolved."""
    return {**config.run_wide(), RECORDED: resolved_settings(config)}


def recorded_workflow_settings(recorded: Mapping[str, object], workflow: str) -> dict[str, object]:
    """A recorded run's workflow settings by key, from any version of the
    record: :data:`RECORDED` (every setting, since the workflows declared
    theirs; only those a user set, before), or a field of its own (before
    the built-in workflows' settings moved into their specs). The keys a
    workflow installed here does not declare are left out; a setting added
    since, with a value runs had before it (:attr:`Setting.before`), reads as that."""
    spec = WORKFLOWS.get(workflow)
    table = recorded.get(RECORDED)
    own: dict[str, object] = dict(table) if isinstance(table, dict) else {}
    if spec is None:
        return own
    out: dict[str, object] = {}
    for setting in spec.settings:
        if setting.key in own:
            out[setting.key] = own[setting.key]
        elif setting.key in recorded:
            out[setting.key] = recorded[setting.key]
        elif setting.before is not None:
            out[setting.key] = setting.before
    return out


def config_from_record(
    recorded: Mapping[str, object], workflow: str = "", *, strict: bool = True, where: str = "the recording"
) -> RunConfig:
    """A recorded run's settings as a RunConfig (its workflow: ``workflow``, or
    the recorded one). ``strict``: a value this build refuses is a
    :class:`ConfigError` naming ``where``; otherwise it is left at its default
    (an old session must still open)."""
    workflow = workflow or str(recorded.get("workflow") or RunConfig.workflow)
    config = RunConfig(workflow=workflow)
    for key, value in recorded.items():
        if key in FIELDS and key not in ("workflow", RECORDED, "theme") and value is not None:
            config = _take(config, key, value, where, strict)
    for key, value in recorded_workflow_settings(recorded, workflow).items():
        config = _take(config, key, value, where, strict)
    return config


def _take(config: RunConfig, key: str, value: object, where: str, strict: bool) -> RunConfig:
    try:
        return config.replace(**{key: coerce(key, value, where, workflow=config.workflow)})
    except ConfigError:
        if strict:
            raise
        return config


def validate(config: RunConfig) -> RunConfig:
    """``config``, or :class:`ConfigError` (one line naming the setting) for
    the first value of a wrong type or out of its range (see
    :func:`value_problem`); each workflow's settings are checked by their own
    definitions, and a setting its workflow does not have is refused."""
    for name in FIELDS:
        if name == RECORDED:
            continue
        problem = value_problem(name, getattr(config, name))
        if problem:
            raise ConfigError(problem)
    for workflow, table in config.workflow_settings.items():
        get_workflow(workflow)
        for key, value in table.items():
            setting = own_setting(workflow, key)
            if setting is None:
                raise ConfigError(_not_its_setting(workflow, key))
            problem = value_problem(key, value, setting)
            if problem:
                raise ConfigError(problem)
    return config


def _not_its_setting(workflow: str, key: str, flag: bool = False) -> str:
    shown = one_line(key, 60)
    named = f"--{shown.replace('_', '-')}" if flag else shown
    others = [o for o in owners(key) if o != workflow]
    if others:
        return (
            f"{named} is a setting of {' and '.join(others)}, not of {workflow}: add --workflow {others[0]}, or drop it"
        )
    own = ", ".join(s.key for s in get_workflow(workflow).settings) or "none"
    return f"unknown setting {named} for {workflow} (its settings: {own}); `qflow workflows` lists every workflow's"


def value_problem(name: str, value: object, setting: AnySetting | None = None) -> str | None:
    """Why ``value`` cannot be setting ``name`` (one line naming it and saying
    what to give), or None when it can: the type of the field's default (or
    of ``setting``'s, a workflow's own), a finite number, and the range of
    the setting's own definition (a workflow's :class:`Setting`,
    :data:`~qflow_tui.core.config.BOUNDS`, the sandbox's time limits)."""
    default = setting.default if setting is not None else getattr(RunConfig, name, None)
    problem = _type_problem(name, value, default)
    if problem:
        return problem
    if setting is not None:
        try:
            setting.check(value)
        except ConfigError as exc:
            return str(exc)
        return None
    if name == "workflow" and value not in WORKFLOWS:
        try:
            get_workflow(str(value))  # text: its type was checked above
        except ConfigError as exc:  # the workflows' own words for it
            return str(exc)
    if name == "model" and not value:
        return "model must name one, as provider/model (e.g. anthropic/claude-sonnet-5-5)"
    if name == "effort" and value and value not in EFFORTS:
        return f"effort {_shown(value)}: give one of {', '.join(EFFORTS)} (or leave it empty: the model's default)"
    if name == "test_timeout" and isinstance(value, int | float):  # a number: its type was checked above
        why = timeout_problem(value)
        return f"test_timeout {value:g}: {why}" if why else None
    if name in BOUNDS and isinstance(value, int | float):  # a number: its type was checked above
        low, high, what = BOUNDS[name]
        if not low <= value <= high:
            kind = type(default)
            low_text, high_text = (f"{int(low):,}", f"{int(high):,}") if kind is int else (f"{low:g}", f"{high:g}")
            return f"{name} {_shown(value)}: give {low_text} to {high_text} ({what})"
    return None


def _type_problem(name: str, value: object, default: object) -> str | None:
    """Why ``value`` is not of the type of ``default`` (one line), or None."""
    if isinstance(default, bool):
        return None if isinstance(value, bool) else f"{name} must be true or false, not {_shown(value)}"
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{name} must be a whole number, not {_shown(value)}"
        if abs(value) > MAX_WHOLE:
            return f"{name} is far too large ({_shown(value)}); give a sensible whole number"
    elif isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"{name} must be a number, not {_shown(value)}"
        if not math.isfinite(value):
            return f"{name} must be a finite number, not {value}"
    elif value is not None and not isinstance(value, str):
        return f"{name} must be text, not {_shown(value)}"
    return None


def _shown(value: object) -> str:
    """A value as a message shows it: its repr, shortened, as valid text."""
    if isinstance(value, int) and abs(value) >= 10**15:
        return f"a whole number of {value.bit_length()} bits"  # repr refuses past 4,300 digits
    text = repr(value)
    return valid_text(text if len(text) <= 60 else text[:59] + "…")


def coerce(name: str, value: object, where: str, *, workflow: str = "") -> object:
    """``value`` for setting ``name`` from ``where`` (the file, an environment
    variable, a flag or a recorded session): text from the environment read as
    the setting's type; then checked (:func:`value_problem`). A name that is
    not a field is workflow ``workflow``'s own setting (any workflow's that
    has it, when no workflow is named). Raises :class:`ConfigError` naming
    ``where`` and the setting."""
    setting: AnySetting | None = None
    if name not in FIELDS:
        setting = own_setting(workflow, name) if workflow else next((s for s in all_settings() if s.key == name), None)
        if setting is None:
            problem = _not_its_setting(workflow, name) if workflow in WORKFLOWS else None
            shown = one_line(repr(name), 60)
            raise ConfigError(
                f"{where}: {problem or f'unknown setting {shown}'}"
                + ("" if problem else "; `qflow workflows` lists every workflow's settings")
            )
    default = setting.default if setting is not None else getattr(RunConfig(), name)
    if isinstance(value, str) and not isinstance(default, str) and default is not None:
        value = _from_text(name, value, default, where)
    elif isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)  # "test_timeout = 5" means 5 seconds
    problem = value_problem(name, value, setting)
    if problem:
        raise ConfigError(f"{where}: {problem}")
    return value


def _from_text(name: str, value: str, default: object, where: str) -> SettingValue:
    """A setting's value given as text (the environment, a flag) read as the type of ``default``."""
    text = value.strip()
    if isinstance(default, bool):
        if text.lower() not in ("1", "true", "yes", "on", "0", "false", "no", "off"):
            raise ConfigError(f"{where}: {name} must be true or false, not {_shown(value)}")
        return text.lower() in ("1", "true", "yes", "on")
    if isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            raise ConfigError(f"{where}: {name} must be a whole number, not {_shown(value)}") from None
    if isinstance(default, float):
        try:
            return float(text)
        except ValueError:
            raise ConfigError(f"{where}: {name} must be a number, not {_shown(value)}") from None
    return value


def load_config(
    path: Path | None = None,
    *,
    env: dict[str, str] | None = None,
    overrides: Mapping[str, object] | None = None,
) -> RunConfig:
    """Defaults, then the TOML file (``[run]`` table or top level, then each
    ``[workflow.<name>]`` table), then QFLOW_* environment variables, then
    explicit overrides (command-line flags: a workflow setting among them is
    the chosen workflow's, and refused when it has no such setting)."""
    env = dict(os.environ) if env is None else env
    values: dict[str, Any] = {}
    tables: dict[str, dict[str, Any]] = {}
    path = path or config_file()
    data = parse_config(path)
    model_table: dict[str, dict[str, Any]] = {}
    if data is not None:
        values, tables, model_table = _read_file(data, path)
    for key in FIELDS:
        var = f"QFLOW_{key.upper()}"
        if var in env and key != RECORDED:
            values[key] = coerce(key, env[var], var)
    for setting in all_settings():
        if setting.env in env:
            for workflow in owners(setting.key):
                tables.setdefault(workflow, {})[setting.key] = coerce(
                    setting.key, env[setting.env], setting.env, workflow=workflow
                )
    explicit: dict[str, Any] = {}
    own: dict[str, Any] = {}
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    if "workflow" in given:
        explicit["workflow"] = coerce("workflow", given.pop("workflow"), "--workflow")
    workflow = explicit.get("workflow") or values.get("workflow") or RunConfig.workflow
    for key, value in given.items():
        flag = f"--{key.replace('_', '-')}"
        if key in FIELDS:
            explicit[key] = coerce(key, value, flag)
        elif own_setting(workflow, key) is None:
            raise ConfigError(_not_its_setting(workflow, key, flag=True))
        else:
            own[key] = coerce(key, value, flag, workflow=workflow)
    # The chosen model's own settings sit above the run-wide ones of the file
    # but below the environment and the flags.
    model = explicit.get("model") or values.get("model") or RunConfig.model
    for key, value in model_table.get(model, {}).items():
        if key not in explicit and f"QFLOW_{key.upper()}" not in env:
            values[key] = value
    values.update(explicit)
    config = make_config(values)
    for name, table in tables.items():
        config = config.with_settings(table, name)
    return validate(config.with_settings(own) if own else config)


def model_named(path: Path | None = None, *, env: Mapping[str, str] | None = None) -> bool:
    """Whether the user's settings name a model (the config file's ``model``, or
    QFLOW_MODEL), as a flag does: the app then keeps it even when it is the
    built-in default's name and its key is missing."""
    env = os.environ if env is None else env
    if env.get("QFLOW_MODEL", "").strip():
        return True
    try:
        data = parse_config(path or config_file())
    except ConfigError:
        return False
    table = data.get("run", data) if isinstance(data, dict) else None
    return isinstance(table, dict) and "model" in table


def _read_file(
    data: dict[str, Any], path: Path
) -> tuple[dict[str, Any], dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """The file's run-wide values, each workflow's table, and each model's table."""
    table = data.get("run", data)
    if not isinstance(table, dict):
        raise ConfigError(
            f"{path}: run must be a table of settings, e.g. [run] then max_tokens = 1024 on the next line"
        )
    values: dict[str, Any] = {}
    shared: dict[str, Any] = {}
    where = f"{path}: [run]" if table is not data else str(path)
    for key, value in table.items():
        if key in ("models", "prices", "bench", "app") and table is data:
            continue  # [bench] is read by the bench (core.bench.cluster), [app] by the app (core.app_prefs)
        if key == "workflow" and table is data and isinstance(value, dict):
            continue  # the [workflow.<name>] tables, read below
        if key in FIELDS and key != RECORDED:
            values[key] = coerce(key, value, where)
        elif owners(key):
            shared[key] = value  # a workflow's setting given run-wide: every workflow that has it takes it
        else:
            shown = one_line(repr(key), 60)
            raise ConfigError(
                f"{where}: unknown setting {shown}; a workflow's own setting goes in its [workflow.<name>] "
                "table (`qflow workflows` lists them)"
            )
    tables: dict[str, dict[str, Any]] = {}
    for key, value in shared.items():
        for workflow in owners(key):
            tables.setdefault(workflow, {})[key] = coerce(key, value, where, workflow=workflow)
    workflow_tables = data.get("workflow", {})
    if isinstance(workflow_tables, dict) or table is not data:  # at the top level, ``workflow = "name"`` chooses one
        for name, own in _workflow_tables(workflow_tables, path).items():
            tables.setdefault(name, {}).update(own)
    return values, tables, _model_table(data.get("models", {}), path)


def _workflow_tables(tables: object, path: Path) -> dict[str, dict[str, object]]:
    """``[workflow.codetree]`` tables: each workflow's own settings."""
    if not isinstance(tables, dict):
        raise ConfigError(f"{path}: give a workflow's settings as a table, e.g. [workflow.codetree] budget = 10")
    out: dict[str, dict[str, object]] = {}
    for name, settings in tables.items():
        where = f"{path} [workflow.{one_line(str(name), 60)}]"
        if not isinstance(settings, dict):
            raise ConfigError(f"{where}: give settings as a table, e.g. [workflow.{name}] followed by key = value")
        try:
            keys = [s.key for s in get_workflow(name).settings]
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        out[name] = {}
        for key, value in settings.items():
            if key not in keys:
                known = ", ".join(keys) or "none"
                raise ConfigError(f"{where}: {name} has no setting {one_line(repr(key), 60)}; its settings: {known}")
            out[name][key] = coerce(key, value, where, workflow=name)
    return out


def _model_table(models: object, path: Path) -> dict[str, dict[str, object]]:
    """``[models."openai/qwen2.5-coder"]`` tables: settings for one model."""
    if not isinstance(models, dict):
        raise ConfigError(f'{path}: models must be tables, e.g. [models."openai/gpt-4.1"]')
    out: dict[str, dict[str, object]] = {}
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
