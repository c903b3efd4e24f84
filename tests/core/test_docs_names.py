"""Every qflow name the guides use is in the API reference (issue 54: a
plugin author had to read the source for what the guides named). The
guides' Python blocks are read for what they import from ``qflow_tui`` and
for the qflow classes they name; their inline code for qflow classes,
``Class.member``, dotted ``qflow_tui...`` paths and calls of the functions
their blocks import (a span that is one name, dotted or called). Each must be an entry of docs/reference/api.md (a
class entry without a ``members`` list shows all its public members)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "docs" / "reference" / "api.md"
GUIDES = sorted((ROOT / "docs" / "guide").glob("*.md"))

_IMPORT = re.compile(r"^\s*from (qflow_tui[\w.]*) import (?:\(([^)]*)\)|([^\n]*))", re.M)
#: A Python block: ``python`` quotes a file (tests/workflows/test_plugin_workflow.py
#: holds each to it), ``py`` is an illustration of the guide's own.
_BLOCK = re.compile(r"```(?:python|py)\n(.*?)```", re.S)
_INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_SPAN = re.compile(r"([A-Za-z_][\w.]*)(?:\(.*\))?(?:\s*->.*)?")


def _module_file(module: str) -> Path:
    path = ROOT / (module.replace(".", "/") + ".py")
    return path if path.is_file() else ROOT / module.replace(".", "/") / "__init__.py"


def _public_members(module: str, obj: str) -> set[str]:
    tree = ast.parse(_module_file(module).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == obj:
            names: set[str] = set()
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    names.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names.add(item.target.id)
                elif isinstance(item, ast.Assign) and isinstance(item.targets[0], ast.Name):
                    names.add(item.targets[0].id)
            return {n for n in names if not n.startswith("_")}
    return set()


def documented(text: str) -> set[str]:
    """The names an API reference documents: each entry's object and its
    members (``Class.member``), all public members where none are listed."""
    names: set[str] = set()
    for dotted, options in re.findall(r"^::: ([\w.]+)\n((?:    .*\n)*)", text, re.M):
        module, _, obj = dotted.rpartition(".")
        names.add(obj)
        listed = re.search(r"members: \[(.*)\]", options)
        members = [m.strip() for m in listed.group(1).split(",")] if listed else sorted(_public_members(module, obj))
        names.update(f"{obj}.{m}" for m in members if m)
    return names


@cache
def qflow_classes() -> frozenset[str]:
    """Every class (and CamelCase type alias) defined at the top of a qflow_tui module."""
    out: set[str] = set()
    for path in (ROOT / "qflow_tui").rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                out.add(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                target = node.targets[0] if isinstance(node, ast.Assign) else node.target
                if isinstance(target, ast.Name) and re.fullmatch(r"[A-Z][a-z]\w*", target.id):
                    out.add(target.id)
    return frozenset(out)


def used_names(page: str) -> set[str]:
    """The qflow names a guide uses (see the module docstring)."""
    blocks = _BLOCK.findall(page)
    imported: set[str] = set()
    for block in blocks:
        for _, grouped, line in _IMPORT.findall(block):
            imported.update(n.strip() for n in (grouped or line).replace("\n", " ").split(",") if n.strip())
    used = set(imported)
    classes = qflow_classes()
    for block in blocks:
        used.update(w for w in _code_names(block) if w in classes)
    for code in _INLINE.findall(page):
        # A span that is a name, a dotted name or a call (`Sample Input` is words).
        whole = _SPAN.fullmatch(code.strip())
        for word in [whole.group(1)] if whole else []:
            if word.startswith("qflow_tui."):
                module, _, name = word.rpartition(".")
                is_module = _module_file(word).is_file() or (ROOT / word.replace(".", "/")).is_dir()
                if not is_module and _module_file(module).is_file():
                    used.add(name)
                continue
            head, _, member = word.partition(".")
            if head in classes:
                used.add(head)
                if member and re.fullmatch(r"[a-z_]\w*", member.split(".")[0]):
                    used.add(f"{head}.{member.split('.')[0]}")
            elif head in imported and not member:
                used.add(head)
    return used


def _code_names(block: str) -> list[str]:
    """The names a block of Python uses, outside its strings and comments
    (the ``"Writer"`` of a label is not the class ``Writer``)."""
    names = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(block).readline):
            if token.type == tokenize.NAME:
                names.append(token.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # a fragment: the names read up to where it stops
    return names


def test_every_qflow_name_the_guides_use_is_in_the_api_reference() -> None:
    known = documented(API.read_text(encoding="utf-8"))
    missing = []
    for guide in GUIDES:
        for name in sorted(used_names(guide.read_text(encoding="utf-8")) - known):
            missing.append(f"{guide.relative_to(ROOT)} uses `{name}`")
    assert not missing, "not in docs/reference/api.md: " + "; ".join(missing)


def test_the_check_finds_a_name_the_reference_lacks() -> None:
    """The check can fail: a page naming an undocumented class, member or
    imported function is caught, and a documented one is not."""
    page = (
        "Read `Problem.statement` and `Problem.nosuch`, and call `tests_text(ctx)`.\n\n"
        "```python\nfrom qflow_tui.core.agents.shown import tests_text\nx: RunState\n```\n"
    )
    reference = "::: qflow_tui.core.problem.Problem\n    options:\n      members: [statement]\n"
    assert used_names(page) - documented(reference) == {"Problem.nosuch", "tests_text", "RunState"}
    assert {"Problem", "Problem.statement"} <= documented(reference)


EXAMPLES = [
    *sorted((ROOT / "examples" / "qflow-debugloop").rglob("*.py")),
    *sorted((ROOT / "tests" / "data" / "plugin" / "qflow-plainshot").rglob("*.py")),
    *sorted((ROOT / "tests" / "data" / "plugin" / "qflow-tinyset").rglob("*.py")),
]


#: The share of a block's lines found in an example file from which the block
#: is a quote of it (an adaptation, as bring-a-dataset's, shares fewer).
QUOTED = 0.8


def drifted_blocks(page: str, sources: dict[str, str]) -> list[str]:
    """The Python blocks of ``page`` that quote an example file (most of
    their lines are its lines) but are no longer in it, whole."""
    out = []
    for block in _BLOCK.findall(page):
        lines = [line for line in block.strip().splitlines() if line.strip()]
        if not lines or any(block.strip() in text for text in sources.values()):
            continue
        for name, text in sources.items():
            own = set(text.splitlines())
            if sum(line in own for line in lines) >= QUOTED * len(lines):
                out.append(f"the block starting `{lines[0]}` differs from {name}")
    return out


def test_the_guides_quote_the_example_packages_as_they_are() -> None:
    """A guide's block that shows an example package's code (the example pages
    include the files themselves) is that file's text, word for word: an
    example changed without its guide fails here."""
    sources = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in EXAMPLES}
    drift = []
    quoted = 0
    for guide in GUIDES:
        page = guide.read_text(encoding="utf-8")
        drift += [f"{guide.relative_to(ROOT)}: {d}" for d in drifted_blocks(page, sources)]
        quoted += sum(1 for b in _BLOCK.findall(page) if any(b.strip() in t for t in sources.values()))
    assert not drift, "; ".join(drift)
    assert quoted >= 5
    # A block that quotes a file and then differs is caught.
    edited = sources["examples/qflow-debugloop/qflow_debugloop/run.py"].replace("fix + 1", "fix + 2", 1)
    page = "```python\n" + edited.split("async def run_debugloop", 1)[0].strip() + "\n```\n"
    assert not drifted_blocks(page, sources)
    page = "```python\nasync def run_debugloop" + edited.split("async def run_debugloop", 1)[1] + "```\n"
    assert drifted_blocks(page, sources)
