"""A workflow's own settings, each defined once: its key, its default (which
gives its type), its documentation and the values it allows. Every workflow,
built-in or a plugin's, declares its settings so in its spec and reads them the
same typed way (:meth:`Setting.of`). The command-line flags, the config-file
keys, ``qflow workflows``, the compose form and validation are all generated
from these definitions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar, cast

from ..config import ConfigError

if TYPE_CHECKING:
    from ..config import RunConfig

T = TypeVar("T", bool, int, float, str)

#: A setting's value: one of the four types a setting may have.
SettingValue = bool | int | float | str

#: The types a setting may have (its default's).
SETTING_TYPES: tuple[type, ...] = (bool, int, float, str)


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One typed setting of a workflow: ``Setting("budget", "the most programs", default=20, minimum=1)``."""

    key: str
    """The config-file key (in the workflow's ``[workflow.<name>]`` table); the
    flag is ``--key-with-dashes``; the environment variable ``QFLOW_KEY``."""
    doc: str
    """One line for the flag's help, ``qflow workflows`` and the compose form."""
    choices: tuple[str, ...] = ()
    """The allowed values of a text setting (empty: any)."""
    minimum: float | None = None
    """The smallest value a number setting takes (None: no bound)."""
    maximum: float | None = None
    """The largest value a number setting takes (None: no bound)."""
    why: str = ""
    """Why the bounds are what they are, said when a value is out of them."""
    default: T = field(kw_only=True)
    """A ``bool``, ``int``, ``float`` or ``str``: the value when none is given, and the setting's type."""
    label: str = field(default="", kw_only=True)
    """The setting's name in the compose form (empty: the key in words, ``Tests per round``)."""
    choice_words: Mapping[str, str] = field(default_factory=dict, kw_only=True)
    """A few words on each choice, shown beside it in the form (``imagined``: ``standard``)."""
    before: T | None = field(default=None, kw_only=True)
    """The value runs had before this setting existed, when it is not the
    default (None: the default). A recording without the key reads as this, so
    an older session or bench resumes, forks and is compared as it ran."""

    def __post_init__(self) -> None:
        if type(self.default) not in SETTING_TYPES:
            kind = type(self.default).__name__
            raise TypeError(f"setting {self.key!r}: its default must be a bool, int, float or str, not {kind}")
        if self.before is not None and type(self.before) is not type(self.default):
            raise TypeError(f"setting {self.key!r}: its value before must have its default's type")

    @property
    def unrecorded(self) -> T:
        """What a recording that lacks this setting ran with: :attr:`before`, else the default."""
        return self.default if self.before is None else self.before

    @property
    def type(self) -> type:
        """``bool``, ``int``, ``float`` or ``str``."""
        return type(self.default)

    @property
    def flag(self) -> str:
        """Its command-line flag: ``--tests-per-round`` (a bool also takes ``--no-...``)."""
        return "--" + self.key.replace("_", "-")

    @property
    def env(self) -> str:
        """The environment variable that sets it: ``QFLOW_BUDGET``. It sets the
        setting of every installed workflow that has this key, a plugin's as a
        built-in's. It wins over the config file, and a flag wins over it."""
        return "QFLOW_" + self.key.upper()

    @property
    def title(self) -> str:
        """The setting's name in words: its label, or its key (``tests_per_round`` -> ``Tests per round``)."""
        return self.label or self.key.replace("_", " ").capitalize()

    def of(self, config: RunConfig) -> T:
        """This setting's value in ``config``, typed as the default: the run's
        workflow's own value (from its config-file table, the environment, a
        flag or a recording), else this definition's default. Only the run's
        workflow's table is read: a run of another workflow gets the default."""
        table = config.workflow_settings.get(config.workflow, {})
        return cast(T, table.get(self.key, self.default))

    def allowed(self) -> str:
        """The values it takes, in words."""
        if self.choices:
            return " | ".join(self.choices)
        if self.type is bool:
            return "true | false"
        low, high = (_number(b) for b in (self.minimum, self.maximum))
        if low and high:
            return f"{low} to {high}"
        if low:
            return f"at least {low}"
        if high:
            return f"at most {high}"
        return {int: "whole number", float: "number", str: "text"}[self.type]

    def check(self, value: object) -> None:
        """Raise :class:`ConfigError` (one line) when ``value`` (of the right
        type already) is not allowed."""
        if self.choices and value not in self.choices:
            raise ConfigError(f"{self.key} {value!r}: choose one of {', '.join(self.choices)}")
        if self.type in (int, float) and isinstance(value, int | float) and not isinstance(value, bool):
            low = self.minimum if self.minimum is not None else value
            high = self.maximum if self.maximum is not None else value
            if not low <= value <= high:
                why = f"{self.why}; " if self.why else ""
                raise ConfigError(f"{self.key} {_number(value)}: {why}choose {self.allowed()}")

    def to_dict(self) -> dict[str, object]:
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


#: A setting of any of the four types, as lists of every workflow's settings hold them.
AnySetting = Setting[bool] | Setting[int] | Setting[float] | Setting[str]


def _number(value: float | None) -> str:
    """A bound or value in words: ``3``, ``0.5``; empty for None."""
    if value is None:
        return ""
    return f"{value:g}" if isinstance(value, float) else str(value)


#: One config key (``iterations``) that two workflows read, declared once so its
#: flag, bounds and help cannot drift apart between them.
ITERATIONS = Setting(
    "iterations",
    "refinement iterations (AgentCoder: programmer <-> test executor; AdaCoder: Phase 2 iterations t)",
    default=5,
    minimum=1,
    maximum=50,
)
