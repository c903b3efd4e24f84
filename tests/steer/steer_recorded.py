"""A recorded QualityFlow run of MBPP 11 (tests/scripts/mbpp11.py) made by a
script model that logs every call it is asked, for forks to branch from."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.helpers import qflow, write_logging_mbpp11

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "mbpp11"


class Recorded:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.responder = tmp / "responder.py"
        write_logging_mbpp11(self.responder)
        self.sessions = tmp / "sessions"
        out = qflow(
            "solve",
            "--problem",
            str(DATA / "problem.txt"),
            "--tests",
            str(DATA / "tests.py"),
            "--model",
            f"script/{self.responder}",
            "--prompts",
            "1",
            "--session-dir",
            str(self.sessions),
            "--json",
            cwd=tmp,
        )
        assert out.returncode == 0, out.stderr
        self.summary = json.loads(out.stdout)
        self.path = Path(self.summary["session"])
        self.live_log.unlink()

    @property
    def live_log(self) -> Path:
        return self.tmp / "live.log"

    def qflow(self, *args: str) -> subprocess.CompletedProcess[str]:
        return qflow(*args, cwd=self.tmp)

    def live_calls(self) -> list[str]:
        return self.live_log.read_text().splitlines() if self.live_log.exists() else []
