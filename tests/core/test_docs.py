"""The documentation's generated references say what the code does: each page's
regions are regenerated in memory and must match what is committed."""

import argparse
import dataclasses
import importlib.util
import os
import re
import shlex
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load_gen():
    spec = importlib.util.spec_from_file_location("qflow_docs_gen", ROOT / "docs" / "gen.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


gen = _load_gen()


@pytest.mark.parametrize("region", sorted(gen.REGIONS))
def test_each_generated_region_is_in_step_with_the_code(region):
    page, write = gen.REGIONS[region]
    path = ROOT / "docs" / page
    now = path.read_text(encoding="utf-8")
    if region == "cli" and f"As Python {gen.python()}'s argparse" not in now:
        pytest.skip(f"docs/{page} was written by another Python's argparse, whose help reads differently")
    if gen.fill(now, region, write()) != now:
        pytest.fail(
            f"docs/{page} ({region}) is out of step with the code: run `python docs/gen.py` (or `make docs`)",
            pytrace=False,
        )


def test_filling_a_region_keeps_the_prose_around_it():
    page = "# Title\n\nBefore.\n\n<!-- generated: x -->\nold\nlines\n<!-- end -->\n\nAfter.\n"
    filled = gen.fill(page, "x", "new")
    assert filled == "# Title\n\nBefore.\n\n<!-- generated: x -->\nnew\n<!-- end -->\n\nAfter.\n"
    assert gen.fill(filled, "x", "new") == filled
    assert gen.fill("<!-- generated: x -->\n<!-- end -->\n", "x", "a") == "<!-- generated: x -->\na\n<!-- end -->\n"


def test_a_page_without_its_region_is_refused_in_one_line():
    with pytest.raises(SystemExit) as refused:
        gen.fill("# Keys\n\nno markers here\n", "keys", "anything")
    assert str(refused.value) == "gen: no region `<!-- generated: keys -->` ... `<!-- end -->` to fill"


def test_check_mode_names_the_stale_page_and_writes_nothing(tmp_path, monkeypatch, capsys):
    docs = tmp_path / "docs"
    for page in {page for page, _ in gen.REGIONS.values()}:
        (docs / page).parent.mkdir(parents=True, exist_ok=True)
        (docs / page).write_text((ROOT / "docs" / page).read_text(encoding="utf-8"), encoding="utf-8")
    stale = docs / "reference" / "keys.md"
    stale.write_text(stale.read_text(encoding="utf-8").replace("| yes |", "| no |", 1), encoding="utf-8")
    before = stale.read_text(encoding="utf-8")
    monkeypatch.setattr(gen, "DOCS", docs)
    assert gen.main(["--check"]) == 1
    assert stale.read_text(encoding="utf-8") == before
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "keys.md" in err and "run `python docs/gen.py` (or `make docs`)" in err
    assert gen.main([]) == 0
    assert gen.main(["--check"]) == 0
    assert stale.read_text(encoding="utf-8") == (ROOT / "docs" / "reference" / "keys.md").read_text(encoding="utf-8")


def test_the_cli_reference_is_each_commands_help_at_a_fixed_width(monkeypatch):
    from qflow_tui.cli import build_parser

    monkeypatch.setenv("COLUMNS", "40")
    text = gen.cli_reference()
    monkeypatch.setenv("COLUMNS", "200")
    assert gen.cli_reference() == text
    for parser in gen._walk(build_parser()):
        assert f"`{parser.prog}`" in text
    assert "#### `qflow sessions export`" in text and "#### `qflow bench open`" in text
    monkeypatch.setenv("COLUMNS", str(gen.HELP_WIDTH))
    assert f"```text\n{build_parser().format_help().rstrip()}\n```" in text


def test_the_config_reference_has_every_run_setting_and_every_workflow_setting():
    from qflow_tui.core.config import RunConfig
    from qflow_tui.core.workflows import WORKFLOWS

    text = gen.config_reference()
    for field in dataclasses.fields(RunConfig):
        if field.name != "workflow_settings":  # each workflow's own: their tables below
            assert f"| `{field.name}` | `QFLOW_{field.name.upper()}` |" in text
    for spec in WORKFLOWS.values():
        assert f"#### {spec.name}" in text
        for setting in spec.settings:
            assert f"`{setting.flag}`" in text and setting.allowed().replace("|", "\\|") in text
    # Its own words, not a copy of the CLI's: the field's docstring, literals in Markdown.
    assert "(`http://host:8080/v1`)" in text


def test_a_workflow_added_at_run_time_gets_its_settings_documented(monkeypatch):
    """The workflows come from where `qflow workflows` gets them, not a list of names:
    a workflow provided some other way (a plugin) is documented as it appears."""
    from qflow_tui.core import workflows
    from qflow_tui.core.workflows import Setting

    extra = dataclasses.replace(
        workflows.WORKFLOWS["zeroshot"],
        name="pluggedin",
        summary="A workflow from elsewhere",
        settings=(Setting("budget", "programs it may write", default=5, minimum=1, maximum=9),),
    )
    # As if its entry point were installed: the registry's own table gets it.
    monkeypatch.setitem(workflows.WORKFLOWS.found, "pluggedin", extra)
    text = gen.config_reference()
    section = text.split("#### pluggedin", 1)[1]
    assert "A workflow from elsewhere." in section
    assert "| `--budget` | `budget` | int | `5` | 1 to 9 | programs it may write |" in section


def test_the_keys_reference_lists_every_described_binding_of_every_ui_class():
    from textual.binding import Binding

    text = gen.keys_reference()
    classes = gen._ui_classes()
    names = {cls.__name__ for cls in classes}
    assert {"QFlowApp", "ComposeScreen", "RunScreen", "ReplayScreen", "SessionsScreen", "RunView"} <= names
    for cls in classes:
        assert f"`{cls.__module__}.{cls.__name__}`" in text
        for binding in cls.__dict__["BINDINGS"]:
            assert isinstance(binding, Binding)
            if binding.description:
                what = binding.description + (f": {binding.tooltip}" if binding.tooltip else "")
                assert what.replace("|", "\\|") in text, (cls.__name__, binding.key)
    # Keys as the app's own key help writes them; a pane says which screens show it.
    assert "| `^r` | Run: Check the input and start the run | yes |" in text
    assert "| `/`, `^f` | Search:" in text
    assert "On the replay screen and the run screen." in text


def test_the_home_page_quotes_the_readmes_set_up_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quoted = gen.setup_commands()
    commands = [line for line in quoted.splitlines() if line.startswith("python3 -m venv")]
    assert len(commands) >= 2
    for command in commands:
        assert f"\n{command}\n" in readme
    assert "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && .venv/bin/python -m pytest -q" in commands


def test_every_built_in_workflow_has_its_page():
    from qflow_tui.core.workflows import WORKFLOWS

    built_in = {spec.name for spec in WORKFLOWS.values() if spec.runner.startswith("qflow_tui.")}
    assert set(gen.BUILT_IN_WORKFLOWS) == built_in
    for name in built_in:
        assert f"workflow-{name}" in gen.REGIONS and (ROOT / "docs" / "workflows" / f"{name}.md").is_file()


def test_a_workflow_page_says_its_agents_plan_and_settings():
    text = gen.workflow_page("codetree")()
    assert "Critic (`critic`)" in text and "| `solver` |" in text
    assert "| `--budget` | `budget` | int | `20` | 1 to 200 |" in text
    assert '| `--baseline` | `baseline` | str | `"qualityflow"` |' in gen.workflow_page("zeroshot")()
    with pytest.raises(SystemExit, match="no workflow 'nosuch'"):
        gen.workflow_page("nosuch")()


def test_the_solve_json_sample_is_a_real_runs_output():
    """What `qflow solve --json` printed, indented, with only its duration and its
    session's file name (which differ on every run) replaced."""
    import json

    text = gen.solve_json_sample()
    sample = text.split("```json\n", 1)[1].split("\n```", 1)[0]
    result = json.loads(sample.replace("<seconds>", "0"))
    assert result["outcome"] == "accepted" and result["accepted_at"] == "self_debug:1"
    assert result["session"].startswith("<data folder>/sessions/<time>-") and result["session"].endswith("-<id>.jsonl")
    assert result["tokens"]["test_quality_checker"]["calls"] == 10
    assert "def remove_Occ(s, ch):" in result["final_program"]
    assert ".venv/bin/qflow solve \\\n    --problem tests/data/mbpp11/problem.txt" in text


# -- the README ---------------------------------------------------------------------------

README = ROOT / "README.md"
README_MOST_LINES = 200
"""The README leads a newcomer to a first run; the depth lives in docs/ (issue 32)."""


def _readme_commands(path: Path = README) -> list[str]:
    """Every command line of a page's shell blocks, comments cut off, continued lines joined."""
    text = path.read_text(encoding="utf-8")
    lines: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"\s+#\s.*$", "", line).strip()
            if line:
                lines.append(line)
    return lines


