"""Bench from the app: the compose screen's Bench key (and palette action) opens
a form; bad values are one line on it, nothing started; good ones start the
live bench screen, which runs the bench to its end with a script model."""

from __future__ import annotations

from pathlib import Path

from ui_app import SIZE
from ui_steps import at_rest, steady, wait_until

from qflow_tui.core.bench.bench_runner import default_bench_folder, read_results
from qflow_tui.core.config import RunConfig
from qflow_tui.ui.app import create_app
from qflow_tui.ui.screens.bench import BenchScreen
from qflow_tui.ui.screens.bench_form import BenchForm
from qflow_tui.ui.screens.compose import ComposeScreen
from qflow_tui.ui.widgets.bench_table import BenchTable

ROOT = Path(__file__).parents[2]
CANONICAL = f"script/{ROOT / 'bench' / 'canonical_model.py'}"


def form_app():
    # No client: the bench builds the model named in its form, as a user's would.
    return create_app(RunConfig(model=CANONICAL, workflow="zeroshot"), clock=lambda: 0.0, remember_theme=False)


async def open_bench_form(pilot) -> BenchForm:
    """Ctrl+B on the compose form, once it is ready: the bench form."""
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen) and app.screen.ready, "the form")
    await pilot.press("ctrl+b")
    await wait_until(pilot, lambda: isinstance(app.screen, BenchForm), "the bench form")
    assert isinstance(app.screen, BenchForm)
    return app.screen


async def fill(pilot, form: BenchForm, **fields: str) -> None:
    from textual.widgets import Input, Select

    for name, value in fields.items():
        widget = form.query_one(f"#bench-{name}")
        if isinstance(widget, Select):
            widget.value = value
        else:
            assert isinstance(widget, Input)
            widget.value = value
    await pilot.pause()


async def attempt(pilot, form: BenchForm) -> str:
    """Press Start; the form's one line once the form has answered."""
    from textual.widgets import Static

    form.preparing = None
    form.action_start()
    worker = form.preparing
    hint = form.query_one("#bench-error", Static)
    if worker is not None:
        await wait_until(pilot, lambda: worker.is_finished, "the form's answer")
        await wait_until(pilot, lambda: not str(hint.render()).startswith("Loading"), "the answer shown")
    return str(hint.render())


async def test_the_bench_form_refuses_bad_values_then_runs_a_bench_live(tmp_path):
    app = form_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_bench_form(pilot)
        # The folder defaults under the data folder, following the choices.
        out = form.query_one("#bench-out").value  # type: ignore[attr-defined]
        assert out == str(default_bench_folder("humaneval", "zeroshot", CANONICAL))
        await fill(pilot, form, dataset="mbpp")
        assert form.query_one("#bench-out").value == str(default_bench_folder("mbpp", "zeroshot", CANONICAL))  # type: ignore[attr-defined]
        await fill(pilot, form, dataset="humaneval")

        bad = [
            ({"concurrency": "many"}, "Problems at once must be a whole number, not 'many'"),
            ({"concurrency": "0"}, "Problems at once must be at least 1"),
            ({"concurrency": "2", "problems": "0"}, "Problems: give at least 1"),
            ({"problems": "humaneval/999"}, "humaneval/999"),
            ({"problems": "mbpp/11"}, "mbpp/11 is not a humaneval problem"),
            ({"problems": "0 1 2", "model": "nosuch/model"}, "unknown model 'nosuch/model'"),
            ({"model": "script/no/such/responder.py"}, "no/such/responder.py"),
            ({"model": CANONICAL, "out": str(tmp_path / "file")}, "cannot write the bench folder"),
        ]
        (tmp_path / "file").write_text("a file, not a folder")
        for values, expected in bad:
            await fill(pilot, form, **values)
            line = await attempt(pilot, form)
            assert expected in line, (values, line)
            assert line.startswith("✗") and "\n" not in line
            assert isinstance(app.screen, BenchForm)  # nothing started
        assert not (tmp_path / "file").is_dir()

        folder = tmp_path / "bench"
        await fill(pilot, form, problems="0 1, 2", out=str(folder))
        form.action_start()
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        screen = app.screen
        assert isinstance(screen, BenchScreen)
        await wait_until(pilot, lambda: screen.finished, "the bench to finish", limit=20000)
        await pilot.pause()
        rows = screen.query_one(BenchTable).rows_by_key
        assert list(rows) == ["humaneval/0", "humaneval/1", "humaneval/2"]
        assert {r.state for r in rows.values()} == {"done"}
        records = read_results(folder)
        assert sorted(r["id"] for r in records) == ["humaneval/0", "humaneval/1", "humaneval/2"]
        assert all(r["passed"] for r in records)  # the canonical solutions pass
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen), "back on the compose screen")


