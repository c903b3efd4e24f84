"""The report pages' tests share one real bench (QualityFlow over 3 HumanEval
problems, each first program wrong and fixed by self-debugging)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import qflow


def env_for(home: Path) -> dict[str, str]:
    return {"QFLOW_DATA_DIR": str(home / "data"), "QFLOW_CONFIG_DIR": str(home / "config"), "COLUMNS": "120"}


def ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="session")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("bench-home")
    out = home / "bench"
    ok(
        qflow(
            "bench", "--dataset", "humaneval", "--model", "script/tests/bench/scripts/late_fix.py",
            "--checker", "python", "--prompts", "1", "--epochs", "1", "--clarify", "0", "--limit", "3",
            "--price-in", "3", "--price-out", "15", "--out", str(out), env=env_for(home), timeout=300,
        )
    )  # fmt: skip
    return out
