"""The app's ways in read a problem as `qflow solve` does (core/resolve.py), at
80x24: `qflow --problem page.txt` opens a judge's page as a stdin/stdout
problem with its samples, the Load field takes benchmark ids (a shipped
plugin dataset's too), and a page pasted with no test is recognised at Ctrl+R;
F9 is on show in the 80-column footer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_footer import footer_line
from ui_app import SIZE, build_app
from ui_steps import wait_until

from qflow_tui.commands.app import problem_texts
from qflow_tui.core.problem import Problem
from qflow_tui.ui.screens.compose import ComposeScreen

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "tests" / "data" / "judge" / "page.txt"
TINYSET = ROOT / "tests" / "data" / "plugin" / "qflow-tinyset"
SAMPLES = [("1 2\n", "3\n"), ("10 -4\n", "6\n")]


async def _form(pilot: Any) -> ComposeScreen:
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, ComposeScreen)
    return screen


async def _load(pilot: Any, screen: ComposeScreen, spec: str) -> None:
    await pilot.press("ctrl+o")
    screen.query_one("#load").value = spec
    await pilot.press("enter")
    await pilot.pause()


async def test_qflow_problem_page_opens_a_stdin_stdout_problem_with_its_samples():
    statement, tests, entry = problem_texts(str(PAGE), None)  # what `qflow --problem page.txt` gives the app
    app = build_app(example=False, problem_text=statement, tests_text=tests, entry_point=entry)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _form(pilot)
        assert screen.query_one("#kind").value == "io"
        problem = screen.read_problem()
        assert [(t.input, t.output) for t in problem.tests] == SAMPLES
        assert "Sample" not in problem.statement and "Print A + B." in problem.statement
        assert "f9 Samples" in footer_line(app)


async def test_the_load_field_takes_benchmark_ids():
    app = build_app(example=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _form(pilot)
        await _load(pilot, screen, "humaneval/12")
        assert not screen.query_one("#compose-error").has_class("-visible")
        assert screen.query_one("#entry-point").value == "longest"
        assert "longest(" in screen.query_one("#tests").text
        await _load(pilot, screen, str(PAGE))
        assert screen.query_one("#kind").value == "io"
        assert [(t.input, t.output) for t in screen.read_problem().tests] == SAMPLES


async def test_a_page_pasted_without_tests_is_recognised_at_run():
    app = build_app(example=False)
    started: list[Problem] = []
    app.open_run = lambda problem, *a, **k: started.append(problem)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        screen = await _form(pilot)
        screen.query_one("#statement").load_text(PAGE.read_text(encoding="utf-8"))
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: bool(started), "the run to start")
        assert started[0].is_io and [(t.input, t.output) for t in started[0].tests] == SAMPLES
        # The form shows what ran: the samples in Tests, the kind stdin/stdout.
        assert screen.query_one("#kind").value == "io" and "Sample Input" not in screen.query_one("#statement").text


async def test_a_pasted_page_whose_samples_do_not_read_names_f9_and_stdin_stdout():
    app = build_app(example=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _form(pilot)
        screen.query_one("#statement").load_text("Print a + b.\n\nSample Input 1\n1 2\n")
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, ComposeScreen)
        text = str(screen.query_one("#compose-error").render())
        assert "F9" in text and "stdin/stdout" in text and "no Output block" in text


async def test_the_load_field_takes_a_shipped_plugin_datasets_id(tinyset: None):
    app = build_app(example=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _form(pilot)
        await _load(pilot, screen, "tinyset/leap")
        error = screen.query_one("#compose-error")
        assert not error.has_class("-visible"), error.render()
        problem = screen.read_problem()
        assert problem.is_io and [(t.input, t.output) for t in problem.tests] == [
            ("2000\n", "yes\n"),
            ("1900\n", "no\n"),
        ]
