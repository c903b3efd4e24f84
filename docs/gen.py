"""Writes the documentation's generated references (CLI, configuration, keys)
from the code itself, so that they cannot drift from what qflow does.

Each reference fills a marked region of its page::

    <!-- generated: cli -->
    ...written by this script...
    <!-- end -->

and the prose around a region is left as it is. ``python docs/gen.py`` rewrites
the regions; ``python docs/gen.py --check`` only says which pages are out of
step (tests/core/test_docs.py does the same in memory).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import functools
import inspect
import io
import json
import os
import pkgutil
import re
import sys
import textwrap
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent

HELP_WIDTH = 100
"""Columns the CLI reference's help is formatted at (argparse reads COLUMNS)."""

COMMAND = "python docs/gen.py"


# -- the CLI reference ------------------------------------------------------------------


@contextlib.contextmanager
def _columns(width: int) -> Iterator[None]:
    """argparse wraps help at the terminal's width, which it reads from COLUMNS."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def _subcommands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """A parser's subcommands in the order they were added, each once (an alias
    names the same parser again)."""
    out: list[argparse.ArgumentParser] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                if all(sub is not seen for seen in out):
                    out.append(sub)
    return out


def _walk(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for sub in _subcommands(parser):
        yield from _walk(sub)


def python() -> str:
    """The Python whose argparse wrote the CLI reference: help differs between
    versions (3.13 writes ``-o, --output FILE`` where 3.11 writes ``-o FILE,
    --output FILE``)."""
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def cli_reference() -> str:
    """Every command's and subcommand's ``--help``, from the parser ``qflow`` itself builds."""
    from qflow_tui.cli import build_parser

    parts = [f"As Python {python()}'s argparse formats it at {HELP_WIDTH} columns."]
    with _columns(HELP_WIDTH):
        for parser in _walk(build_parser()):
            depth = parser.prog.count(" ")
            heading = "#" * min(depth + 2, 4)
            parts.append(f"{heading} `{parser.prog}`\n\n```text\n{parser.format_help().rstrip()}\n```")
    return "\n\n".join(parts)


# -- the configuration reference ----------------------------------------------------------


def _field_docs(cls: type) -> dict[str, str]:
    """The docstrings written under a dataclass's fields (Python keeps none at run time)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = typing.cast(ast.ClassDef, tree.body[0]).body
    docs: dict[str, str] = {}
    for node, following in zip(body, [*body[1:], None], strict=True):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            words = " ".join(inspect.cleandoc(following.value.value).split())
            docs[node.target.id] = words.replace("``", "`")  # reStructuredText's literals, in Markdown
    return docs


def _type_words(hint: Any) -> str:
    if typing.get_origin(hint) is typing.Literal:
        return " | ".join(f"`{value}`" for value in typing.get_args(hint))
    args = typing.get_args(hint)
    if args:
        return " or ".join(_type_words(a) for a in args)
    return "none" if hint is type(None) else getattr(hint, "__name__", str(hint))


def _value(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if isinstance(value, str):
        return f'`"{value}"`'
    return f"`{value}`"


def _cell(text: str) -> str:
    """Markdown table cells: a ``|`` would end the cell, a line break the row."""
    return " ".join(text.split()).replace("|", "\\|")


def _workflows() -> list[dict[str, Any]]:
    """The workflows and their settings as ``qflow workflows --json`` prints them:
    whatever provides the workflows (built in or as plugins), this is the answer
    a user gets."""
    from qflow_tui.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["workflows", "--json"])
    if status != 0:
        raise SystemExit(f"gen: `qflow workflows --json` failed ({status})")
    workflows: list[dict[str, Any]] = json.loads(out.getvalue())["workflows"]
    return workflows


