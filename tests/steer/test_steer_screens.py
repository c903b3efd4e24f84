"""The app's side of forks and compare: the compare screen, the fork tree in
the session browser (marks, compare keys, parent links that survive a restart
and a reindex), driven as a user drives them, plus their snapshots."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from qflow_tui.core.config import RunConfig
from qflow_tui.core.session import SessionIndex
from qflow_tui.locations import sessions_dir
from qflow_tui.ui.app import create_app
from qflow_tui.ui.screens.compare_screen import CompareScreen
from qflow_tui.ui.screens.replay import ReplayScreen
from qflow_tui.ui.screens.sessions import SessionsScreen
from tests.steer.family import Family, make_family
from tests.ui.ui_steps import wait_until

SIZE = (80, 24)
WIDE = (160, 48)


@pytest.fixture
def family() -> Family:
    return make_family(sessions_dir())


def app(**kwargs):
    return create_app(RunConfig(model="script/tests/scripts/mbpp11.py"), remember_theme=False, **kwargs)


async def wait_for(pilot, condition, what: str) -> None:
    for _ in range(2000):
        if condition():
            return
        await pilot.pause()
    raise AssertionError(f"timed out waiting for {what}")


def cells(table: DataTable, column: int) -> list[str]:
    return [str(table.get_row_at(row)[column]) for row in range(table.row_count)]


async def open_browser(pilot) -> SessionsScreen:
    await pilot.press("f2")
    screen = pilot.app.screen
    assert isinstance(screen, SessionsScreen)
    await wait_for(pilot, lambda: screen.loaded, "the listing")
    await pilot.pause()
    return screen


# -- the compare screen -------------------------------------------------------------------------


async def test_the_compare_screen_shows_where_a_fork_parts_from_its_parent(family: Family) -> None:
    async with app(compare_paths=(family.parent, family.fork)).run_test(size=SIZE) as pilot:
        screen = pilot.app.screen
        assert isinstance(screen, CompareScreen) and screen.result is not None
        result = screen.result
        steps = screen.query_one("#cmp-steps-table", DataTable)
        a, b = cells(steps, 1), cells(steps, 2)
        split = result["same_until"]
        # The same up to the branch, then the fork's override, marked; the cursor is on it.
        assert a[:split] == b[:split] and a[split] != b[split]
        assert "steered verdict" in b[split] and "▶" in str(steps.get_row_at(split)[0])
        assert steps.cursor_row == split
        heads = str(screen.query_one("#cmp-heads", Static).render())
        assert "fork @ self_debug:1 of demo.jsonl" in heads
        # Issue 57: a fork's model is the live one after the branch, not
        # ``replay/`` and its parent's path (the recording it replays).
        assert screen.models[0].startswith("script/") and screen.models[1] == screen.models[0]
        assert f"Rows 1-{split} are the same; the runs part at row {split + 1} (d goes there)." in heads
        # The programs differ: a diff; the visible tests, per side; per agent figures.
        await pilot.press("2")
        program = str(screen.query_one("#cmp-program", Static).content.renderables[1].code)  # type: ignore[union-attr]
        assert program.startswith("--- A demo.jsonl\n+++ B fork-reject.jsonl")
        await pilot.press("3")
        checks = screen.query_one("#cmp-checks-table", DataTable)
        assert checks.row_count == 3 and cells(checks, 1) == ["pass"] * 3 and cells(checks, 2) == ["pass"] * 3
        await pilot.press("4")
        agents = screen.query_one("#cmp-agents-table", DataTable)
        # The fork asked the clarifier, the parent never did.
        clarifier = [r for r in range(agents.row_count) if str(agents.get_row_at(r)[0]) == "CL"]
        assert clarifier and str(agents.get_row_at(clarifier[0])[1]) == "—"
        # s swaps the sides; a and b replay them.
        await pilot.press("s")
        assert screen.paths == (family.fork, family.parent)
        await pilot.press("b")
        assert isinstance(pilot.app.screen, ReplayScreen) and pilot.app.screen.path == family.parent
        await pilot.press("escape")
        assert pilot.app.screen is screen
        # Under load the compare screen takes its focus back a few messages after
        # the pop: the next Escape is its own once it has.
        await wait_until(pilot, lambda: screen.focused is not None, "the compare screen's focus")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(pilot.app.screen, CompareScreen), "the compare screen to close")


async def test_the_compare_screen_says_what_is_wrong_with_a_file_and_stays_up(tmp_path: Path, family: Family) -> None:
    bad = tmp_path / "not-a-session.jsonl"
    bad.write_text("hello\n")
    async with app(compare_paths=(family.parent, bad)).run_test(size=SIZE) as pilot:
        screen = pilot.app.screen
        assert isinstance(screen, CompareScreen) and screen.result is None
        text = str(screen.query_one("#cmp-heads", Static).render())
        assert "not-a-session.jsonl" in text and "\n" in text and "Traceback" not in text
        await pilot.press("escape")


def test_qflow_compare_tui_opens_the_compare_screen(family: Family, monkeypatch: pytest.MonkeyPatch) -> None:
    from qflow_tui.commands import compare

    opened: dict[str, object] = {}

    class FakeApp:
        return_code = 0

        def run(self) -> None:
            opened["ran"] = True

    def fake_create_app(config, **kwargs):
        opened.update(kwargs)
        return FakeApp()

    monkeypatch.setattr("qflow_tui.ui.app.create_app", fake_create_app)
    code = compare.run(argparse.Namespace(a=str(family.parent), b=str(family.fork), json=False, tui=True))
    assert code == 0 and opened["ran"] and opened["compare_paths"] == (family.parent, family.fork)


# -- the fork tree in the browser ---------------------------------------------------------------


async def test_forks_show_under_their_parents_with_the_step_they_branched_at(family: Family) -> None:
    async with app().run_test(size=WIDE) as pilot:
        screen = await open_browser(pilot)
        assert [s.path.name for s in screen.sessions] == ["demo.jsonl", "fork-reject.jsonl", "fork-accept.jsonl"]
        assert [screen.depth[s.path] for s in screen.sessions] == [0, 1, 2]
        table = screen.query_one(DataTable)
        # Numbered in the order shown (forks are newer than their parents: by
        # time alone the rows read 3, 2, 1).
        assert cells(table, 0) == ["1", "2", "3"]
        titles, models = cells(table, 2), cells(table, 3)
        assert titles[1].startswith("└ MBPP 11") and titles[2].startswith("  └ MBPP 11")
        assert models[1:] == ["fork @self_debug:1", "fork @program_generator"]
        # The selected fork's parent link, from its header; p goes to that parent.
        table.move_cursor(row=2)
        await pilot.pause()
        link = str(screen.query_one("#sessions-parent", Static).render())
        assert link.startswith("⑂ fork of #2 at program_generator")
        await pilot.press("p")
        assert screen.selected is not None and screen.selected.path == family.fork
        await pilot.pause()
        assert str(screen.query_one("#sessions-parent", Static).render()).startswith("⑂ fork of #1 at self_debug:1")
        table.move_cursor(row=0)
        await pilot.pause()
        assert not screen.query_one("#sessions-parent", Static).has_class("-shown")


async def test_a_fork_whose_parent_is_filtered_out_or_deleted_still_shows_marked(family: Family) -> None:
    async with app().run_test(size=WIDE) as pilot:
        screen = await open_browser(pilot)
        # The forks' model is the parent's recording: the filter leaves the demo out.
        await pilot.press("slash", *"model:replay")
        await wait_for(pilot, lambda: len(screen.sessions) == 2, "the filtered listing")
        await pilot.pause()
        table = screen.query_one(DataTable)
        assert [s.path.name for s in screen.sessions] == ["fork-reject.jsonl", "fork-accept.jsonl"]
        assert cells(table, 3) == ["fork @self_debug:1 · parent not shown", "fork @program_generator"]
        assert cells(table, 2)[0].startswith("↳ ") and cells(table, 2)[1].startswith("└ ")
    family.parent.unlink()
    async with app().run_test(size=WIDE) as pilot:
        screen = await open_browser(pilot)
        assert [s.path.name for s in screen.sessions] == ["fork-reject.jsonl", "fork-accept.jsonl"]
        assert cells(screen.query_one(DataTable), 3)[0] == "fork @self_debug:1 · parent deleted"


async def test_parent_links_survive_a_restart_and_a_reindex(family: Family) -> None:
    async with app().run_test(size=WIDE) as pilot:
        first = [(s.path, s.parent, s.forked_at) for s in (await open_browser(pilot)).sessions]
    SessionIndex().rebuild(sessions_dir())
    # A new app over the same data folder: the links come from the files' headers via the index.
    async with app().run_test(size=WIDE) as pilot:
        screen = await open_browser(pilot)
        assert [(s.path, s.parent, s.forked_at) for s in screen.sessions] == first
        assert first[1][1:] == (str(family.parent), "self_debug:1")
        assert [screen.depth[s.path] for s in screen.sessions] == [0, 1, 2]


async def test_marking_two_sessions_and_c_compares_them_and_c_on_a_fork_compares_it_with_its_parent(
    family: Family,
) -> None:
    async with app().run_test(size=WIDE) as pilot:
        screen = await open_browser(pilot)
        table = screen.query_one(DataTable)
        # c on a fork: the fork against its parent.
        table.move_cursor(row=2)
        await pilot.press("c")
        assert isinstance(pilot.app.screen, CompareScreen)
        assert pilot.app.screen.paths == (family.fork, family.grandchild)
        await pilot.press("escape")
        await wait_for(pilot, lambda: pilot.app.screen is screen and screen.loaded, "the browser again")
        # space marks (the number column says so), c compares the marked two, first marked as A.
        table.move_cursor(row=2)
        await pilot.press("space")
        table.move_cursor(row=0)
        await pilot.press("space")
        assert screen.marked == [family.grandchild, family.parent]
        assert cells(table, 0)[0].startswith("●") and cells(table, 0)[2].startswith("●")
        await pilot.press("c")
        assert isinstance(pilot.app.screen, CompareScreen)
        assert pilot.app.screen.paths == (family.grandchild, family.parent)
        await pilot.press("escape")
        # c with nothing to compare says how to.
        await wait_for(pilot, lambda: pilot.app.screen is screen and screen.loaded, "the browser again")
        screen.marked = []
        table.move_cursor(row=0)
        await pilot.press("c")
        assert pilot.app.screen is screen


# -- snapshots ------------------------------------------------------------------------------------


async def _browser_at_rest(pilot) -> None:
    from tests.ui.ui_steps import steady

    screen = await open_browser(pilot)
    screen.query_one(DataTable).move_cursor(row=1)
    # The folder's path differs on every run.
    where = screen.query_one("#sessions-where", Static)
    where.update(str(where.render()).replace(str(screen.folder), "SESSIONS"))
    await steady(pilot)


class TestSteerSnapshots:
    def test_fork_tree_in_the_browser(self, snap_compare, family: Family) -> None:
        assert snap_compare(app(), terminal_size=SIZE, run_before=_browser_at_rest)

    def test_compare_screen(self, snap_compare, family: Family) -> None:
        from tests.ui.ui_steps import steady

        assert snap_compare(app(compare_paths=(family.parent, family.fork)), terminal_size=SIZE, run_before=steady)


async def test_at_80_columns_the_problem_has_the_room_and_a_fork_says_where_it_branched(family: Family) -> None:
    """At 80 columns the model and duration give way: every title was cut to
    its first dozen letters (`remove firs…`); a fork, whose title is its
    parent's, says first where it branched."""
    async with app().run_test(size=SIZE) as pilot:
        screen = await open_browser(pilot)
        table = screen.query_one(DataTable)
        assert [str(c.label) for c in table.columns.values()] == ["#", "date", "problem", "outcome", "tokens"]
        problem = table.columns[next(k for k in table.columns if k.value == "problem")]
        assert problem.width >= 36
        titles = cells(table, 2)
        assert titles[0].startswith("MBPP 11: remove the first and last")
        assert titles[1].startswith("└ fork @self_debug:1 · MBPP 11")
        assert titles[2].startswith("  └ fork @program_generator · MBPP")


