"""The workflows installed, found through the ``qflow.workflows`` entry-point
group: each entry names a :class:`WorkflowSpec` (``package:SPEC``). The built-in
ones are registered there too (pyproject.toml), so a third-party package adds a
workflow without touching qflow_tui. Loading the registry imports the specs
only; a workflow's agents and run function are imported when a run asks for
it (:attr:`WorkflowSpec.run`)."""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .. import plugins, typecheck
from ..config import FIELDS, ConfigError, RunConfig
from ..plugins import EntryPoint, PluginRefused, Refusal
from ..safe_text import one_line
from .base import CORE_DECISIONS, Agent, Column, Edit, Pane, PlannedStep, Steerable, WorkflowResult, WorkflowSpec
from .settings import AnySetting, Setting, T

GROUP = "qflow.workflows"

#: What a workflow's name may be: it is typed after ``--workflow`` and names a
#: ``[workflow.<name>]`` table.
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}\Z")
#: What a setting's key or an agent's role may be: a key becomes a flag and a
#: config-file key; a role is a word of events, ``--break agent:ROLE`` and a
#: prompts folder.
WORD = re.compile(r"[a-z][a-z0-9_]{0,63}\Z")
RUNNER = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*\Z")
#: Option names of the commands that take the workflows' flags (solve, fork,
#: replay --rerun, bench, the app) that are not settings: a plugin's setting
#: may not take one (tests/workflows/test_plugin_safety.py keeps this in step
#: with the commands).
_RESERVED_WORDS = (
    "accept add_test all at benchmark break cluster cluster_mixed code convention dataset dataset_file delete_test dir "
    "drop_test entry_point estimate estimate_from extract format help ids intervals json keep_test limit "
    "max_connections max_cost offset out outcome output pairs paper paper_model path play price_in "
    "price_out probes problem program_file progression recursive reject replay rerun resume samples "
    "session_dir setup since sort split statement_file step tests tests_file timeout tui until version yes"
)
RESERVED = frozenset(_RESERVED_WORDS.split())
#: Names the checker resolves in a spec's annotations that its module imports
#: only for type checkers.
_NAMES: dict[str, Any] = {"RunConfig": RunConfig}


def entry_points(group: str) -> list[tuple[str, str]]:
    """``(name, "module:attribute")`` of every entry in ``group`` of the
    distributions installed on ``sys.path`` (see :func:`qflow_tui.core.plugins.entry_points`)."""
    return [(e.name, e.value) for e in plugins.entry_points(group)]


def _builtin_entries() -> list[EntryPoint]:
    """The built-in packages where they lie, for a checkout run without being
    installed (no dist-info, so no entry points)."""
    found = []
    for module in pkgutil.iter_modules(__path__, f"{__name__}."):
        if module.ispkg and isinstance(getattr(importlib.import_module(module.name), "SPEC", None), WorkflowSpec):
            found.append(EntryPoint(GROUP, module.name.rsplit(".", 1)[1], f"{module.name}:SPEC"))
    return found


def _spec_error(name: str) -> Callable[[str], ConfigError]:
    def error(problem: str) -> ConfigError:
        return ConfigError(f"workflow {one_line(name, 64)}: {problem}")

    return error


class _SpecCheck:
    """The check of each entry's object: a :class:`WorkflowSpec`; a plugin's is
    checked field by field, made terminal-safe and its functions guarded."""

    def __init__(self) -> None:
        self.builtins: dict[str, WorkflowSpec] = {}

    def __call__(self, obj: object, entry: EntryPoint) -> WorkflowSpec:
        if not isinstance(obj, WorkflowSpec):
            raise PluginRefused(f"it is a {type(obj).__name__}, not a WorkflowSpec")
        if entry.builtin:
            self.builtins[obj.name] = obj
            return obj
        return checked_spec(obj, list(self.builtins.values()))


def checked_spec(spec: WorkflowSpec, builtins: Sequence[WorkflowSpec] = ()) -> WorkflowSpec:
    """A plugin's spec, checked (raises :class:`PluginRefused` with one line
    naming the field that is wrong), with every string in it made terminal-safe
    and its functions guarded (each answer checked and cleaned)."""
    problem = typecheck.fields_problem(spec, _NAMES)
    if problem:
        raise PluginRefused(f"its spec's {problem}")
    if not NAME.match(spec.name):
        raise PluginRefused(
            f"its name {one_line(repr(spec.name), 60)} is not a word (a letter, then letters, digits, - or _)"
        )
    if not RUNNER.match(spec.runner):
        raise PluginRefused(f"its runner {one_line(repr(spec.runner), 80)} is not module:function")
    roles = [a.role for a in spec.agents]
    for role in roles:
        if not WORD.match(role):
            raise PluginRefused(f"its agent role {one_line(repr(role), 60)} is not a word (a-z, 0-9, _)")
    if len(set(roles)) != len(roles):
        raise PluginRefused("two of its agents have the same role")
    _check_panes(spec.panes)
    _check_decision_words(spec.decision_words)
    shared = {s.key: s for b in builtins for s in b.settings}
    keys = [s.key for s in spec.settings]
    if len(set(keys)) != len(keys):
        raise PluginRefused("two of its settings have the same key")
    for setting in spec.settings:
        _check_setting(setting, shared)
    safe = typecheck.safe_strings(spec)
    return plugins.guard_functions(safe, _spec_error(spec.name), _NAMES)


#: A workflow's own decision word: shown in a timeline cell and a log line.
DECISION_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _-]{0,23}\Z")


