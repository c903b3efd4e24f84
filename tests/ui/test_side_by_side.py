"""v on the Program tab (issue 57): the diff against the first generated
program side by side, removed lines beside the lines that replaced them; v
again: back to one column."""

from __future__ import annotations

from ui_app import WIDE, build_app
from ui_steps import finish_run, start_run, wait_until
from wf_streams import screen_text

from qflow_tui.ui.palette import palette
from qflow_tui.ui.widgets.program_view import ProgramView, render_side_by_side


async def test_v_shows_the_diff_side_by_side_and_back() -> None:
    app = build_app()  # MBPP 11: the accepted program is not the first one
    async with app.run_test(size=WIDE) as pilot:
        await start_run(pilot)
        view = await finish_run(pilot)
        state = view.state
        assert state.finished is not None and state.finished.final_program != state.first_program(0)
        await pilot.press("5")
        await wait_until(pilot, lambda: isinstance(app.screen.focused, ProgramView), "the Program tab")
        assert "@@" in screen_text(app)  # one column: a unified diff
        await pilot.press("v")
        await pilot.pause()
        text = screen_text(app)
        assert "(side by side; v: one column)" in text and "@@" not in text
        first_line = next(line for line in text.splitlines() if "first program" in line and "this program" in line)
        assert first_line.index("first program") < first_line.index("this program")
        await pilot.press("v")
        await pilot.pause()
        assert "@@" in screen_text(app)


def test_a_changed_line_sits_beside_its_replacement() -> None:
    import io

    from rich.console import Console

    class FakeApp:
        theme_variables: dict[str, str] = {}
        current_theme = None

    colours = palette(FakeApp())  # type: ignore[arg-type]
    console = Console(width=60, record=True, file=io.StringIO())
    console.print(render_side_by_side("a = 1\nb = 2\nc = 3\n", "a = 1\nb = 20\nc = 3\nd = 4\n", colours))
    lines = [line.rstrip() for line in console.export_text().splitlines()]
    assert any("- b = 2" in line and "+ b = 20" in line for line in lines), lines
    assert any(line.strip() == "+ d = 4" for line in lines), lines
