"""mypy's strict rules cover every module of qflow_tui, commands/ included: a
module left out of them drifts back to untyped signatures unseen."""

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "qflow_tui"

#: The options of mypy's --strict that are set per module in pyproject.toml.
STRICT = (
    "disallow_untyped_defs",
    "disallow_incomplete_defs",
    "disallow_untyped_calls",
    "disallow_untyped_decorators",
    "disallow_any_generics",
    "disallow_subclassing_any",
    "warn_return_any",
    "no_implicit_reexport",
    "strict_equality",
    "extra_checks",
)

#: The child-side script of the sandbox: stdlib only, checked by its own tests.
UNTYPED_ON_PURPOSE = {"qflow_tui.core.sandbox.harness"}


def _modules() -> list[str]:
    names = []
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return sorted(names)


def _matches(module: str, pattern: str) -> bool:
    if pattern.endswith(".*"):
        return module == pattern[:-2] or fnmatch.fnmatchcase(module, pattern)
    return module == pattern


def test_every_module_is_under_the_strict_rules():
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    strict = [o for o in mypy.get("overrides", []) if all(o.get(k) is True for k in STRICT)]
    assert strict, "no [[tool.mypy.overrides]] block sets all of mypy's strict options"
    patterns = [p for o in strict for p in o["module"]]
    loose = [m for m in _modules() if m not in UNTYPED_ON_PURPOSE and not any(_matches(m, p) for p in patterns)]
    assert loose == [], f"modules outside mypy's strict rules: {loose}"
    assert "qflow_tui" in mypy["files"]
