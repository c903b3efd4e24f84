"""Drives the app on a MapCoder run, for tests/examples/test_mapcoder.py: run in
a child process whose path has the installed plugin (the test process never
sees it), it prints what a person would see as one JSON object.

``python tests/examples/mapcoder_app.py free PROBLEM.json``: a run to its end.
``python tests/examples/mapcoder_app.py step PROBLEM.json``: step mode, one stop at a time."""

from __future__ import annotations

import asyncio
import io
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from textual.pilot import Pilot

from qflow_tui.core.config import RunConfig
from qflow_tui.core.pieces import Records
from qflow_tui.ui.app import create_app
from qflow_tui.ui.palette import palette
from qflow_tui.ui.screens.run_screen import RunScreen
from qflow_tui.ui.widgets.records_table import RecordsTable
from qflow_tui.ui.widgets.run_view import RunView
from qflow_tui.ui.widgets.timeline import render_timeline

ROOT = Path(__file__).resolve().parents[2]
MODEL = f"script/{ROOT / 'examples' / 'mapcoder' / 'qflow_mapcoder' / 'script_model.py'}"
SIZE = (80, 24)


def problem_texts(path: Path) -> tuple[str, str]:
    """The statement and the tests as a person pastes them into the compose form."""
    data = json.loads(path.read_text(encoding="utf-8"))
    tests = data["tests"]
    if tests and isinstance(tests[0], dict):
        pasted = "\n".join(f"Input\n{t['input']}Output\n{t['output']}" for t in tests)
    else:
        pasted = "\n".join(tests)
    return data["statement"], pasted


async def wait_until(pilot: Pilot, condition: Any, what: str, limit: int = 4000) -> None:
    for _ in range(limit):
        if condition():
            return
        await pilot.pause()
    raise AssertionError(f"timed out waiting for {what}")


def shown_at(screen: RunScreen) -> str | None:
    stop = screen.shown_stop
    if stop is None:
        return None
    return f"check:{stop.step}" if stop.check else stop.step


def screen_text(app: Any) -> str:
    """The text on the app's screen, as a user sees it."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, record=True)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text(styles=False)


async def the_plans_tab(pilot: Pilot, view: RunView) -> dict[str, Any]:
    """Open the Plans tab by its digit: what it lists and what the screen shows,
    then the timeline as the app renders it."""
    tabs = view.numbered()
    digit = str([tab for tab, _ in tabs].index("pane-plans") + 1)
    await pilot.press(digit)
    await pilot.pause()
    table = view.query_one("#records-plans", RecordsTable)
    shown = {
        "tabs": [title for _, title in tabs],
        "active": view.query_one("#run-tabs").active,
        "rows": [dict(r.fields) for r in table.shown],
        "screen": screen_text(pilot.app),
    }
    whole = io.StringIO()
    Console(file=whole, width=120, color_system=None).print(render_timeline(view.state, 0, palette(pilot.app)))
    return {**shown, "timeline": whole.getvalue()}


def seen(view: RunView) -> dict[str, Any]:
    """What the run's state holds, as the screen's widgets read it."""
    state = view.state
    rows = state.piece(Records).of("plan", 0)
    return {
        "decisions": [[d.step, d.decision, d.word] for d in state.decisions],
        "plans": [dict(r.fields) for r in rows],
        "panes": [p.id for p in state.panes],
    }


async def free(problem: Path) -> dict[str, Any]:
    statement, tests = problem_texts(problem)
    app = create_app(
        RunConfig(model=MODEL, workflow="mapcoder"), problem_text=statement, tests_text=tests, remember_theme=False
    )
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, RunScreen), "the run screen")
        await app.workers.wait_for_complete()
        await pilot.pause()
        view = app.screen.query_one(RunView)
        view.flush()
        await pilot.pause()
        result = view.state.result()
        shown = await the_plans_tab(pilot, view)
        return {"outcome": result.outcome, "accepted_at": result.accepted_at, **seen(view), **shown}


async def step(problem: Path) -> dict[str, Any]:
    """Step mode: the stops the run makes, in order, until the first check of
    the second plan's program; then it runs free to its end."""
    statement, tests = problem_texts(problem)
    app = create_app(
        RunConfig(model=MODEL, workflow="mapcoder"),
        problem_text=statement,
        tests_text=tests,
        remember_theme=False,
        stepping=True,
    )
    stops: list[str | None] = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, RunScreen), "the run screen")
        screen = app.screen
        assert isinstance(screen, RunScreen)
        view = screen.query_one(RunView)
        calls_at_first_stop = -1
        while not stops or stops[-1] != "check:coding:2":
            await wait_until(
                pilot, lambda: screen.waiting_at is not None and shown_at(screen) not in stops[-1:], "a stop"
            )
            stops.append(shown_at(screen))
            if len(stops) == 1:
                view.flush()
                calls_at_first_stop = view.state.llm_calls
            if len(stops) > 40:
                raise AssertionError(f"no stop before checking coding:2 in {stops}")
            if stops[-1] != "check:coding:2":
                await pilot.press("n")
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        view.flush()
        await pilot.pause()
        result = view.state.result()
        return {
            "stops": stops,
            "calls_at_first_stop": calls_at_first_stop,
            "outcome": result.outcome,
            "accepted_at": result.accepted_at,
            **seen(view),
        }


async def compose(problem: Path) -> dict[str, Any]:
    """The compose form with MapCoder chosen: its two settings' fields."""
    from textual.widgets import Label, Select

    statement, tests = problem_texts(problem)
    app = create_app(
        RunConfig(model=MODEL, workflow="mapcoder"), problem_text=statement, tests_text=tests, remember_theme=False
    )
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        fields = {}
        for key in ("exemplars", "debug_rounds"):
            box = app.screen.query_one(f"#setting-{key}")
            fields[key] = [str(box.query_one(Label).render()), box.query_one(f"#set-{key}", Select).value]
        return {"fields": fields}


def main() -> None:
    mode, problem = sys.argv[1], Path(sys.argv[2])
    run = {"free": free, "step": step, "compose": compose}[mode]
    print(json.dumps(asyncio.run(run(problem))))


if __name__ == "__main__":
    main()
