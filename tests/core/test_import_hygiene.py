"""The core never imports Textual: it must run headless and be testable alone."""

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "qflow_tui" / "core"


def test_no_core_module_imports_textual():
    offenders = []
    for path in CORE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            if any(n == "textual" or n.startswith("textual.") for n in names):
                offenders.append(str(path.relative_to(CORE)))
    assert offenders == []


def test_importing_the_whole_core_loads_no_textual():
    code = (
        "import sys, pkgutil, importlib, qflow_tui.core as c\n"
        "for m in pkgutil.walk_packages(c.__path__, 'qflow_tui.core.'):\n"
        "    importlib.import_module(m.name)\n"
        "print(any(k == 'textual' or k.startswith('textual.') for k in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
