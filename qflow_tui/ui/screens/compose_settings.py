"""The compose form's settings widgets: a workflow's own settings as labelled
widgets generated from its spec, read back typed, and the Model field's
completions."""

from __future__ import annotations

import re
from typing import Any

from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Input, Label, Select

from ...core.config import ConfigError, RunConfig
from ...core.llm.catalog import table_models
from ...core.llm.prices import BUILT_IN, PriceError
from ...core.workflows import WorkflowSpec
from ...core.workflows.settings import Setting, T
from ..widgets.tick_box import TickBox

#: An integer setting with at most this many allowed values is a Select.
_SELECT_RANGE = 60


def known_model_names() -> list[str]:
    """What the Model field completes: the price table's models and the models
    each provider names, a plugin's too (a broken [prices] table leaves the
    built-in ones)."""

    try:
        return [k.name for k in table_models()]
    except PriceError:
        return [k.name for k in table_models(dict(BUILT_IN))]


def dom_name(name: str) -> str:
    """A workflow's name as part of a widget id (letters, digits, ``_`` and ``-`` only)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)


def _numeric(setting: Setting[T]) -> bool:
    return setting.type in (int, float) and not setting.choices


def settings_boxes(spec: WorkflowSpec, config: RunConfig) -> Vertical:
    """The form's part for one workflow's own settings, generated from its spec:
    each a labelled widget, with consecutive numbers side by side, three to a row."""
    values = config.replace(workflow=spec.name)
    boxes: list[Widget] = []
    row: list[Widget] = []
    for setting in spec.settings:
        box = _setting_box(setting, setting.of(values))
        if _numeric(setting):
            row.append(box)
            if len(row) < 3:
                continue
        if row:
            boxes.append(Horizontal(*row, classes="numbers"))
            row = []
        if not _numeric(setting):
            boxes.append(box)
    if row:
        boxes.append(Horizontal(*row, classes="numbers"))
    return Vertical(*boxes, id=f"settings-{dom_name(spec.name)}", classes="workflow-settings")


def _setting_box(setting: Setting[T], value: T) -> Vertical:
    label = [] if setting.type is bool else [Label(setting.title, classes="field-label")]
    box = Vertical(*label, setting_widget(setting, value), classes="setting", id=f"setting-{setting.key}")
    box.tooltip = setting.doc
    return box


def setting_widget(setting: Setting[T], value: T) -> Widget:
    """A form widget for one setting, from its type, choices and bounds."""
    wid = f"set-{setting.key}"
    if setting.type is bool:
        return TickBox(setting.title, bool(value), id=wid, compact=True)
    if setting.choices:
        words = setting.choice_words
        options = [(f"{c} ({words[c]})" if c in words else str(c), c) for c in setting.choices]
        return Select(options, value=value, id=wid, allow_blank=False, compact=True)
    low, high = setting.minimum, setting.maximum
    if setting.type is int and low is not None and high is not None and high - low < _SELECT_RANGE:
        shown = min(max(int(value), int(low)), int(high))
        return Select(
            [(str(i), i) for i in range(int(low), int(high) + 1)], value=shown, id=wid, allow_blank=False, compact=True
        )
    return Input(str(value), id=wid, compact=True)


def settings_values(spec: WorkflowSpec, box: Widget) -> dict[str, object]:
    """The workflow's settings as ``box`` (its :func:`settings_boxes`) has them,
    typed; a number that does not parse is a ConfigError naming the setting."""
    values: dict[str, object] = {}
    for setting in spec.settings:
        widget = box.query_one(f"#set-{setting.key}")
        value: Any = widget.value  # type: ignore[attr-defined]
        if isinstance(widget, Input) and setting.type in (int, float):
            try:
                value = setting.type(value.strip())
            except ValueError:
                kind = "a whole number" if setting.type is int else "a number"
                raise ConfigError(f"{setting.key} must be {kind}, not {value.strip()!r}") from None
        values[setting.key] = value
    return values
