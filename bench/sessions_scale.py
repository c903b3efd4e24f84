"""Do sessions stay instant at benchmark scale, and are they compact?

In a fresh data folder (QFLOW_DATA_DIR points at a temporary directory; your
own sessions are never touched), writes N sessions of realistic size (copies of
the bundled demo session, 100 KB each, every one with its own title,
statement and final program), then measures, one after the other:

- a reindex from scratch (``qflow sessions reindex``: every file's header and
  tail read, statements and programs put in the full-text index);
- ``qflow sessions --json --limit 50`` (a fresh process: what a user waits for);
- a full-text search for a line of one program (``--search``, fresh process);
- the app's sessions browser: from pushing the screen to its first rows drawn;
- the peak memory of the listing process;
- the size of a compact session against the same events in the version 1
  layout (one line per text delta), and against the text of its model calls
  (prompts and answers).

    python bench/sessions_scale.py [--sessions 10000]
    python bench/sessions_scale.py --ratio SESSION [SESSION ...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEMO = ROOT / "qflow_tui" / "data" / "demo" / "demo-session.jsonl"


def write_sessions(folder: Path, count: int) -> float:
    """``count`` copies of the demo session, each with its own title, statement
    and program; returns the seconds it took."""
    lines = DEMO.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    body = lines[1:-1]
    finished = json.loads(lines[-1])
    t0 = time.perf_counter()
    for i in range(count):
        h = dict(header)
        h["title"] = f"Problem {i}: remove occurrence variant {i}"
        h["created"] = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T10:{i % 60:02d}:00+0000"
        h["problem"] = dict(header["problem"], statement=f"Variant {i}: " + header["problem"]["statement"])
        f = dict(finished, final_program=finished["final_program"] + f"\n# unique_marker_{i}\n")
        text = "\n".join([json.dumps(h), *body, json.dumps(f)]) + "\n"
        (folder / f"s{i:05d}.jsonl").write_text(text, encoding="utf-8")
    return time.perf_counter() - t0


def timed_cli(env: dict[str, str], *args: str) -> tuple[float, str, int]:
    """Wall seconds of a fresh ``qflow`` process, its output and its peak RSS (KB)."""
    probe = (
        "import resource, runpy, sys; sys.argv = ['qflow', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('qflow_tui.cli', run_name='__main__')\n"
        "finally:\n    print('MAXRSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    )
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", probe, *args], env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    rss = next((int(line.split()[1]) for line in out.stderr.splitlines() if line.startswith("MAXRSS")), 0)
    if out.returncode not in (0, None):
        raise SystemExit(f"qflow {' '.join(args)} failed: {out.stderr.strip()[-400:]}")
    return wall, out.stdout, rss


def timed_terminal(env: dict[str, str], *args: str) -> tuple[float, int]:
    """Wall seconds of a fresh ``qflow`` process whose output is a terminal (a
    pseudo-terminal of 24 lines, read to its end) and how many lines it wrote."""
    import pty  # noqa: F401  (POSIX only, like the pseudo-terminal below)

    master, slave = os.openpty()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "qflow_tui.cli", *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        env=dict(env, LINES="24"),
    )
    os.close(slave)
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:  # EIO: the process closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait()
    wall = time.perf_counter() - t0
    os.close(master)
    return wall, b"".join(chunks).count(b"\n")


async def browser_first_rows(folder: Path) -> float:
    from qflow_tui.ui.app import create_app
    from qflow_tui.ui.screens.sessions import SessionsScreen

    app = create_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        t0 = time.perf_counter()
        screen = SessionsScreen()
        await app.push_screen(screen)
        from textual.widgets import DataTable

        while True:
            await pilot.pause()
            table = screen.query(DataTable)
            if screen.loaded and table and table.first().row_count:
                return time.perf_counter() - t0
            if time.perf_counter() - t0 > 60:
                raise SystemExit("the browser showed no rows in 60 s")


def size_ratio(tmp: Path, session: Path = DEMO) -> tuple[int, int, int]:
    """Bytes of a recorded run written compact, written in the version 1 layout,
    and of the model text in it."""
    from qflow_tui.core.events import LLMCallFinished, LLMCallStarted
    from qflow_tui.core.session import read_session
    from qflow_tui.core.session.writer import SessionWriter

    data = read_session(session)
    h = data.header
    sizes = []
    for compact in (True, False):
        path = tmp / f"layout-{compact}.jsonl"
        w = SessionWriter(
            path,
            workflow=h["workflow"],
            model=h["model"],
            config=h["config"],
            problem=h["problem"],
            compact=compact,
            index=False,
        )
        for event in data.events:
            w(event)
        w.close()
        sizes.append(path.stat().st_size)
    text = 0
    for e in data.events:
        match e:
            case LLMCallStarted():
                text += len(e.system) + sum(len(m.get("content", "")) for m in e.messages)
            case LLMCallFinished():
                text += len(e.response)
    return sizes[0], sizes[1], text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=10_000)
    ap.add_argument(
        "--ratio",
        nargs="+",
        type=Path,
        metavar="SESSION",
        help="only measure the size of these sessions (e.g. a real model's) against their model text",
    )
    args = ap.parse_args()
    if args.ratio:
        with tempfile.TemporaryDirectory(prefix="qflow-ratio-") as tmp_name:
            for i, session in enumerate(args.ratio):
                (Path(tmp_name) / str(i)).mkdir()
                compact, v1, text = size_ratio(Path(tmp_name) / str(i), session)
                print(
                    f"{session.name}: compact {compact / 1024:.0f} KB, one line per delta {v1 / 1024:.0f} KB; "
                    f"model text {text / 1024:.0f} KB; compact file / text = {compact / text:.2f}"
                )
        return
    with tempfile.TemporaryDirectory(prefix="qflow-scale-") as tmp_name:
        tmp = Path(tmp_name)
        os.environ["QFLOW_DATA_DIR"] = str(tmp / "data")
        os.environ["QFLOW_CONFIG_DIR"] = str(tmp / "config")
        folder = tmp / "data" / "sessions"
        folder.mkdir(parents=True)
        env = dict(os.environ, COLUMNS="120")
        wrote = write_sessions(folder, args.sessions)
        total_mb = sum(p.stat().st_size for p in folder.iterdir()) / 2**20
        print(f"sessions: {args.sessions} files, {total_mb:.0f} MB, written in {wrote:.1f} s")

        t, _, rss = timed_cli(env, "sessions", "reindex")
        print(f"reindex from scratch:            {t:6.2f} s   (peak RSS {rss / 1024:.0f} MB)")
        t, out, rss = timed_cli(env, "sessions", "--json", "--limit", "50")
        shown = len(json.loads(out)["sessions"])
        print(f"sessions --json --limit 50:      {t:6.2f} s   ({shown} rows, peak RSS {rss / 1024:.0f} MB)")
        # `qflow sessions` in a terminal (the newest screenful) against every row (--all), one after the other.
        t_screen, lines_screen = timed_terminal(env, "sessions")
        t_all, lines_all = timed_terminal(env, "sessions", "--all")
        print(
            f"sessions in a terminal:          {t_screen:6.2f} s   ({lines_screen} lines); "
            f"--all {t_all:.2f} s ({lines_all} lines): {t_all / t_screen:.1f}x"
        )
        marker = f"unique_marker_{args.sessions // 2}"
        t, out, _ = timed_cli(env, "sessions", "--json", "--search", marker)
        found = [s["title"] for s in json.loads(out)["sessions"]]
        print(f"full-text search of a program:   {t:6.2f} s   (found {found})")
        t, _, _ = timed_cli(env, "--version")
        print(f"  (a bare `qflow --version` process for comparison: {t:.2f} s)")
        t = asyncio.run(browser_first_rows(folder))
        print(f"browser: first rows drawn after  {t:6.2f} s")

        compact, v1, text = size_ratio(tmp)
        print(
            f"demo session: compact {compact / 1024:.0f} KB, one line per delta {v1 / 1024:.0f} KB "
            f"({v1 / compact:.2f}x larger); the model calls' text (prompts and answers) {text / 1024:.0f} KB "
            f"(compact file / text = {compact / text:.2f})"
        )


if __name__ == "__main__":
    main()