async def test_the_bench_is_a_palette_action_of_the_compose_screen():
    app = form_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen) and app.screen.ready, "the form")
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert "Bench" in commands
        await commands["Bench"].callback()
        await wait_until(pilot, lambda: isinstance(app.screen, BenchForm), "the bench form")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen), "the form closed")


async def test_the_convention_chosen_judges_the_bench_and_a_resume_keeps_it(tmp_path):
    """The form's convention is ``qflow bench --convention``: it goes into the
    bench's spec and report, and a folder judged under another is refused, in
    one line, as the command line refuses it."""
    import json

    folder = tmp_path / "bench"
    app = form_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_bench_form(pilot)
        assert form.query_one("#bench-convention").value == "completion"  # type: ignore[attr-defined]
        await fill(pilot, form, problems="humaneval/0", out=str(folder), convention="solution")
        form.action_start()
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        screen = app.screen
        await wait_until(pilot, lambda: screen.finished, "the bench to finish", limit=20000)
        assert json.loads((folder / "bench.json").read_text())["convention"] == "solution"
        assert "Convention: solution (the program alone" in (folder / "report.md").read_text()
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen), "back on the compose screen")

        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: isinstance(app.screen, BenchForm), "the bench form again")
        form = app.screen
        await fill(pilot, form, problems="humaneval/0", out=str(folder), convention="completion")
        line = await attempt(pilot, form)
        assert line.startswith("✗") and "another convention (convention: 'solution')" in line, line
        assert isinstance(app.screen, BenchForm)


def test_the_bench_form_snapshot(snap_compare):
    """Every field at 80x24, the convention beside the problems run at once."""
    app = create_app(
        RunConfig(model="script/bench/canonical_model.py", workflow="zeroshot"), clock=lambda: 0.0, remember_theme=False
    )

    async def run_before(pilot):
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen) and app.screen.ready, "the form")
        await at_rest(pilot)  # no text cursor behind the form
        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: isinstance(app.screen, BenchForm), "the bench form")
        # A folder that is the same on every machine (the default is under the data folder).
        await fill(pilot, app.screen, out="runs/humaneval-zeroshot")
        await steady(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_the_forms_max_cost_and_estimate(tmp_path):
    app = form_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_bench_form(pilot)
        for value, expected in (
            ("lots", "Max cost: US dollars, e.g. 5 or 0.50, not 'lots'"),
            ("0", "above 0"),
            ("inf", "above 0"),
            ("nan", "above 0"),
        ):
            await fill(pilot, form, **{"max-cost": value})
            line = await attempt(pilot, form)
            assert expected in line and line.startswith("✗"), line
        folder = tmp_path / "bench"
        await fill(pilot, form, **{"max-cost": "$2.50", "problems": "5", "out": str(folder)})
        form.action_estimate()
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        screen = app.screen
        assert screen.estimate == 3 and screen.runner is not None and screen.runner.max_cost == 2.5
        await wait_until(pilot, lambda: screen.finished, "the estimate", limit=20000)
        summary = str(screen.query_one("#bench-summary").render())
        assert "Estimate from 3 finished runs" in summary and "costs nothing" in summary
        assert len(read_results(folder)) == 3


async def test_a_script_model_that_knows_one_problem_asks_before_a_bench(tmp_path):
    """The demo responder plays MBPP 11 alone: a HumanEval bench with it asks
    first, saying how many problems will fail; Back keeps the form, Run anyway
    starts it."""
    from qflow_tui.ui.first_minute import SCRIPT_MODEL
    from qflow_tui.ui.screens.confirm import Confirm

    app = form_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_bench_form(pilot)
        await fill(pilot, form, dataset="humaneval", problems="0 1 2", model=SCRIPT_MODEL, out=str(tmp_path / "b"))
        form.action_start()
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm), "the question")
        text = " ".join(str(w.render()) for w in app.screen.query("Static, Label"))
        assert "only knows remove_Occ" in text and "3 of the bench's 3 problems will fail" in " ".join(text.split())
        app.screen.dismiss(False)
        await wait_until(pilot, lambda: isinstance(app.screen, BenchForm), "back on the form")
        hint = form.query_one("#bench-error")
        await wait_until(pilot, lambda: "knows only remove_Occ" in str(hint.render()), "the form's line")
        # Declined: nothing was made (no bench.json, no empty sessions folder).
        assert not (tmp_path / "b").exists()
        form.action_start()
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm), "the question again")
        app.screen.dismiss(True)
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen), "the bench screen")
        assert (tmp_path / "b" / "bench.json").is_file()
