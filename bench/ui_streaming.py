"""Does the app keep up with six progressions streaming at once?

Runs the same scripted QualityFlow run (MBPP No. 11, 6 progressions, every
answer padded to a few thousand characters and streamed in 3-word chunks as fast
as the event loop allows) three ways in one process, and prints:

- how long the run takes headless (the core alone) and inside the app, and
  the ratio: the price of drawing it;
- the app's event-loop lag (how late a 10 ms timer fires) while idle and while
  the run streams: what a key press waits for;
- how many events the run emitted and streamed characters per second.

    python bench/ui_streaming.py [--size 160x48] [--pad 3000] [--delay 0.03]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from qflow_tui.core.config import RunConfig  # noqa: E402
from qflow_tui.core.events import TextDelta  # noqa: E402
from qflow_tui.core.llm.script import ScriptClient, load_script_module  # noqa: E402
from qflow_tui.core.problem import make_problem  # noqa: E402
from qflow_tui.core.sandbox import Sandbox, SandboxConfig  # noqa: E402
from qflow_tui.core.workflow_run import run_workflow  # noqa: E402

MBPP11 = load_script_module(ROOT / "tests" / "scripts" / "mbpp11.py")
FILLER = "Let me think about this step by step, one character at a time. "


def client(pad: int, delay: float) -> ScriptClient:
    return ScriptClient.from_function(padded_responder(pad), stream_delay=delay)


def padded_responder(pad: int):
    def respond(request: dict) -> str:
        text = MBPP11.respond(request)
        # Reasoning first, the answer last: extraction reads the end.
        return (FILLER * (pad // len(FILLER) + 1))[:pad] + "\n" + text

    return respond


def problem():
    data = ROOT / "tests" / "data" / "mbpp11"
    return make_problem((data / "problem.txt").read_text(), (data / "tests.py").read_text())


class LagProbe:
    """Samples how late a 10 ms sleep wakes up on the running loop."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._task: asyncio.Task | None = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            start = loop.time()
            await asyncio.sleep(0.01)
            self.samples.append((loop.time() - start - 0.01) * 1000)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> list[float]:
        assert self._task is not None
        self._task.cancel()
        try:
            await self._task
        except asyncio.CancelledError:
            pass
        return self.samples


def stats(samples: list[float]) -> str:
    if not samples:
        return "n/a"
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"p50 {statistics.median(ordered):6.1f}  p99 {p99:6.1f}  max {ordered[-1]:6.1f}"


async def headless(pad: int, delay: float, sandbox: Sandbox, out: Path) -> tuple[float, float, int, int]:
    count = 0
    chars = 0

    def sink(event) -> None:
        nonlocal count, chars
        count += 1
        if isinstance(event, TextDelta):
            chars += len(event.text)

    start = time.perf_counter()
    cpu = time.process_time()
    await run_workflow(
        problem(),
        RunConfig(model="script/bench"),
        client=client(pad, delay),
        sandbox=sandbox,
        sinks=[sink],
        session_dir=out,
    )
    return time.perf_counter() - start, time.process_time() - cpu, count, chars


async def in_app(
    pad: int, delay: float, sandbox: Sandbox, size: tuple[int, int]
) -> tuple[float, float, list[float], list[float]]:
    from qflow_tui.ui.app import create_app
    from qflow_tui.ui.screens.compose import EXAMPLE_STATEMENT, EXAMPLE_TESTS

    app = create_app(
        RunConfig(model="script/bench"),
        client=client(pad, delay),
        sandbox=sandbox,
        problem_text=EXAMPLE_STATEMENT,
        tests_text=EXAMPLE_TESTS,
        remember_theme=False,
    )
    app.settle_memory = True  # what App.run sets for the CLI; run_test does not
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        idle = LagProbe()
        idle.start()
        await asyncio.sleep(1.5)
        idle_samples = await idle.stop()
        busy = LagProbe()
        busy.start()
        start = time.perf_counter()
        cpu = time.process_time()
        await pilot.press("ctrl+r")
        await pilot.pause()
        await app.workers.wait_for_complete()
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu
        busy_samples = await busy.stop()
        await pilot.pause()
    return elapsed, cpu, idle_samples, busy_samples


#: How both probes say "painted": at the moment Textual makes its Ready event,
#: which it does right after the first screen's first paint, before any handler
#: of Ready runs (qflow's collects Python's garbage there, after the paint).
_SAY_PAINTED = """
import sys
from textual import events

_ready = events.Ready.__init__

def _painted(self, *args, **kwargs):
    _ready(self, *args, **kwargs)
    sys.stdout.write("painted\\n")
    sys.stdout.flush()

events.Ready.__init__ = _painted
"""