def _check_panes(panes: Sequence[Pane]) -> None:
    ids = [p.id for p in panes]
    for pane in panes:
        said = one_line(repr(pane.id), 60)
        if not WORD.match(pane.id):
            raise PluginRefused(f"its pane {said} is not a word (a-z, 0-9, _)")
        if not pane.title.strip():
            raise PluginRefused(f"its pane {said} has no title (the tab's name)")
        if not WORD.match(pane.record):
            raise PluginRefused(f"its pane {said} shows records of {one_line(repr(pane.record), 60)}, not a word")
        if pane.widget and not RUNNER.match(pane.widget):
            raise PluginRefused(f"its pane {said} names its widget {one_line(repr(pane.widget), 80)}, not module:Class")
        for column in pane.table_columns:
            if not WORD.match(column.field):
                raise PluginRefused(f"its pane {said} has a column {one_line(repr(column.field), 60)}, not a word")
            if not 0 <= column.width <= 200:
                raise PluginRefused(f"its pane {said} has a column {column.field!r} {column.width} cells wide (0-200)")
    if len(set(ids)) != len(ids):
        raise PluginRefused("two of its panes have the same id")


def _check_decision_words(words: Mapping[str, str]) -> None:
    for word, core in words.items():
        said = one_line(repr(word), 60)
        if not DECISION_WORD.match(word):
            raise PluginRefused(
                f"its decision word {said} is not 1-24 letters, digits, spaces, - or _ (it fits a timeline cell)"
            )
        if core not in CORE_DECISIONS:
            raise PluginRefused(
                f"its decision word {said} maps onto {one_line(repr(core), 40)}; map it onto one of "
                + ", ".join(CORE_DECISIONS)
            )
        if word in CORE_DECISIONS and word != core:
            raise PluginRefused(f"its decision word {said} is the core's, mapped onto another ({core})")


def _check_setting(setting: Setting[T], shared: Mapping[str, AnySetting]) -> None:
    key = setting.key
    said = one_line(repr(key), 60)
    if not WORD.match(key):
        raise PluginRefused(f"its setting {said} is not a word (a-z, 0-9, _): it becomes a flag and a config key")
    if key in RESERVED or (key in FIELDS and key not in shared):
        raise PluginRefused(
            f"its setting {said} would take the flag --{key.replace('_', '-')}, which qflow uses for its own "
            "(choose another key)"
        )
    if type(setting.default) not in (bool, int, float, str):
        raise PluginRefused(
            f"its setting {said} has a default of {type(setting.default).__name__}: give a bool, int, float or str"
        )
    if setting.choices and not (isinstance(setting.default, str) and setting.default in setting.choices):
        raise PluginRefused(f"its setting {said} has choices but its default is not one of them")
    if setting.minimum is not None and setting.maximum is not None and setting.minimum > setting.maximum:
        raise PluginRefused(f"its setting {said} has a minimum above its maximum")
    other = shared.get(key)
    if other is not None and other.type is not setting.type:
        raise PluginRefused(
            f"its setting {said} is a {setting.type.__name__}, but the built-in setting of that key is a "
            f"{other.type.__name__}"
        )


def _probe(spec: WorkflowSpec) -> None:
    """Call the plugin's functions once with its default settings (on a thread
    of its own, bounded): one that fails or answers wrongly is refused now,
    not in the middle of a command."""
    try:
        plugins.probe_functions(spec, {RunConfig: RunConfig(workflow=spec.name)})
    except ConfigError as exc:
        raise PluginRefused(str(exc).removeprefix(f"workflow {spec.name}: ")) from None


def _settle(specs: dict[str, WorkflowSpec], loaded: plugins.Loaded[WorkflowSpec]) -> list[Refusal]:
    """Each plugin's functions tried once (bounded), once the registry answers
    with every spec: they read it (a setting's default) and must find their
    own workflow there. One that fails is taken out and refused."""
    refused = []
    limit = plugins.timeout()
    for name, spec in list(specs.items()):
        if loaded.entries[name].builtin:
            continue
        try:
            plugins.bounded(functools.partial(_probe, spec), limit, name)
        except PluginRefused as exc:
            del specs[name]
            refused.append(Refusal(loaded.entries[name], str(exc)))
    return refused


#: Every workflow installed, by name: the built-ins first, in the order their
#: papers are presented, then plugins by name.
WORKFLOWS: plugins.Registry[WorkflowSpec] = plugins.Registry(
    GROUP,
    "workflow",
    _SpecCheck(),
    lambda spec: spec.name,
    _builtin_entries,
    settle=_settle,
    order=lambda item: (item[1].rank, item[0]),
)


def broken_plugins() -> list[str]:
    """Workflows whose entry point was not loaded, one terminal-safe line each
    (``name (module:attribute): why``); ``qflow workflows``, ``qflow doctor``,
    every command's stderr and the compose screen say them."""
    return WORKFLOWS.refused_lines()


def get_workflow(name: str) -> WorkflowSpec:
    """The workflow called ``name``; :class:`ConfigError` (one line) when none is."""
    spec = WORKFLOWS.get(name)
    if spec is None:
        refused = WORKFLOWS.refusal(name)
        if refused is not None:
            raise ConfigError(
                f"the workflow {refused.entry.where()} was not loaded: {one_line(refused.reason, typecheck.TEXT_LIMIT)}"
            )
        raise ConfigError(
            f"unknown workflow {one_line(repr(name), 80)}: choose one of {', '.join(WORKFLOWS)} "
            "(`qflow workflows` lists them)"
        )
    return spec


__all__ = [
    "GROUP",
    "WORKFLOWS",
    "Agent",
    "Column",
    "Edit",
    "Pane",
    "PlannedStep",
    "Setting",
    "Steerable",
    "WorkflowResult",
    "WorkflowSpec",
    "broken_plugins",
    "get_workflow",
]
