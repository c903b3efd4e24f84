"""The judged program's environment is the reference harnesses': numpy
(which EvalPlus requires) importable at every isolation level, read-only,
one thread, its scalars judged by value; and ``qflow doctor`` saying which
interpreter and packages a judged program sees."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from sbhelpers import LEVELS, make

from qflow_tui.cli import main
from qflow_tui.core.sandbox import Sandbox
from qflow_tui.core.sandbox.isolation import _FIND_PACKAGES, JUDGED_PACKAGES, PACKAGES_HINT


@pytest.fixture(params=LEVELS)
def sb(request):
    # numpy's import is a tenth of a second at rest: more than the other
    # sandbox tests' half second on a busy machine.
    return make(request.param, timeout=10.0)


def needs_numpy(sb: Sandbox) -> None:
    if "numpy" not in dict(sb.details.package_versions):
        pytest.skip(f"the sandbox's interpreter {sb.details.interpreter} has no numpy: {PACKAGES_HINT}")


def run(sb: Sandbox, program: str, tests: list[str]):
    return asyncio.run(sb.run_tests(program, tests, entry_point="f"))


def test_numpy_is_there_at_every_level_and_its_scalars_are_judged_by_value(sb):
    needs_numpy(sb)
    program = (
        "import numpy as np\n"
        "def f(x):\n"
        "    return np.float64(x) / 2\n"
        "def g(x):\n"
        "    return [np.int64(x), np.bool_(x > 1), np.str_('a')]\n"
        "def h(x):\n"
        "    return float(np.mean(np.arange(x)))\n"
    )
    report = run(sb, program, ["assert f(3) == 1.5", "assert g(2) == [2, True, 'a']", "assert h(5) == 2.0"])
    assert [r.status for r in report.results] == ["pass"] * 3, report.to_dict()
    # An array crosses as numpy's own: compared element-wise, as the
    # references compare it, which an assert cannot take: it does not pass.
    report = run(sb, "import numpy as np\ndef f(x):\n    return np.array([x, x])\n", ["assert f(1) == [1, 1]"])
    assert report.results[0].status == "error", report.to_dict()
    assert "truth value of an array" in (report.results[0].error or "")


def test_numpy_runs_on_one_thread(sb):
    # BLAS would start a thread per core: they would count against the
    # program's process limit, and its own time is its one thread's.
    needs_numpy(sb)
    program = (
        "import numpy as np\n"
        "np.dot(np.ones((64, 64)), np.ones((64, 64)))\n"
        "def f():\n"
        "    with open('/proc/self/status') as fh:\n"
        "        return [l.split()[1] for l in fh if l.startswith('Threads:')][0]\n"
    )
    report = run(sb, program, ["assert f() == '1'"])
    assert report.results[0].status == "pass", report.to_dict()


def test_the_packages_are_read_only(sb):
    needs_numpy(sb)
    if sb.details.layers.isdisjoint({"bwrap", "uid", "landlock"}):
        pytest.skip("at this level the program runs as you, so nothing you may write is read-only to it")
    program = (
        "import os, numpy\n"
        "def f():\n"
        "    target = os.path.join(os.path.dirname(numpy.__file__), 'qflow-was-here')\n"
        "    try:\n"
        "        open(target, 'w').close()\n"
        "    except OSError as exc:\n"
        "        return type(exc).__name__\n"
        "    os.unlink(target)\n"
        "    return 'written'\n"
    )
    report = run(sb, program, ["assert f() in ('PermissionError', 'OSError')"])
    assert report.results[0].status == "pass", report.to_dict()


def test_doctor_says_which_interpreter_and_packages_a_judged_program_sees(capsys):
    assert main(["doctor", "--no-probes", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    judged = data["judged_programs"]
    assert judged["interpreter"].startswith("/") and "the standard library" in judged["summary"]
    for name in JUDGED_PACKAGES:
        if name in judged["packages"]:
            assert f"{name} {judged['packages'][name]}" in judged["summary"] and "read-only" in judged["summary"]
        else:
            assert f"no {name}" in judged["summary"] and "python3-numpy" in judged["summary"]
    assert main(["doctor", "--no-probes"]) == 0
    assert f"judged programs run on {judged['interpreter']}" in capsys.readouterr().out


def _find(site: Path, *names: str) -> tuple[dict[str, list[str]], str]:
    """The package finder's answer for ``names`` with ``site`` first on the path,
    and the modules it imported (``-X importtime``)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", _FIND_PACKAGES, *names],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout), done.stderr


def _package(site: Path, name: str, *infos: tuple[str, str]) -> None:
    (site / name).mkdir(parents=True)
    (site / name / "__init__.py").write_text("")
    for folder, version in infos:
        (site / folder).mkdir()
        meta = "METADATA" if folder.endswith(".dist-info") else "PKG-INFO"
        (site / folder / meta).write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\nBody\n")


def test_the_package_finder_reads_the_version_beside_the_package_without_importlib_metadata(tmp_path: Path) -> None:
    # The detection waits for this script: importing importlib.metadata was
    # three quarters of its time. Its answer is the same (a Debian egg-info, a wheel's dist-info).
    _package(tmp_path, "qflowfake_a", ("qflowfake_a-1.2.3.dist-info", "1.2.3"))
    _package(tmp_path, "qflowfake_b", ("qflowfake_b-4.5.egg-info", "4.5"))
    found, imported = _find(tmp_path, "qflowfake_a", "qflowfake_b", "qflowfake_absent")
    assert found == {"qflowfake_a": ["1.2.3", str(tmp_path)], "qflowfake_b": ["4.5", str(tmp_path)]}
    assert "importlib.metadata" not in imported


def test_the_package_finder_asks_importlib_metadata_where_the_folder_is_not_plain(tmp_path: Path) -> None:
    # Two versions' metadata beside one package (a stale install): importlib.metadata decides, as before.
    _package(tmp_path, "qflowfake_c", ("qflowfake_c-1.0.dist-info", "1.0"), ("qflowfake_c-2.0.dist-info", "2.0"))
    _package(tmp_path / "other", "qflowfake_d")
    found, imported = _find(tmp_path, "qflowfake_c")
    assert found["qflowfake_c"][0] in ("1.0", "2.0") and "importlib.metadata" in imported
    found, _ = _find(tmp_path / "other", "qflowfake_d")
    assert found == {"qflowfake_d": ["?", str(tmp_path / "other")]}