#: The child that times a launch: runs `qflow` with no arguments, as a user does
#: (qflow_tui.cli.main), with Textual's App.run swapped for a headless run at 80x24,
#: and checks the first screen was the compose form.
_LAUNCH = (
    """
import gc
gc.disable()  # what qflow's main() does first; this probe needs Textual before it, to swap App.run
"""
    + _SAY_PAINTED
    + """
import asyncio
from textual.app import App

async def run(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert type(app.screen).__name__ == "ComposeScreen", app.screen

App.run = lambda app, **_: asyncio.run(run(app))
from qflow_tui.cli import main
main([])
"""
)


#: The floor the launch is measured against, in the same run: a Textual app of
#: four widgets (a header, a text area, an input, a footer), launched the same way.
_FLOOR = (
    _SAY_PAINTED
    + """
import asyncio
from textual.app import App
from textual.widgets import Footer, Header, Input, TextArea

class Floor(App):
    def compose(self):
        yield Header()
        yield TextArea()
        yield Input()
        yield Footer()

async def main():
    async with Floor().run_test(size=(80, 24)) as pilot:
        await pilot.pause()

asyncio.run(main())
"""
)


def _launch(program: str) -> float:
    import os
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, env=env, text=True)
    assert child.stdout is not None
    line = child.stdout.readline()
    elapsed = time.perf_counter() - start
    child.wait()
    if line.strip() != "painted":
        raise SystemExit(f"the launch probe failed (exit {child.returncode})")
    return elapsed


def launch_to_compose(runs: int = 7) -> tuple[list[float], list[float]]:
    """Seconds from starting a Python process to the first painted compose screen,
    and to the first painted floor app, launched in turn."""
    ours: list[float] = []
    floor: list[float] = []
    for _ in range(runs):
        ours.append(_launch(_LAUNCH))
        floor.append(_launch(_FLOOR))
    return ours, floor


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="160x48", help="terminal size, WxH")
    parser.add_argument("--pad", type=int, default=3000, help="characters of reasoning before each answer")
    parser.add_argument(
        "--delay",
        type=float,
        default=0.0,
        help="seconds between 3-word chunks of one stream (0: as fast as the loop allows; 0.03 is a fast model)",
    )
    args = parser.parse_args()
    width, height = (int(x) for x in args.size.lower().split("x"))
    sandbox = Sandbox(SandboxConfig())
    with tempfile.TemporaryDirectory() as tmp:
        import os

        os.environ["QFLOW_DATA_DIR"] = tmp  # sessions of this bench go to a temp folder
        os.environ["QFLOW_CONFIG_DIR"] = tmp
        core_s, core_cpu, events, chars = await headless(args.pad, args.delay, sandbox, Path(tmp))
        app_s, app_cpu, idle, busy = await in_app(args.pad, args.delay, sandbox, (width, height))
        launches, floors = launch_to_compose()
    rate = (
        "as fast as the loop allows" if not args.delay else f"a 3-word chunk every {args.delay * 1000:g} ms per stream"
    )
    print(
        f"scripted QualityFlow run, 6 progressions, answers padded to {args.pad} chars, {rate}, app at {width}x{height}"
    )
    print(f"sandbox: {sandbox.isolation}; {events} events, {chars} streamed characters")
    print(f"{'':28}{'seconds':>9}{'cpu s':>9}  (cpu: this process, not the sandboxed programs)")
    print(f"{'run, core alone':28}{core_s:9.2f}{core_cpu:9.2f}")
    print(f"{'run, in the app':28}{app_s:9.2f}{app_cpu:9.2f}   ratio {app_s / core_s:4.2f}x")
    print(f"{'streamed chars/s in the app':28}{chars / app_s:9.0f}")
    print("event-loop lag of a 10 ms timer, ms:")
    print(f"  idle app       {stats(idle)}")
    print(f"  while running  {stats(busy)}")
    print(
        f"launch to the first painted compose screen: median {statistics.median(launches):.2f} s, "
        f"best {min(launches):.2f} s (of {len(launches)})"
    )
    print(
        f"  the same for a Textual app of four widgets: median {statistics.median(floors):.2f} s, "
        f"best {min(floors):.2f} s; qflow's own share: {statistics.median(launches) - statistics.median(floors):.2f} s"
    )


if __name__ == "__main__":
    asyncio.run(main())
