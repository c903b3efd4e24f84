"""A workflow's own settings, each defined once: its key, its default (which
gives its type; a built-in workflow's settings are :class:`RunConfig` fields and
take their defaults there), its documentation, and the values it allows. The
command-line flags, the config-file keys, ``qflow workflows``, the compose form
and validation are all generated from these definitions."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ..config import ConfigError, RunConfig


@dataclass(frozen=True)
class Setting:
    """One typed setting of a workflow."""

    key: str
    """The config-file key (in the workflow's ``[workflow.<name>]`` table); the
    flag is ``--key-with-dashes``. A :class:`RunConfig` field for the built-in
    workflows; any other workflow's values are kept in
    :attr:`RunConfig.workflow_settings`."""
    doc: str
    """One line for the flag's help, ``qflow workflows`` and the compose form."""
    choices: tuple[str, ...] = ()
    """The allowed values of a text setting (empty: any)."""
    minimum: int | None = None
    maximum: int | None = None
    why: str = ""
    """Why the bounds are what they are, said when a value is out of them."""
    default: Any = field(default=None)
    """``bool``, ``int``, ``float`` or ``str``; None: the :class:`RunConfig` field's default."""

    def __post_init__(self) -> None:
        if self.default is None:
            if self.key not in _DEFAULTS:
                raise TypeError(f"setting {self.key!r} needs a default (it is not a RunConfig field)")
            object.__setattr__(self, "default", _DEFAULTS[self.key])
        elif self.key in _DEFAULTS:
            raise TypeError(f"setting {self.key!r} is a RunConfig field: its default is that field's")

    @property
    def type(self) -> type:
        """``bool``, ``int``, ``float`` or ``str``."""
        return type(self.default)

    @property
    def flag(self) -> str:
        return "--" + self.key.replace("_", "-")

    def allowed(self) -> str:
        """The values it takes, in words."""
        if self.choices:
            return " | ".join(self.choices)
        if self.type is bool:
            return "true | false"
        if self.minimum is not None and self.maximum is not None:
            return f"{self.minimum} to {self.maximum}"
        if self.minimum is not None:
            return f"at least {self.minimum}"
        return self.type.__name__

    def check(self, value: Any) -> None:
        """Raise :class:`ConfigError` (one line) when ``value`` is not allowed."""
        if self.choices and value not in self.choices:
            raise ConfigError(f"{self.key} {value!r}: choose one of {', '.join(self.choices)}")
        if self.type is int and isinstance(value, int):
            low = self.minimum if self.minimum is not None else value
            high = self.maximum if self.maximum is not None else value
            if not low <= value <= high:
                why = f"{self.why}; " if self.why else ""
                if self.maximum is None:
                    raise ConfigError(f"{self.key} {value}: {why}choose at least {self.minimum}")
                raise ConfigError(f"{self.key} {value}: {why}choose {self.minimum} to {self.maximum}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "flag": self.flag,
            "type": self.type.__name__,
            "default": self.default,
            "doc": self.doc,
            "allowed": self.allowed(),
            "choices": list(self.choices),
            "minimum": self.minimum,
            "maximum": self.maximum,
        }


_DEFAULTS: dict[str, Any] = {
    f.name: getattr(RunConfig(), f.name) for f in dataclasses.fields(RunConfig) if f.name != "workflow_settings"
}


#: One config key (``iterations``) that two workflows read, declared once so its
#: flag, bounds and help cannot drift apart between them.
ITERATIONS = Setting(
    "iterations",
    "refinement iterations (AgentCoder: programmer <-> test executor; AdaCoder: Phase 2 iterations t)",
    minimum=1,
    maximum=50,
)
