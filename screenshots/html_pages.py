"""The report pages' pictures in screenshots/: a real 12-problem bench (the
tests' late-fix script model, QualityFlow on HumanEval) and one of its
sessions, written as pages and photographed by headless chromium.

    .venv/bin/python screenshots/html_pages.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "screenshots"


def qflow(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "qflow_tui.cli", *args], capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return done.stdout.strip()


def shoot(page: Path, png: Path, profile: Path, height: int, fragment: str = "") -> None:
    subprocess.run(
        ["chromium", "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--hide-scrollbars",
         f"--user-data-dir={profile}", "--host-resolver-rules=MAP * ~NOTFOUND", "--force-device-scale-factor=1",
         f"--window-size=1280,{height}", "--virtual-time-budget=5000", f"--screenshot={png}",
         page.as_uri() + (f"#{fragment}" if fragment else "")],
        capture_output=True, check=True, timeout=300,
    )  # fmt: skip
    print(png.relative_to(ROOT))


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="qflow-shots-") as tmp:
        root = Path(tmp)
        bench = root / "bench"
        qflow("bench", "--dataset", "humaneval", "--model", "script/tests/bench/scripts/late_fix.py",
              "--checker", "python", "--prompts", "1", "--epochs", "1", "--clarify", "0", "--limit", "12",
              "--price-in", "3", "--price-out", "15", "--out", str(bench))  # fmt: skip
        page = root / "report.html"
        qflow("bench", "report", str(bench), "--format", "html", "-o", str(page))
        shoot(page, HERE / "bench-page.png", root / "p1", 1800)
        run = root / "run.html"
        qflow("sessions", "export", str(bench / "sessions" / "humaneval-2.jsonl"), "--format", "html", "-o", str(run))
        shoot(run, HERE / "session-page.png", root / "p2", 1500)


if __name__ == "__main__":
    main()
