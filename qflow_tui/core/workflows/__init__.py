"""The workflows installed, found through the ``qflow.workflows`` entry-point
group: each entry names a :class:`WorkflowSpec` (``package:SPEC``). The built-in
ones are registered there too (pyproject.toml), so a third-party package adds a
workflow without touching qflow_tui. Loading the registry imports the specs
only; a workflow's agents and run function are imported when a run asks for
it (:attr:`WorkflowSpec.run`)."""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import sys
from collections.abc import Iterator, Mapping

from ..config import ConfigError
from .base import Agent, Edit, PlannedStep, Steerable, WorkflowResult, WorkflowSpec
from .settings import Setting

GROUP = "qflow.workflows"


def entry_points(group: str) -> list[tuple[str, str]]:
    """``(name, "module:attribute")`` of every entry in ``group`` of the
    distributions installed on ``sys.path``, the first of each distribution
    name winning, as :func:`importlib.metadata.entry_points` finds them.
    Read here from the ``*.dist-info/entry_points.txt`` files directly: importing
    ``importlib.metadata`` alone costs the launch about 35 ms, this about 2."""
    seen: set[str] = set()
    found: list[tuple[str, str]] = []
    header = f"[{group}]"
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            distribution = re.sub(r"[-_.]+", "_", name.rsplit(".", 1)[0].split("-", 1)[0]).lower()
            if distribution in seen:
                continue
            seen.add(distribution)
            try:
                with open(os.path.join(folder or ".", name, "entry_points.txt"), encoding="utf-8") as file:
                    text = file.read()
            except OSError:
                continue
            if header not in text:
                continue
            for line in text.split(header, 1)[1].split("\n[", 1)[0].splitlines():
                key, sep, value = line.partition("=")
                if sep and key.strip() and not key.lstrip().startswith(("#", ";")):
                    found.append((key.strip(), value.strip()))
    return found


def _load(value: str) -> object:
    module, _, attribute = value.partition(":")
    target: object = importlib.import_module(module.strip())
    for part in attribute.strip().split(".") if attribute.strip() else []:
        target = getattr(target, part)
    return target


def _discover() -> dict[str, WorkflowSpec]:
    found: dict[str, WorkflowSpec] = {}
    problems: list[str] = []
    for name, value in entry_points(GROUP):
        try:
            spec = _load(value)
        except Exception as exc:  # a broken plugin must not take the app down with it
            problems.append(f"{name} ({value}): {type(exc).__name__}: {exc}")
            continue
        if not isinstance(spec, WorkflowSpec):
            problems.append(f"{name} ({value}) is a {type(spec).__name__}, not a WorkflowSpec")
            continue
        found.setdefault(spec.name, spec)
    if not any(spec.runner.startswith(f"{__name__}.") for spec in found.values()):
        # Run from a checkout that was never installed (no dist-info, so no entry
        # points): the built-in packages are found where they lie.
        for module in pkgutil.iter_modules(__path__, f"{__name__}."):
            spec = getattr(importlib.import_module(module.name), "SPEC", None) if module.ispkg else None
            if isinstance(spec, WorkflowSpec):
                found.setdefault(spec.name, spec)
    _PROBLEMS[:] = problems
    # The built-ins first, in the order their papers are presented, then plugins by name.
    return dict(sorted(found.items(), key=lambda item: (item[1].rank, item[0])))


_PROBLEMS: list[str] = []


class _Registry(Mapping[str, WorkflowSpec]):
    """Every workflow by name, in the order ``qflow workflows`` lists them; the
    entry points are read the first time it is asked."""

    def __init__(self) -> None:
        self._specs: dict[str, WorkflowSpec] | None = None

    @property
    def specs(self) -> dict[str, WorkflowSpec]:
        if self._specs is None:
            self._specs = _discover()
        return self._specs

    def __getitem__(self, name: str) -> WorkflowSpec:
        return self.specs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.specs)

    def __len__(self) -> int:
        return len(self.specs)

    def reload(self) -> None:
        """Read the entry points again (after a package was installed)."""
        self._specs = None


#: Every workflow installed, by name.
WORKFLOWS = _Registry()


def broken_plugins() -> list[str]:
    """Workflows whose entry point did not load, one line each (``qflow workflows`` says so)."""
    WORKFLOWS.specs  # noqa: B018 - reads the entry points
    return list(_PROBLEMS)


def get_workflow(name: str) -> WorkflowSpec:
    """The workflow called ``name``; :class:`ConfigError` (one line) when none is."""
    spec = WORKFLOWS.get(name)
    if spec is None:
        raise ConfigError(
            f"unknown workflow {name!r}: choose one of {', '.join(WORKFLOWS)} (`qflow workflows` lists them)"
        )
    return spec


__all__ = [
    "GROUP",
    "WORKFLOWS",
    "Agent",
    "Edit",
    "PlannedStep",
    "Setting",
    "Steerable",
    "WorkflowResult",
    "WorkflowSpec",
    "broken_plugins",
    "get_workflow",
]
