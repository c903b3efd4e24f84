"""How soon does `qflow bench --tui` show the bench, and how full is it then?

Launches `qflow bench --tui --dataset mbpp --limit 5` with the demo's script
model (as a user types it, through qflow_tui.cli.main, with Textual's App.run
swapped for a headless run at 80x24) and prints, for each launch:

- seconds from starting the process to the first paint of the bench screen
  (the bench table on screen, every problem listed);
- how many of the problems had already finished at that moment (0 is the
  point: the screen is up before the bench gets going, and fills as it runs);
- seconds to the end of the bench (every problem finished, seen on screen).

With ``--vs DIR`` (another checkout, e.g. ``git archive BASE | tar -x -C
/tmp/base``) the two are launched in turn, so both meet the same machine, and
the ratio of their first paints is printed. With ``--load N`` the same launches
run again with N CPU hogs per core (busy Python loops this script starts and
ends), as the issue saw it (8-11 s on a busy machine).

    .venv/bin/python bench/bench_tui_paint.py [--runs 3] [--vs /tmp/base] [--load 4] [--limit 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The child: `qflow bench --tui ...` headless at 80x24. It says "painted N"
#: at the bench screen's first paint (N: problems finished then, from the
#: bench's results file) and "ended" once the screen shows the bench finished.
_CHILD = """
import asyncio, json, sys
from pathlib import Path
from textual.app import App
from textual.screen import Screen

OUT = Path(sys.argv[1])
ARGS = sys.argv[2:]

def finished() -> int:
    try:
        lines = (OUT / "results.jsonl").read_text().splitlines()
    except OSError:
        return 0
    return sum(1 for line in lines if line.strip() and json.loads(line).get("status") == "done")

_refresh = Screen._compositor_refresh
_said = []

def _painted(self):
    _refresh(self)
    if not _said and type(self).__name__ == "BenchScreen" and self.is_current:
        _said.append(True)
        import time
        sys.stdout.write(f"painted {finished()} {len(self.rows)} {time.process_time():.3f}\\n")
        sys.stdout.flush()

Screen._compositor_refresh = _painted

async def run(app):
    async with app.run_test(size=(80, 24)) as pilot:
        while not (_said and getattr(app.screen, "finished", False)):
            await asyncio.sleep(0.05)
        sys.stdout.write("ended\\n")
        sys.stdout.flush()

App.run = lambda app, **_: asyncio.run(run(app))
from qflow_tui.cli import main
main(["bench", "--tui", "--out", str(OUT), *ARGS])
"""


def launch(limit: int, root: Path = ROOT) -> tuple[float, int, float, float]:
    """Seconds to the first paint, problems finished then, seconds to the end,
    and the process's CPU seconds to the first paint (what a busy machine
    stretches), of the qflow in the checkout ``root``."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "PYTHONPATH": str(root),
            "QFLOW_DATA_DIR": tmp,
            "QFLOW_CONFIG_DIR": tmp,
        }
        # As a user's install runs: Python writes and reads its bytecode cache.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        args = [
            "--dataset",
            "mbpp",
            "--limit",
            str(limit),
            "--model",
            "script/qflow_tui/data/demo/responder.py",
        ]
        start = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(Path(tmp) / "bench"), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=root,
            text=True,
        )
        assert child.stdout is not None
        first = child.stdout.readline().split()
        painted = time.perf_counter() - start
        last = child.stdout.readline().strip()
        ended = time.perf_counter() - start
        child.wait()
        if len(first) != 4 or first[0] != "painted" or last != "ended":
            raise SystemExit(f"the probe failed (exit {child.returncode}): {first} {last!r}")
        if int(first[2]) != limit:
            raise SystemExit(f"the first paint listed {first[2]} problems of {limit}")
        return painted, int(first[1]), ended, float(first[3])


def hogs(count: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()


def measure(runs: int, limit: int, vs: Path | None) -> dict[Path, list[tuple[float, int, float, float]]]:
    """Launches of this checkout and of ``vs``, in turn."""
    out: dict[Path, list[tuple[float, int, float, float]]] = {ROOT: []}
    if vs is not None:
        out[vs] = []
    for _ in range(runs):
        for root in out:
            out[root].append(launch(limit, root))
    return out


def line(label: str, rows: list[tuple[float, int, float, float]], limit: int) -> str:
    paint = statistics.median(r[0] for r in rows)
    done = max(r[1] for r in rows)
    end = statistics.median(r[2] for r in rows)
    cpu = statistics.median(r[3] for r in rows)
    return (
        f"{label:<44} first paint median {paint:5.2f} s (best {min(r[0] for r in rows):.2f}, "
        f"worst {max(r[0] for r in rows):.2f}), {cpu:.2f} CPU s; finished at paint: at most {done}/{limit}; "
        f"bench ended {end:5.2f} s"
    )


def report(condition: str, results: dict[Path, list[tuple[float, int, float, float]]], limit: int) -> None:
    for root, rows in results.items():
        print(line(f"{condition}, {'this checkout' if root == ROOT else root}", rows, limit))
    if len(results) == 2:
        ours, theirs = (statistics.median(r[0] for r in rows) for rows in results.values())
        ours_cpu, theirs_cpu = (statistics.median(r[3] for r in rows) for rows in results.values())
        print(
            f"{condition}: this checkout / the other: first paint {ours / theirs:.2f}, "
            f"CPU to the first paint {ours_cpu / theirs_cpu:.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="launches per condition (and per checkout)")
    parser.add_argument("--limit", type=int, default=5, help="MBPP problems in the bench")
    parser.add_argument("--vs", type=Path, help="another checkout to launch in turn with this one")
    parser.add_argument("--load", type=int, default=0, help="also measure with this many CPU hogs per core")
    args = parser.parse_args()
    vs = args.vs.resolve() if args.vs else None
    if vs is not None and not (vs / "qflow_tui" / "cli.py").is_file():
        raise SystemExit(f"--vs {args.vs}: not a qflow-tui checkout (no qflow_tui/cli.py)")
    cores = len(os.sched_getaffinity(0))
    print(f"{cores} cores, load {os.getloadavg()[0]:.1f} before; {args.runs} launches per condition")
    for root in (ROOT, vs):
        if root is not None:
            launch(args.limit, root)  # writes the bytecode cache, as a user's first launch does
    report(f"load {os.getloadavg()[0]:.1f}", measure(args.runs, args.limit, vs), args.limit)
    if args.load > 0:
        running = hogs(args.load * cores)
        try:
            time.sleep(2.0)  # the hogs settle in
            results = measure(args.runs, args.limit, vs)
            label = f"+{len(running)} CPU hogs, load {os.getloadavg()[0]:.1f}"
        finally:
            stop(running)
        report(label, results, args.limit)


if __name__ == "__main__":
    main()