def _setting_flags() -> dict[str, tuple[str, str]]:
    """Each run setting's flags and their help, as `qflow solve` (or else the app)
    takes them: other commands' flags of the same name may mean something else
    (`qflow sessions --model` filters by model)."""
    from qflow_tui.cli import build_parser

    top = build_parser()
    solve = next(p for p in _subcommands(top) if p.prog == "qflow solve")
    out: dict[str, tuple[str, str]] = {}
    for parser in (solve, top):
        for action in parser._actions:
            if action.option_strings and action.dest not in out and action.dest != "help":
                longs = [s for s in action.option_strings if s.startswith("--")]
                out[action.dest] = (" / ".join(f"`{s}`" for s in longs), action.help or "")
    return out


def config_reference() -> str:
    """The run settings (RunConfig's fields), then each workflow's own settings."""
    from qflow_tui.core import config

    workflows = _workflows()
    docs = _field_docs(config.RunConfig)
    flags = _setting_flags()
    hints = typing.get_type_hints(config.RunConfig)
    defaults = config.RunConfig()
    lines = [
        "### Run settings",
        "",
        "Each key is read from the config file's `[run]` table (or its top level), then from its "
        "environment variable, then from its flag (`qflow solve`'s, or the app's).",
        "",
        "| Key | Environment | Flag | Type | Default | What it sets |",
        "|---|---|---|---|---|---|",
    ]
    for field in dataclasses.fields(config.RunConfig):
        key = field.name
        if key == "workflow_settings":  # the tables below, not a key of [run]
            continue
        flag, flag_help = flags.get(key, ("", ""))
        what = docs.get(key) or flag_help or "-"
        row = [
            f"`{key}`",
            f"`QFLOW_{key.upper()}`",
            flag or "-",
            _type_words(hints[key]),
            _value(getattr(defaults, key)),
            what,
        ]
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    lines += [
        "",
        "### Per-model settings",
        "",
        'A `[models."provider/name"]` table sets these for one model only (above the `[run]` table, '
        "below the environment and the flags): " + ", ".join(f"`{k}`" for k in config.MODEL_SETTINGS) + ".",
        "",
        "### Workflow settings",
        "",
        "Each workflow declares its own settings (built-in or a plugin's alike). Each is read from "
        "the config file's `[workflow.<name>]` table, then from its environment variable "
        "(`QFLOW_<KEY>`, for every workflow that has the key), then from its flag, which sets the "
        "chosen workflow's setting and is refused for a setting that workflow does not have. A "
        "workflow's key in `[run]` (as older files have it) applies to every workflow that has it. "
        "A session records every setting of its workflow, resolved.",
        "",
    ]
    for spec in workflows:
        lines += [f"#### {spec['name']}", "", _cell(spec["summary"]) + "."]
        if spec.get("paper"):
            lines[-1] += f" From {spec['paper']}."
        lines.append("")
        lines += [_settings_table(spec), ""]
    return "\n".join(lines).rstrip()


def _settings_table(spec: dict[str, Any]) -> str:
    """One workflow's own settings as a table, as ``qflow workflows --json`` gives them."""
    if not spec["settings"]:
        return "No settings of its own."
    lines = ["| Flag | Key | Type | Default | Allowed | What it sets |", "|---|---|---|---|---|---|"]
    for s in spec["settings"]:
        flag = f"`{s['flag']}` / `--no-{s['flag'][2:]}`" if s["type"] == "bool" else f"`{s['flag']}`"
        row = [flag, f"`{s['key']}`", s["type"], _value(s["default"]), s["allowed"], s["doc"]]
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    return "\n".join(lines)


