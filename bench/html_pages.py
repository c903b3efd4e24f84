"""Does a 1,000-problem bench's HTML page stay small and open fast?

Builds a bench folder of N problems in a temporary directory (each problem's
session a copy of the bundled demo session, 110 KB of a real QualityFlow
run's events; verdicts, steps, checks, tokens and times drawn with a fixed
seed), writes its page both ways (sessions embedded gzipped, and ``--split``:
sessions as sibling pages), and measures:

- the time to write each page and its size (the embedded page must stay under 20 MB);
- the time headless chromium takes to open it: the page's own clock when its
  script has run (``performance.now()``: the table is drawn and answers keys;
  the embedded sessions come after it in the file) and at its load event (the
  whole file read), from the dumped DOM; and the browser's wall time beside the
  wall time of a page of one paragraph (the browser's own start-up).

    python bench/html_pages.py [--problems 1000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEMO = ROOT / "qflow_tui" / "data" / "demo" / "demo-session.jsonl"
STEPS = ["program_generator", "self_debug:1", "clarifier:1", "self_debug:2", "revert"]


def build(folder: Path, n: int) -> None:
    rng = random.Random(0)
    (folder / "sessions").mkdir(parents=True)
    ids = [f"mbpp/{11 + i}" for i in range(n)]
    spec = {"dataset": "mbpp", "workflow": "qualityflow", "model": "anthropic/claude-sonnet-4-5", "samples": 1,
            "convention": "completion", "problems": ids, "settings": {}, "created": "2026-12-02T00:00:00+0000",
            "app_version": "0.1.0"}  # fmt: skip
    (folder / "bench.json").write_text(json.dumps(spec))
    lines = []
    for i, pid in enumerate(ids):
        shutil.copy(DEMO, folder / "sessions" / f"{i}.jsonl")
        first = rng.random() < 0.6
        taken = STEPS[: rng.randint(1, len(STEPS))]
        passed = first or rng.random() < 0.5
        steps = [{"step": s, "passed": passed if j else first, "accepted": j == len(taken) - 1}
                 for j, s in enumerate(taken)]  # fmt: skip
        near = rng.random() < 0.02
        detail = "" if passed else "check: AssertionError" + (" (near its time limit)" if near else "")
        tokens = {
            "program_generator": {"input": rng.randint(200, 900), "output": rng.randint(50, 400), "calls": 1},
            "test_designer": {"input": rng.randint(1000, 4000), "output": rng.randint(200, 900), "calls": 5},
        }
        lines.append({
            "id": pid, "sample": 0, "status": "done", "passed": passed, "first_passed": first,
            "session": f"sessions/{i}.jsonl", "steps": steps,
            "checks": [{"step": s["step"], "accepted": s["accepted"], "passed": s["passed"]} for s in steps],
            "verdict": {"passed": passed, "status": "pass" if passed else "fail", "detail": detail},
            "tokens": tokens, "tokens_total": rng.randint(2000, 9000), "duration": round(rng.uniform(5, 90), 1),
        })  # fmt: skip
    (folder / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def chromium_open(page: Path, profile: Path) -> tuple[float, float | None, float | None]:
    """(the browser's wall time in seconds, the page's own ms when its script had run, and at its load event)."""
    started = time.perf_counter()
    done = subprocess.run(
        ["chromium", "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", f"--user-data-dir={profile}",
         "--host-resolver-rules=MAP * ~NOTFOUND", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    wall = time.perf_counter() - started
    m = re.search(r'data-ready-ms="(\d+)"', done.stdout)
    loaded = re.search(r'data-loaded-ms="(\d+)"', done.stdout)
    return wall, float(m.group(1)) if m else None, float(loaded.group(1)) if loaded else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--problems", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3, help="chromium opens per page (the median is printed)")
    ap.add_argument("--no-split", action="store_true", help="only the page with its sessions embedded")
    args = ap.parse_args()
    if shutil.which("chromium") is None:
        print("chromium is not installed (apt-get install chromium)")
        return 1
    with tempfile.TemporaryDirectory(prefix="qflow-html-") as tmp:
        root = Path(tmp)
        bench = root / "bench"
        build(bench, args.problems)
        tiny = root / "tiny.html"
        tiny.write_text("<!DOCTYPE html><html><body><p>one paragraph</p></body></html>")
        pages = {"embedded": root / "out" / "report.html", "split": root / "out-split" / "report.html"}
        if args.no_split:
            del pages["split"]
        for kind, page in pages.items():
            argv = ["bench", "report", str(bench), "--format", "html", "-o", str(page)]
            argv += ["--split"] if kind == "split" else []
            started = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "qflow_tui.cli", *argv], capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            written = time.perf_counter() - started
            size = page.stat().st_size
            siblings = sum(p.stat().st_size for p in page.parent.rglob("*.html")) - size
            print(f"{kind}: {args.problems} problems, page {size / 1e6:.2f} MB"
                  + (f" (+ {siblings / 1e6:.1f} MB of session pages beside it)" if siblings else "")
                  + f", written in {written:.1f} s")  # fmt: skip
        for kind, page in [("one paragraph", tiny), *pages.items()]:
            walls, readies, loads = [], [], []
            for i in range(args.runs):
                wall, ready, load = chromium_open(page, root / f"profile-{kind}-{i}")
                walls.append(wall)
                readies += [ready] if ready is not None else []
                loads += [load] if load is not None else []
            ready_text = f", table usable at {statistics.median(readies):.0f} ms" if readies else ""
            ready_text += f", load event at {statistics.median(loads):.0f} ms" if loads else ""
            print(f"chromium opens {kind}: wall {statistics.median(walls):.2f} s (median of {args.runs}){ready_text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
