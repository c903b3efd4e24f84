"""Regenerate the SVG screenshots in this folder from the real app.

    python screenshots/generate.py            # all of them
    python screenshots/generate.py accepted   # the ones whose name contains "accepted"
    python screenshots/generate.py --list     # their names

Each picture is the app `qflow` opens, driven by the MBPP No. 11 script model
(tests/scripts/mbpp11.py) and the real sandbox, at a fixed terminal size, with
a frozen clock and toasts cleared so that reruns give the same pictures. Runs
shown mid-stream are frozen on an asyncio.Event, not on a timer. Config and
sessions go to a temporary folder: your own settings are neither read nor
changed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "ui")]

Scenario = Callable[..., Awaitable[None]]


def make_app(client=None, *, theme: str = "qflow-dark", stepping: bool = False, **config):
    from ui_fakes import mbpp11_client  # the script model, as a client

    from qflow_tui.core.config import RunConfig
    from qflow_tui.ui.app import create_app
    from qflow_tui.ui.screens.compose import EXAMPLE_STATEMENT, EXAMPLE_TESTS

    # The workflow's own settings (prompts, clarify) are not RunConfig fields: replace() takes them.
    cfg = RunConfig(model="script/tests/scripts/mbpp11.py", theme=theme).replace(**config)
    return create_app(
        cfg,
        client=client or mbpp11_client(),
        problem_text=EXAMPLE_STATEMENT,
        tests_text=EXAMPLE_TESTS,
        stepping=stepping,
        clock=lambda: 0.0,
        remember_theme=False,
    )


async def shoot(name: str, app, size: tuple[int, int], steps: Scenario) -> Path:
    from ui_steps import settle

    out = HERE / f"{name}.svg"
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await steps(pilot)
        await settle(pilot)
        app.save_screenshot(filename=out.name, path=str(HERE))
    return out


async def nothing(pilot) -> None:
    return None


def scenarios() -> list[tuple[str, Callable[[], object], tuple[int, int], Scenario]]:
    from ui_fakes import FreezingClient, always_wrong_client, load_responder
    from ui_steps import finish_run, start_run, step_to, wait_for_gate, wait_until

    def frozen():
        return FreezingClient(load_responder(), "self_debugger")

    async def bad_input(pilot):
        pilot.app.screen.query_one("#tests").load_text("remove_Occ('hello', 'l')\n")
        await pilot.press("ctrl+r")

    def midway(client):
        async def steps(pilot):
            await start_run(pilot)
            await wait_until(pilot, lambda: client.blocked == 6, "six self-debuggers streaming")

        return steps

    async def paused(pilot):
        screen = await start_run(pilot)
        await wait_for_gate(pilot, screen, "program_generator")
        # Gates stop each progression in turn: step until progression 0's check.
        await step_to(pilot, screen, "quality_check:program_generator", 0)
        await pilot.press("1")

    def finished(*keys: str):
        async def steps(pilot):
            await start_run(pilot)
            await finish_run(pilot)
            for key in keys:
                await pilot.press(key)

        return steps

    small, large = (80, 24), (160, 48)
    c1, c2 = frozen(), frozen()
    return [
        ("compose", lambda: make_app(), small, nothing),
        ("compose-bad-input", lambda: make_app(), small, bad_input),
        ("run-streaming", lambda: make_app(c1), small, midway(c1)),
        ("run-streaming-wide", lambda: make_app(c2), large, midway(c2)),
        ("step-mode-paused", lambda: make_app(stepping=True), small, paused),
        ("imagined-execution", lambda: make_app(), small, finished("3")),
        ("tests-tqc-verdicts", lambda: make_app(), small, finished("4", *["down"] * 9)),
        ("accepted", lambda: make_app(), small, finished()),
        ("reverted", lambda: make_app(always_wrong_client(), prompts=2, clarify=1), small, finished()),
        ("light-theme-wide", lambda: make_app(theme="qflow-light"), large, finished()),
    ]


async def main(filters: list[str]) -> int:
    made = []
    for name, build, size, steps in scenarios():
        if filters and not any(f in name for f in filters):
            continue
        made.append(await shoot(name, build(), size, steps))
        print(f"wrote {made[-1].relative_to(ROOT)}")
    if not made:
        print("no screenshot matches", " ".join(filters), file=sys.stderr)
        return 1
    return 0


def parse(argv: list[str]) -> argparse.Namespace:
    names = [name for name, *_ in scenarios()]
    parser = argparse.ArgumentParser(
        prog="screenshots/generate.py",
        description="Regenerate the SVG screenshots in screenshots/ from the real app.",
        epilog="pictures: " + ", ".join(names),
    )
    parser.add_argument("filters", nargs="*", metavar="NAME", help="only the pictures whose name contains NAME")
    parser.add_argument("--list", action="store_true", help="print the pictures' names and exit")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(names))
        raise SystemExit(0)
    return args


if __name__ == "__main__":
    args = parse(sys.argv[1:])
    with tempfile.TemporaryDirectory(prefix="qflow-shots-") as tmp:
        os.environ["QFLOW_CONFIG_DIR"] = str(Path(tmp) / "config")
        os.environ["QFLOW_DATA_DIR"] = str(Path(tmp) / "data")
        sys.exit(asyncio.run(main(args.filters)))
