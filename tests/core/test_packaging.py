"""The wheel must carry every package, the prompts and the themes."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_source_package_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "qflow_tui").rglob("__init__.py")}
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"
    assert {"qflow_tui._prompts", "qflow_tui._themes"} <= listed


def test_prompt_variants_the_paper_asks_for_exist():
    from qflow_tui.core.prompts import PromptLibrary

    lib = PromptLibrary()
    assert len(lib.variants("qualityflow/program_generator")) == 6
    assert len(lib.variants("qualityflow/self_debugger")) == 3
    # Section 3.6: diversified prompts for every agent, the clarifier's attempts included.
    assert len(lib.variants("qualityflow/clarifier")) == 3
    assert len(lib.variants("qualityflow/program_generator", "clarified")) == 3
    for agent, name in [
        ("qualityflow/test_designer", "common_cases"),
        ("qualityflow/test_quality_checker", "default"),
        ("qualityflow/code_quality_checker", "turn1"),
        ("qualityflow/code_quality_checker", "turn2"),
        ("qualityflow/yesno_checker", "default"),
    ]:
        assert lib.get(agent, name).user


def test_a_built_package_finds_prompts_themes_and_data_outside_the_checkout(tmp_path):
    """What `pip install .` (not editable) ships: setuptools' build_py lays out the
    package as the wheel will, with prompts/ and themes/ mapped inside it."""
    import subprocess
    import sys

    lib = tmp_path / "lib"
    subprocess.run(
        [sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py", "--build-lib", str(lib)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    code = (
        "from qflow_tui.locations import prompts_dir, themes_dir\n"
        "from qflow_tui.core.prompts import PromptLibrary\n"
        "from qflow_tui.core.bench.datasets import load_benchmark_problem\n"
        f"assert str(prompts_dir()).startswith({str(lib)!r}), prompts_dir()\n"
        "assert len(PromptLibrary().variants('qualityflow/program_generator')) == 6\n"
        "from qflow_tui.core.workflows import WORKFLOWS\n"
        "assert list(WORKFLOWS)[0] == 'qualityflow', list(WORKFLOWS)\n"
        "assert sorted(p.name for p in themes_dir().glob('*.tcss'))\n"
        "from qflow_tui.core.bench.evaluate import timed_check_source\n"
        f"import qflow_tui.core.bench.checks as checks; assert checks.__file__.startswith({str(lib)!r})\n"
        "assert 'def _qf_timed_check(' in timed_check_source('def check(c):\\n    pass\\n')\n"
        "from qflow_tui.core.sandbox import harness, launch\n"
        f"assert harness.__file__.startswith({str(lib)!r})\n"
        "assert 'def _zygote_main(' in launch.harness_source()\n"
        "print(load_benchmark_problem('mbpp/11').entry_point)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={"PYTHONPATH": str(lib), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "remove_Occ"