def test_qflow_sessions_words_a_fork_as_the_browser_does(family: Family, capsys, monkeypatch) -> None:
    """`replay/demo.jsonl` (the recording a fork ran on) told a reader less than
    the browser's `fork @self_debug:1`: one wording in both. --json keeps the
    data: the model string as recorded, and parent and forked_at apart."""
    import json

    from qflow_tui.cli import main

    for columns in ("160", "80"):
        monkeypatch.setenv("COLUMNS", columns)
        assert main(["sessions"]) == 0
        out = capsys.readouterr().out
        lines = out.splitlines()
        assert "replay/" not in out
        assert max(len(line) for line in lines[1:-1]) <= int(columns)
        fork = next(line for line in lines if "fork @self_debug:1" in line)
        grandchild = next(line for line in lines if "fork @program_generator" in line)
        assert fork.split()[0] == "2" and grandchild.split()[0] == "3"
        if columns == "80":
            # No model column: the place comes first in the problem, which has the room.
            assert "└ fork @self_debug:1 · MBPP 11: remove the fi" in fork
            assert lines[1].split() == ["#", "date", "problem", "outcome", "tokens"]
    assert main(["sessions", "--json"]) == 0
    rows = {Path(s["path"]).name: s for s in json.loads(capsys.readouterr().out)["sessions"]}
    fork = rows["fork-reject.jsonl"]
    assert fork["model"].startswith("replay/") and fork["forked_at"] == "self_debug:1"
    assert fork["parent"] == str(family.parent)