def workflow_page(name: str) -> Callable[[], str]:
    """The writer of a workflow page's generated part: its agents, its plan of
    steps for the default settings, its use of the visible tests and its settings."""

    def write() -> str:
        spec = next((w for w in _workflows() if w["name"] == name), None)
        if spec is None:
            raise SystemExit(f"gen: `qflow workflows` lists no workflow {name!r}")
        labels = {a["role"]: a["label"] for a in spec["agents"]}
        lines = [
            "**Agents:** " + ", ".join(f"{a['label']} (`{a['role']}`)" for a in spec["agents"]) + ".",
            "",
            f"**Visible tests:** {_cell(spec['visible_tests'])}.",
            "",
            "**Its plan of steps with the default settings** (the run's first event carries it, so the "
            "app, replay and the session browser draw it):",
            "",
            "| Step | What | Agents |",
            "|---|---|---|",
        ]
        for step in spec["plan"]:
            who = ", ".join(labels.get(agent, agent) for agent in step["agents"]) or "none (no model call)"
            shared = " (once a run)" if step.get("shared") else ""
            lines.append(f"| `{step['step']}` | {_cell(step['label'] + shared)} | {_cell(who)} |")
        if not spec["settings"]:
            lines += [
                "",
                "**Settings:** none of its own; the [run settings](../reference/config.md#run-settings) apply.",
            ]
            return "\n".join(lines)
        lines += [
            "",
            "**Settings** (each a flag of `qflow solve`, `qflow bench`, `qflow replay --rerun` and the app, "
            f"and a key of the config file's `[workflow.{name}]` table):",
            "",
            _settings_table(spec),
        ]
        return "\n".join(lines)

    return write


# -- the keys reference -------------------------------------------------------------------


def _ui_classes() -> list[type]:
    """Every class of qflow's UI that declares key bindings, found by importing
    the UI's modules (nothing is started)."""
    import qflow_tui.ui

    found: list[type] = []
    for info in pkgutil.walk_packages(qflow_tui.ui.__path__, "qflow_tui.ui."):
        module = __import__(info.name, fromlist=["_"])
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == info.name and cls.__dict__.get("BINDINGS") and cls not in found:
                found.append(cls)
    return found


def _key_words(app: Any, binding: Any) -> str:
    """Every key of a binding, as the app's key help (``?``) writes them."""
    from textual.binding import Binding

    shown = dict.fromkeys(app.get_key_display(Binding(k.strip(), "")) for k in binding.key.split(","))
    return ", ".join(f"``{key}``" if "`" in key else f"`{key}`" for key in shown)


def _name(cls: type) -> str:
    """``SessionsScreen`` -> ``Sessions screen``."""
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z][a-z]*|[a-z]+", cls.__name__)
    return " ".join([words[0], *(w.lower() if len(w) > 1 and not w.isupper() else w for w in words[1:])])


def _summary(cls: type) -> str:
    """The first sentence of a class's docstring, without pointers to elsewhere."""
    first = " ".join((inspect.getdoc(cls) or "").split("\n\n")[0].split())
    first = re.sub(r"\s*\(see the module docstring\)|;?\s*see the module docstring", "", first)
    first = re.sub(r":\w+:`([^`]+)`", r"\1", first).replace("``", "`")
    return first.split(". ")[0].rstrip(".") + "." if first else ""


@functools.cache
def _class_sources() -> dict[type, str]:
    """The source of every class qflow's UI modules define (once :func:`_ui_classes`
    imported them), each module parsed once a process (parsing them all takes
    a second)."""
    out: dict[type, str] = {}
    for name, module in sorted(sys.modules.items()):
        if not name.startswith("qflow_tui.ui.") or module is None or not getattr(module, "__file__", None):
            continue
        lines = Path(module.__file__).read_text(encoding="utf-8").splitlines()
        for node in ast.parse("\n".join(lines)).body:
            cls = getattr(module, node.name, None) if isinstance(node, ast.ClassDef) else None
            if isinstance(cls, type) and cls.__module__ == name:
                out[cls] = "\n".join(lines[node.lineno - 1 : node.end_lineno])
    return out


def _used_by(widget: type) -> list[type]:
    """The screens a widget is part of: those whose code names it, directly or
    through another widget."""
    from textual.screen import Screen
    from textual.widget import Widget

    sources = _class_sources()
    screens: list[type] = []
    todo, seen = [widget], {widget}
    while todo:
        pattern = re.compile(rf"\b{todo.pop().__name__}\b")
        for other, source in sources.items():
            if other in seen or not pattern.search(source):
                continue
            seen.add(other)
            if issubclass(other, Screen):
                screens.append(other)
            elif issubclass(other, Widget):
                todo.append(other)
    return screens


