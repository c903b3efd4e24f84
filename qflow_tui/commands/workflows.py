"""``qflow workflows``: the workflows this qflow runs, each with its summary,
agents, use of the visible tests, planned steps and settings (flag, default,
allowed values); ``--json`` for one JSON object."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from . import Subparsers, fail

if TYPE_CHECKING:  # types only: the modules load when the command runs
    from collections.abc import Sequence

    from ..core.workflows.settings import AnySetting, SettingValue


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser("workflows", help="list the workflows with their settings and defaults", description=__doc__)
    p.add_argument("name", nargs="?", help="show only this workflow")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def _default_words(value: SettingValue) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


#: The widest flag column: a longer flag (``--independent-test-rounds/--no-...``)
#: takes a line of its own, and its key, default and values go on the next,
#: under their columns, so one long flag does not push every row to the right.
FLAG_COLUMN = 24


def _settings_table(settings: Sequence[AnySetting]) -> list[str]:
    """The settings as aligned columns (flag, key, default, allowed values), each
    column as wide as its widest cell in this workflow, then each doc line."""
    rows = []
    for s in settings:
        flag = f"{s.flag}/--no-{s.flag[2:]}" if s.type is bool else s.flag
        rows.append((flag, s.key, _default_words(s.default), s.allowed(), s.doc))
    flag_width = min(FLAG_COLUMN, max(len(r[0]) for r in rows))
    key_width = max(len(r[1]) for r in rows)
    default_width = max(len(r[2]) for r in rows)
    lines = []
    for flag, key, default, allowed, doc in rows:
        rest = f"{key:<{key_width}}  {default:<{default_width}}  {allowed}"
        if len(flag) > flag_width:
            lines.append(f"    {flag}")
            lines.append(f"    {'':<{flag_width}}  {rest}")
        else:
            lines.append(f"    {flag:<{flag_width}}  {rest}")
        lines.append(f"        {doc}")
    return lines


def run(args: argparse.Namespace) -> int:
    from ..core.config import ConfigError
    from ..core.workflows import WORKFLOWS, get_workflow
    from . import say_refused_plugins

    WORKFLOWS.found  # noqa: B018 - reads the entry points, so that a refused plugin is named
    say_refused_plugins()
    try:
        specs = [get_workflow(args.name)] if args.name else list(WORKFLOWS.values())
    except ConfigError as exc:
        return fail(str(exc))
    if args.json:
        print(json.dumps({"workflows": [spec.to_dict() for spec in specs]}, indent=2))
        return 0
    blocks = []
    for spec in specs:
        info = spec.to_dict()
        lines = [f"{spec.name}: {spec.summary}"]
        if spec.paper:
            lines.append(f"  paper: {spec.paper}")
        lines.append("  agents: " + ", ".join(f"{a.label} ({a.role})" for a in spec.agents))
        lines.append(f"  visible tests: {info['visible_tests']}")
        lines.append("  plan (default settings): " + " > ".join(s["label"] for s in info["plan"]))
        if spec.settings:
            lines.append("  settings (flag / config-file key, default, allowed):")
            lines.extend(_settings_table(spec.settings))
        else:
            lines.append("  settings: none of its own")
        blocks.append("\n".join(lines))
    print("\n\n".join(blocks))
    print("\nRun one: .venv/bin/qflow solve --workflow NAME --problem FILE --tests FILE [--SETTING VALUE ...]")
    return 0