def test_the_readme_stays_short():
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= README_MOST_LINES, (
        f"README.md has {lines} lines, more than {README_MOST_LINES}: move the depth into docs/ and link it"
    )


def test_every_link_of_the_readme_resolves():
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links, "the README links into the docs"
    for link in links:
        if re.match(r"[a-z]+:", link):
            continue
        path, _, anchor = link.partition("#")
        target = ROOT / path
        assert target.is_file(), f"README.md links to {link}, which does not exist"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", target.read_text(encoding="utf-8"), flags=re.MULTILINE)
            slugs = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}
            assert anchor in slugs, f"README.md links to {link}: {path} has no such heading"


def _opens_the_app(args: argparse.Namespace) -> bool:
    return args.command in (None, "demo", "replay") or bool(getattr(args, "tui", False))


def test_every_example_of_the_readme_runs_as_written(tmp_path):
    """Each `qflow` command of the README: those that run headless and offline are run,
    in the README's order (the sessions listing sees the run before it), with the data
    and config folders and /tmp in a temporary folder; those that open the app, or need
    the `local` extra and minutes, are parsed by qflow's own parser, and the files they
    name must exist. Install lines may name only extras pyproject.toml declares."""
    import subprocess
    import tomllib

    from qflow_tui.cli import build_parser

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("QFLOW_") and not k.endswith("_API_KEY")}
    env |= {"QFLOW_CONFIG_DIR": str(tmp_path / "config"), "QFLOW_DATA_DIR": str(tmp_path / "data"), "NO_COLOR": "1"}
    commands = _readme_commands()
    ran = []
    for line in commands:
        for part in (p.strip() for p in line.split("&&")):
            words = shlex.split(part)
            if words[0] == "export":
                continue
            if "pip" in words[0]:
                for extra in re.findall(r"\.\[([\w,]+)\]", part):
                    assert set(extra.split(",")) <= set(extras), f"README: {part}: no such extra"
                continue
            if words[0] in ("python3", ".venv/bin/python"):
                continue  # the set-up commands: .ci/run runs them word for word
            assert words[0] == ".venv/bin/qflow", f"README: an example that is not qflow's: {part}"
            try:
                args = build_parser().parse_args(words[1:])
            except SystemExit:
                pytest.fail(f"README: qflow refuses `{part}`", pytrace=False)
            for name in ("model", "problem", "tests"):
                value = getattr(args, name, None) or ""
                named = value.split("/", 1)[1] if value.startswith("script/") else value
                if name != "model" and "/" in value and not Path(ROOT / value).exists():
                    assert re.fullmatch(r"[a-z-]+/\d+", value), f"README: `{part}` names {value}, which does not exist"
                if value.startswith("script/"):
                    assert (ROOT / named).is_file(), f"README: `{part}` names {named}, which does not exist"
            if _opens_the_app(args) or (args.model or "").startswith("local/"):
                continue
            argv = [w.replace("/tmp/", f"{tmp_path}/") for w in words[1:]]
            done = subprocess.run(
                [sys.executable, "-c", "import sys; from qflow_tui.cli import main; sys.exit(main())", *argv],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert done.returncode == 0, f"README: `{part}` failed ({done.returncode}): {done.stderr.strip()[-500:]}"
            ran.append(args.command)
    assert {"solve", "sessions", "bench"} <= set(ran)


def test_every_qflow_command_of_the_docs_is_one_qflow_takes():
    """The pages' examples are parsed by qflow's own parser (the README's are also run)."""
    from qflow_tui.cli import build_parser

    pages = sorted((ROOT / "docs").rglob("*.md"))
    checked = 0
    for page in pages:
        for line in _readme_commands(page):
            for part in (p.strip() for p in line.split("&&")):
                words = shlex.split(part)
                if words[0] != ".venv/bin/qflow":
                    continue
                try:
                    args = build_parser().parse_args(words[1:])
                except SystemExit:
                    pytest.fail(f"{page.relative_to(ROOT)}: qflow refuses `{part}`", pytrace=False)
                model = getattr(args, "model", None) or ""
                if model.startswith("script/"):
                    assert _script_file(model[len("script/") :]).is_file(), f"{page.relative_to(ROOT)}: `{part}`"
                checked += 1
    assert checked > 20


def _script_file(named: str) -> Path:
    """The file ``script/<named>`` runs: a path from the top, or an installed
    module (``qflow_mapcoder.script_model``) that one of the repository's
    example packages holds."""
    from qflow_tui.core.llm.script import script_module_name

    module = script_module_name(named)
    if module is None:
        return ROOT / named
    relative = Path(*module.split(".")).with_suffix(".py")
    found = [p / relative for p in (ROOT, *sorted((ROOT / "examples").iterdir())) if (p / relative).is_file()]
    return found[0] if found else ROOT / relative


API = ROOT / "docs" / "reference" / "api.md"


def _api_entries() -> list[tuple[str, list[str]]]:
    """Each ``::: module.Name`` of the API reference, with the members its
    ``members: [...]`` option lists (empty: the object alone)."""
    text = API.read_text(encoding="utf-8")
    found = re.findall(r"^::: ([\w.]+)\n((?:    .*\n)*)", text, re.M)
    entries = []
    for name, options in found:
        listed = re.search(r"members: \[(.*)\]", options)
        entries.append((name, [m.strip() for m in listed.group(1).split(",")] if listed else []))
    return entries


def _documented(module: str) -> dict[str, bool]:
    """Every top-level name and ``Class.member`` of ``module``'s source, and
    whether it has a docstring (an attribute's is the string right after it),
    read with ast as Griffe reads it for the reference."""
    import ast

    path = ROOT / (module.replace(".", "/") + ".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: dict[str, bool] = {}

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for i, node in enumerate(body):
            after = body[i + 1] if i + 1 < len(body) else None
            said = isinstance(after, ast.Expr) and isinstance(getattr(after.value, "value", None), str)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                out[prefix + node.name] = ast.get_docstring(node) is not None
                if isinstance(node, ast.ClassDef) and not prefix:
                    walk(node.body, node.name + ".")
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                out[prefix + node.target.id] = said
            elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                out[prefix + node.targets[0].id] = said

    walk(tree.body, "")
    return out


def test_the_api_reference_documents_everything_it_lists():
    # The reference (built by mkdocstrings from the docstrings) answers what a
    # plugin author had to ask help() for: each object it shows, and each
    # member it lists, has a docstring of its own.
    missing = []
    for name, members in _api_entries():
        module, _, obj = name.rpartition(".")
        documented = _documented(module)
        assert obj in documented, f"docs/reference/api.md names {name}, which does not exist"
        for member in [obj, *(f"{obj}.{m}" for m in members)]:
            if not documented.get(member):
                missing.append(f"{module}.{member}")
    assert not missing, "no docstring: " + ", ".join(missing)


def test_the_api_reference_covers_what_a_plugin_touches():
    shown = {name.rpartition(".")[2]: members for name, members in _api_entries()}
    wanted = {
        "WorkflowSpec": [
            "progressions",
            "stage_words",
            "step_words",
            "debugger",
            "decided",
            "rank",
            "pass_at_last",
            "tabs",
            "test_judge",
            "settings",
            "executes_visible",
            "checker",
            "steering",
        ],
        "Setting": ["of", "env"],
        "Steerable": ["edits", "first_stage", "program_stages"],
        "RunContext": ["call", "request", "event"],
    }
    for obj, members in wanted.items():
        assert obj in shown and set(members) <= set(shown[obj]), obj
    for obj in ("Agent", "PlannedStep", "WorkflowResult", "execute_tests", "SandboxReport", "step", "Decision"):
        assert obj in shown, obj


ARCHITECTURE = ROOT / "docs" / "architecture.md"
#: A path as the page writes one: with a folder, or a file with its suffix.
_PATH = re.compile(r"[\w./-]*[\w-](?:/|\.(?:py|md|toml|tcss|txt|jsonl))(?![\w/])")


def _tree_paths(block: str) -> list[str]:
    """The paths of a layer map (``qflow_tui/`` then indented names), each
    joined to the folders it is indented under."""
    paths, stack = [], []  # stack: (indent, folder)
    for line in block.splitlines():
        name = line.strip().split(" ", 1)[0]
        if not name or not _PATH.fullmatch(name):
            continue
        indent = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = "".join(folder for _, folder in stack) + name
        paths.append(path)
        if name.endswith("/"):
            stack.append((indent, name))
    return paths


def _exists(path: str) -> bool:
    """``path`` from the repository's root, from ``qflow_tui/`` or from
    ``qflow_tui/core/``, or (a bare file name, as the diagram lists a folder's
    files) anywhere under ``qflow_tui/``."""
    where = path.rstrip("/")
    if any((root / where).exists() for root in (ROOT, ROOT / "qflow_tui", ROOT / "qflow_tui" / "core")):
        return True
    return "/" not in where and any((ROOT / "qflow_tui").rglob(where))


def test_every_path_the_architecture_page_names_exists():
    text = ARCHITECTURE.read_text(encoding="utf-8")
    blocks = re.findall(r"```text\n(.*?)```", text, re.S)
    layer_map = next(b for b in blocks if b.startswith("qflow_tui/"))
    named = _tree_paths(layer_map)
    rest = text.replace(layer_map, "")
    rest = re.sub(r"\]\([^)]*\)", "]", rest)  # links to other pages: mkdocs --strict checks those
    rest = re.sub(r"[\w./-]*<[^>]*>[\w./-]*", "", rest)  # a pattern (replay/<session.jsonl>), not a path
    named += _PATH.findall(rest)
    assert len(named) > 40
    missing = sorted({p for p in named if not _exists(p)})
    assert not missing, f"docs/architecture.md names paths that do not exist: {', '.join(missing)}"
    # The layer map names every module and package of the core.
    core = ROOT / "qflow_tui" / "core"
    shown = {p.removeprefix("qflow_tui/core/") for p in named if p.startswith("qflow_tui/core/")}
    wanted = {p.name + "/" for p in core.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    wanted |= {"run_state.py", "summary.py", "resume.py", "workflow_run.py", "context.py", "steps.py"}
    assert wanted <= shown, f"the layer map misses {', '.join(sorted(wanted - shown))}"