def keys_reference() -> str:
    """Each screen's keys from its class's BINDINGS, then the dialogs', then the
    panes' (with the screens that show them), then the app's (everywhere)."""
    from textual.app import App
    from textual.screen import ModalScreen, Screen

    from qflow_tui.core.config import RunConfig
    from qflow_tui.ui.app import QFlowApp

    app = QFlowApp(RunConfig(), remember_theme=False)  # built for its key display, never run
    classes = _ui_classes()
    kinds: list[tuple[str, Callable[[type], bool]]] = [
        ("Screens", lambda c: issubclass(c, Screen) and not issubclass(c, ModalScreen)),
        ("Dialogs", lambda c: issubclass(c, ModalScreen)),
        ("Panes", lambda c: not issubclass(c, (Screen, App))),
        ("Everywhere", lambda c: issubclass(c, App)),
    ]
    lines: list[str] = []
    for kind, belongs in kinds:
        members = [c for c in classes if belongs(c)]
        if not members:
            continue
        lines += [f"### {kind}", ""]
        for cls in members:
            lines += [f"#### {'The app' if kind == 'Everywhere' else _name(cls)}", ""]
            # A dialog's docstring speaks to programmers (what it dismisses with).
            about = "" if kind == "Dialogs" else _summary(cls)
            if kind == "Panes":
                users = _used_by(cls)
                if users:
                    about += " On the " + " and the ".join(sorted(_name(u).lower() for u in users)) + "."
            lines += [f"{about} (`{cls.__module__}.{cls.__name__}`)".strip(), ""]
            lines += ["| Key | What it does | In the footer |", "|---|---|---|"]
            for binding in cls.__dict__["BINDINGS"]:
                if not binding.description:
                    continue
                what = binding.description + (f": {binding.tooltip}" if binding.tooltip else "")
                row = [_key_words(app, binding), what, "yes" if binding.show else "no"]
                lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
            lines.append("")
    return "\n".join(lines).rstrip()


# -- the set-up commands -----------------------------------------------------------------


def setup_commands() -> str:
    """The README's set-up commands (each fenced block that makes the venv), with
    the line that introduces each: they stay first in the README and true, as
    .ci/run checks; the site quotes them instead of saying them again its own way."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.findall(r"([^\n]+)\n\n```(\w*)\n(python3 -m venv \.venv[^\n]*)\n```", readme)
    if not found:
        raise SystemExit("gen: README.md has no fenced `python3 -m venv .venv ...` command to quote")
    return "\n\n".join(f"{intro}\n\n```{lang or 'sh'}\n{command}\n```" for intro, lang, command in found)


# -- the `qflow solve --json` sample ------------------------------------------------------

SOLVE_SAMPLE = [
    "solve",
    "--problem",
    "tests/data/mbpp11/problem.txt",
    "--tests",
    "tests/data/mbpp11/tests.py",
    "--model",
    "script/tests/scripts/mbpp11.py",
    "--prompts",
    "1",
    "--json",
]
"""The run the sample comes from: the script model's MBPP No. 11 story with one
progression. With the default six, whether a losing progression's last call is cut
or finishes before the winner is known depends on timing (the sandbox is real), so
the sample's counts would change from run to run."""


