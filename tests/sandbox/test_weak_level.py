"""The weak levels are unmissable: where a judged program could signal every
process of its user (``rlimits``: nothing but limits), ``qflow doctor`` and the
compose screen show a red line, and as root a run refuses such a level the
user's settings chose unless a second setting accepts it, saying why in one
line. Only honest programs run here: a hostile one at rlimits as root could
end every process on the machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from qflow_tui.core.sandbox import (
    WEAK_AS_ROOT_ENV,
    Sandbox,
    SandboxConfig,
    WeakLevelRefused,
    detect_isolation,
    weak_refusal,
    weak_warning,
)
from tests.helpers import MBPP11, qflow

WEAK = {"QFLOW_SANDBOX_ISOLATION": "rlimits"}
ROOT = os.geteuid() == 0
as_root = pytest.mark.skipif(not ROOT, reason="the refusal is for runs as root")


@pytest.fixture
def honest(tmp_path):
    code = tmp_path / "code.py"
    code.write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    tests = tmp_path / "tests.py"
    tests.write_text("assert add(1, 2) == 3\n", encoding="utf-8")
    return code, tests


def test_a_weak_level_has_its_warning_and_a_strong_one_none():
    weak = detect_isolation("rlimits")
    line = weak_warning(weak)
    assert line is not None and "kill(-1, SIGKILL)" in line and "\n" not in line
    strong = detect_isolation("auto")
    if strong.protects()["signals to the app / other processes"]:
        assert weak_warning(strong) is None and weak_refusal(strong) is None


def test_doctor_shows_the_red_line(tmp_path):
    out = qflow("doctor", "--no-probes", env=WEAK)
    assert out.returncode == 0, out.stderr
    second = out.stdout.splitlines()[1]
    assert second.strip().startswith("weak sandbox: at rlimits only a judged program can kill every process")
    data = json.loads(qflow("doctor", "--json", "--no-probes", env=WEAK).stdout)
    assert any("kill(-1, SIGKILL)" in w for w in data["warnings"])
    calm = json.loads(qflow("doctor", "--json", "--no-probes").stdout)
    if calm["protects"]["signals to the app / other processes"]:
        assert calm["warnings"] == []


@as_root
def test_rlimits_as_root_needs_the_second_setting(honest, monkeypatch, tmp_path):
    code, tests = honest
    refused = qflow("check", "--code", str(code), "--tests", str(tests), env=WEAK)
    assert refused.returncode == 3
    assert len(refused.stderr.strip().splitlines()) == 1 and "Traceback" not in refused.stderr
    assert "QFLOW_SANDBOX_ISOLATION=rlimits as root" in refused.stderr
    assert f"set {WEAK_AS_ROOT_ENV}=1 as well to accept that risk" in refused.stderr
    solve = qflow(
        "solve",
        *MBPP11,
        "--session-dir",
        str(tmp_path / "sessions"),
        env=WEAK,
    )
    assert solve.returncode != 0 and "kill(-1, SIGKILL)" in solve.stderr and "Traceback" not in solve.stderr
    bench = qflow(
        "bench",
        "--dataset",
        "mbpp",
        "--ids",
        "11",
        "--model",
        "script/tests/scripts/mbpp11.py",
        "--out",
        str(tmp_path / "bench"),
        env=WEAK,
    )
    assert bench.returncode != 0 and "kill(-1, SIGKILL)" in bench.stderr and "Traceback" not in bench.stderr
    accepted = qflow("check", "--code", str(code), "--tests", str(tests), "--json", env={**WEAK, WEAK_AS_ROOT_ENV: "1"})
    assert accepted.returncode == 0, accepted.stderr
    assert json.loads(accepted.stdout)["isolation"].startswith("rlimits only")
    # In process: the user's level refuses; a level the caller names itself (tests, tools) does not.
    monkeypatch.setenv("QFLOW_SANDBOX_ISOLATION", "rlimits")
    monkeypatch.delenv(WEAK_AS_ROOT_ENV, raising=False)
    with pytest.raises(WeakLevelRefused):
        Sandbox(SandboxConfig())
    assert Sandbox(SandboxConfig(isolation="rlimits")).isolation.startswith("rlimits only")


def test_the_compose_screen_shows_the_red_line(tmp_path):
    code = textwrap.dedent(
        """
        import asyncio
        from textual.widgets import Static
        from qflow_tui.core.config import RunConfig
        from qflow_tui.ui.app import create_app
        async def main():
            app = create_app(RunConfig(model='script/tests/scripts/mbpp11.py'), remember_theme=False)
            async with app.run_test(size=(80, 24)) as pilot:
                notice = app.screen_stack[0].query_one('#compose-notices', Static)
                for _ in range(600):  # until the level is found on its thread
                    await pilot.pause(0.05)
                    if 'weak sandbox' in str(notice.content):
                        break
                print(repr(str(notice.content)), notice.display)
        asyncio.run(main())
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, **WEAK}, timeout=180
    )
    assert out.returncode == 0, out.stderr
    assert "weak sandbox: at rlimits only" in out.stdout and out.stdout.strip().endswith("True"), out.stdout
