"""The keyword arguments a qflow widget hands on to Textual's ``Widget``
unchanged, typed: ``TestsTable(id="tests-table")``."""

from __future__ import annotations

from typing import TypedDict


class WidgetOptions(TypedDict, total=False):
    """What every Textual widget takes by keyword."""

    name: str | None
    id: str | None
    classes: str | None
    disabled: bool