@functools.cache
def solve_json_sample() -> str:
    """The command and what it printed, from a real run in a fresh process with an
    empty config and data folder (so nobody's own settings show). The object is
    indented for reading; the two values that differ on every run, its duration and
    its session's file name, are shown as placeholders."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="qflow-docs-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("QFLOW_") and not k.endswith("_API_KEY")}
        env |= {
            "QFLOW_CONFIG_DIR": f"{tmp}/config",
            "QFLOW_DATA_DIR": f"{tmp}/data",
            "QFLOW_CACHE_DIR": f"{tmp}/cache",
            "NO_COLOR": "1",
        }
        done = subprocess.run(
            [sys.executable, "-c", "import sys; from qflow_tui.cli import main; sys.exit(main())", *SOLVE_SAMPLE],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    if done.returncode != 0:
        raise SystemExit(f"gen: `qflow {' '.join(SOLVE_SAMPLE)}` failed ({done.returncode}): {done.stderr.strip()}")
    result = json.loads(done.stdout)
    name = re.sub(r"^\d{8}-\d{6}-(.*)-[0-9a-f]+(\.jsonl(?:\.gz)?)$", r"<time>-\1-<id>\2", Path(result["session"]).name)
    result["session"] = f"<data folder>/sessions/{name}"
    result["duration"] = "<seconds>"
    text = json.dumps(result, indent=2, ensure_ascii=False)
    text = text.replace('"<seconds>"', "<seconds>")
    command = " ".join(SOLVE_SAMPLE).replace(" --", " \\\n    --")
    return f"```sh\n.venv/bin/qflow {command}\n```\n\nprints (indented here):\n\n```json\n{text}\n```"


# -- the bench scripts ------------------------------------------------------------------


def bench_scripts() -> str:
    """Each script in bench/ with the first paragraph of its docstring (what `make
    bench` prints), so a new script appears on the performance page by itself."""
    lines = ["| Script | What it is for |", "|---|---|"]
    for path in sorted((ROOT / "bench").glob("*.py")):
        about = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        first = " ".join(about.split("\n\n")[0].split()).replace("``", "`")
        lines.append(f"| `bench/{path.name}` | {_cell(first) or '-'} |")
    return "\n".join(lines)


# -- the pages ----------------------------------------------------------------------------

#: The workflows that ship with qflow, each with a page of its own under workflows/.
BUILT_IN_WORKFLOWS = ("qualityflow", "agentcoder", "codetree", "adacoder", "zeroshot")

#: Each generated region: its name, the page it lives on and what writes it.
REGIONS: dict[str, tuple[str, Callable[[], str]]] = {
    "setup": ("index.md", setup_commands),
    "cli": ("reference/cli.md", cli_reference),
    "config": ("reference/config.md", config_reference),
    "keys": ("reference/keys.md", keys_reference),
    "solve-json": ("solve.md", solve_json_sample),
    "bench-scripts": ("performance.md", bench_scripts),
    **{f"workflow-{name}": (f"workflows/{name}.md", workflow_page(name)) for name in BUILT_IN_WORKFLOWS},
}


def fill(text: str, name: str, content: str) -> str:
    """``text`` with region ``name`` holding ``content``; the rest untouched."""
    pattern = re.compile(rf"(<!-- generated: {re.escape(name)} -->\n)(?:.*?\n)?(<!-- end -->)", re.DOTALL)
    if not pattern.search(text):
        raise SystemExit(f"gen: no region `<!-- generated: {name} -->` ... `<!-- end -->` to fill")
    return pattern.sub(lambda m: m.group(1) + content + "\n" + m.group(2), text, count=1)


def expected() -> dict[Path, tuple[str, str]]:
    """Each page with a region: (what it holds now, what it should hold)."""
    pages: dict[Path, tuple[str, str]] = {}
    for name, (page, write) in REGIONS.items():
        path = DOCS / page
        now = pages[path][0] if path in pages else path.read_text(encoding="utf-8")
        before = pages[path][1] if path in pages else now
        pages[path] = (now, fill(before, name, write()))
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say which pages are out of step")
    args = parser.parse_args(argv)
    stale = []
    for path, (now, want) in expected().items():
        if now != want:
            stale.append(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
            if not args.check:
                path.write_text(want, encoding="utf-8")
    if args.check and stale:
        print(f"gen: out of step: {', '.join(map(str, stale))}; run `{COMMAND}` (or `make docs`)", file=sys.stderr)
        return 1
    for path in stale:
        print(f"gen: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
