"""The replay and session-browser screens, driven as a user drives them.

The central check: a scripted run watched live in the app, then replayed from
the session file it wrote, ends in the same screen state: the same RunView
state and, tab by tab, the same text on screen."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from qflow_tui.commands.demo import demo_session
from qflow_tui.core.llm.script import ScriptClient
from qflow_tui.core.pieces import SynthTests
from qflow_tui.core.session import read_session
from qflow_tui.data.demo import responder
from qflow_tui.ui.app import create_app
from qflow_tui.ui.screens.confirm import Confirm
from qflow_tui.ui.screens.path_prompt import PathPrompt
from qflow_tui.ui.screens.replay import ReplayScreen, StepChip, replay_steps
from qflow_tui.ui.screens.session_rows import NARROW_MODEL, narrow_model
from qflow_tui.ui.screens.sessions import SessionsScreen
from qflow_tui.ui.widgets.run_tabs import RUN_TABS
from qflow_tui.ui.widgets.run_view import RunView
from tests.sessions.support import InProcessSandbox, demo_config

SIZE = (120, 36)


def replay_app(path: Path, **kwargs):
    return create_app(demo_config(), replay_path=path, remember_theme=False, **kwargs)


async def settle(pilot) -> None:
    """Paint what is pending, finish animations, drop the toasts (they name files)."""
    await pilot.pause()
    for view in pilot.app.screen.query(RunView):
        view.flush()
    pilot.app.clear_notifications()
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def screen_text(app) -> list[str]:
    width, height = app.size
    console = Console(
        width=width, height=height, file=io.StringIO(), force_terminal=True, record=True, legacy_windows=False
    )
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text(styles=False).splitlines()


def view_text(app, view: RunView) -> list[str]:
    """The text inside the run view, without its status bar (the elapsed time
    of a live run is the wall clock; a replay's comes from the events)."""
    r = view.region
    lines = screen_text(app)[r.y : r.y + r.height - 1]
    return [line[r.x : r.x + r.width] for line in lines]


def state_of(view: RunView) -> str:
    def plain(value):
        if hasattr(value, "to_dict"):
            return value.to_dict()
        if hasattr(value, "__dict__"):
            return {k: plain(v) for k, v in vars(value).items()}
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, (list, tuple, set)):
            items = [plain(v) for v in value]
            return sorted(items, key=repr) if isinstance(value, set) else items
        return value

    return json.dumps(plain(view.state), sort_keys=True, default=repr)


async def watch_live_run(size=SIZE) -> tuple[Path, str, dict[str, list[str]]]:
    """Run the demo story live in the app; return its session file, the view's
    state and the text of every tab at the end."""
    app = create_app(
        demo_config(),
        client=ScriptClient.from_function(responder.respond, name="demo responder"),
        sandbox=InProcessSandbox(),
        problem_text=responder.STATEMENT,
        tests_text="\n".join(responder.VISIBLE_TESTS),
        clock=lambda: 0.0,
        remember_theme=False,
    )
    tabs: dict[str, list[str]] = {}
    async with app.run_test(size=size) as pilot:
        await pilot.press("ctrl+r")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await settle(pilot)
        screen = app.screen
        view = screen.query_one(RunView)
        assert view.state.done
        for tab in (t.id for t in RUN_TABS):
            view.action_show_tab(tab)
            await settle(pilot)
            tabs[tab] = view_text(app, view)
        return Path(screen.session_path), state_of(view), tabs


async def test_a_replay_ends_in_the_same_screen_state_as_the_live_run():
    session, live_state, live_tabs = await watch_live_run()
    # The replay screen has a step timeline and a status line the live screen
    # has not: two rows more give the run view the very same size.
    app = replay_app(session)
    async with app.run_test(size=(SIZE[0], SIZE[1] + 2)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReplayScreen) and screen.error is None
        view = screen.query_one(RunView)
        assert screen.position == len(screen.events)
        assert state_of(view) == live_state
        for tab in (t.id for t in RUN_TABS):
            view.action_show_tab(tab)
            await settle(pilot)
            assert view_text(app, view) == live_tabs[tab], tab


async def test_stepping_back_shows_each_pane_as_it_was_at_that_step():
    """Going back to a step shows exactly what folding the events up to it shows."""
    data = read_session(demo_session())
    steps = replay_steps(data.events)
    app = replay_app(demo_session())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        view = screen.query_one(RunView)
        at_end = state_of(view)
        await pilot.press("home")
        await settle(pilot)
        assert screen.position == 0 and not view.state.started
        seen = []
        for _ in steps:
            await pilot.press("right")
            await settle(pilot)
            seen.append((screen.current_step, screen.position))
        assert [p for _, p in seen] == [s.end for s in steps]
        assert state_of(view) == at_end
        # Back to the TQC step: the panes show that moment, not the end.
        tqc = next(s for s in steps if s.step == "test_quality_checker")
        while screen.current_step > tqc.number:
            await pilot.press("left")
        await settle(pilot)
        assert screen.position == tqc.end
        fresh = RunView()
        for e in data.events[: tqc.end]:
            fresh.state.apply(e)
        assert state_of(view) == state_of(fresh)
        assert view.state.finished is None and len(view.state.piece(SynthTests).tests) == 10
        # One event at a time too.
        await pilot.press("shift+left")
        assert screen.position == tqc.end - 1


def assert_checks_end_at_their_verdicts(events) -> None:
    """Each replay step that is a check ends after its verdicts and its decision,
    and the steps end in order (stepping forward never goes back)."""
    steps = replay_steps(events)
    assert [s.end for s in steps] == sorted({s.end for s in steps})
    checks = [s for s in steps if s.phase == "check"]
    assert checks
    for s in checks:
        stop = events[s.start]
        progression = stop.progression
        later_stop = next(
            (
                i
                for i in range(s.start + 1, len(events))
                if events[i].kind == "gate_stop" and events[i].progression == progression
            ),
            len(events),
        )
        own = [
            i
            for i in range(s.start, later_stop)
            if events[i].kind in ("imagined_check", "decision") and events[i].progression == progression
        ]
        # A check the run stopped (another progression was accepted) has no verdicts.
        assert own or any(e.kind == "step_finished" and e.outcome == "stopped" for e in events[s.start : s.end]), (
            s.title
        )
        assert not own or max(own) < s.end, f"step {s.number} ({s.title}) ends at {s.end} before its verdicts ({own})"


def test_a_replay_step_of_a_check_ends_at_its_verdicts(tmp_path):
    # The bundled demo (recorded before stops named their agent) and a fresh run.
    assert_checks_end_at_their_verdicts(read_session(demo_session()).events)
    import asyncio

    from tests.sessions.support import record_demo

    asyncio.run(record_demo(tmp_path))
    (fresh,) = tmp_path.glob("*.jsonl")
    assert_checks_end_at_their_verdicts(read_session(fresh).events)


async def test_the_first_quality_check_step_shows_its_verdicts_at_80x24():
    app = replay_app(demo_session())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        first_check = next(s for s in screen.steps if s.phase == "check")
        screen.go_to_step(first_check.number)
        await pilot.press("3")
        await settle(pilot)
        assert screen.current_step == first_check.number
        view = screen.query_one(RunView)
        text = "\n".join(view_text(app, view))
        assert "checking…" not in text
        assert "✗ fail" in text
        assert f"step {first_check.number}/" in "\n".join(screen_text(app))


async def test_jump_to_a_step_from_the_timeline_and_from_the_list():
    app = replay_app(demo_session())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        chips = list(screen.query(StepChip))
        assert [c.number for c in chips] == [s.number for s in screen.steps]
        # The bar shows the steps around the current one (the last, when a replay opens).
        await pilot.click(chips[-3])
        await settle(pilot)
        at = len(chips) - 3
        assert screen.current_step == at and screen.position == screen.steps[at].end
        await pilot.press("colon")
        await pilot.pause()
        await pilot.press("end", "enter")
        await settle(pilot)
        assert screen.current_step == len(screen.steps) - 1


async def test_play_instantly_and_at_adjustable_speed():
    app = replay_app(demo_session())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        speeds = []
        for key in ("plus", "plus", "minus", "minus", "minus", "minus", "minus"):
            await pilot.press(key)
            speeds.append(screen.speed)
        assert speeds == [2.0, 4.0, 2.0, 1.0, 0.5, 0.25, 0.25]
        await pilot.press("home", "space")
        assert screen.playing
        # It moves forward by itself, at its own pace.
        for _ in range(300):
            await pilot.pause(0.02)
            if screen.position > 3:
                break
        assert screen.position > 3
        await pilot.press("space")
        assert not screen.playing
        paused_at = screen.position
        await pilot.pause(0.1)
        assert screen.position == paused_at
        await pilot.press("i")
        assert screen.position == len(screen.events) and screen.query_one(RunView).state.done


async def test_play_to_the_end_stops_there():
    app = replay_app(demo_session())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        screen.go_to_step(len(screen.steps) - 2)
        for _ in range(7):
            await pilot.press("plus")
        await pilot.press("space")
        for _ in range(500):
            await pilot.pause(0.02)
            if not screen.playing:
                break
        assert not screen.playing and screen.position == len(screen.events)


def _cut(tmp_path: Path) -> Path:
    raw = demo_session().read_bytes()
    lines = raw.splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[:120]) + lines[120][:40])
    return cut


async def test_a_truncated_file_replays_its_prefix_with_a_visible_warning(tmp_path):
    app = replay_app(_cut(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        banner = screen.query_one("#replay-banner")
        assert banner.display and "-shown" in banner.classes
        assert "truncated last line" in str(banner.render())
        assert len(screen.events) == 119 and screen.position == 119


async def test_a_file_that_is_not_a_session_is_refused_on_screen(tmp_path):
    bad = tmp_path / "notes.jsonl"
    bad.write_text("hello\n")
    app = replay_app(bad)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        assert "not a qflow session" in screen.error
        assert "not a qflow session" in str(screen.query_one("#replay-banner").render())
        await pilot.press("space", "right", "colon")  # nothing to do, and no crash
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ReplayScreen)


# -- the session browser --------------------------------------------------------------------------


@pytest.fixture
def sessions_folder(tmp_path, monkeypatch):
    folder = tmp_path / "data" / "sessions"
    folder.mkdir(parents=True)
    monkeypatch.setenv("QFLOW_DATA_DIR", str(tmp_path / "data"))
    raw = demo_session().read_text()
    header, rest = raw.split("\n", 1)
    for n, (title, created) in enumerate(
        [
            ("MBPP 11: remove occurrences", "2026-01-02T10:00:00+0000"),
            ("HumanEval 0: close elements", "2026-01-03T09:30:00+0000"),
        ]
    ):
        h = json.loads(header)
        h.update(title=title, created=created)
        (folder / f"s{n}.jsonl").write_text(json.dumps(h) + "\n" + rest)
    (folder / "junk.jsonl").write_text("not a session\n")
    return folder


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_browser_at_80_columns_gives_the_problem_the_room(sessions_folder, size):
    """Narrow, the model column is short (its name without the provider, cut in
    the middle) and the outcome is shown without where it was accepted, so the
    titles that tell runs apart read whole (they were cut to 11 characters) and
    rows of two models still differ; nothing is cut without an ellipsis. Wide,
    all of it shows."""
    app = create_app(demo_config(), remember_theme=False)
    async with app.run_test(size=size) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = "\n".join(screen_text(app))
    if size == (80, 24):
        assert "HumanEval 0: close elements" in text and "MBPP 11: remove occurrences" in text, text
        assert re.search(r"accepted +\S+k", text) and "@" not in text, text
        # One model ran them all: said once above the table, no column for it.
        assert "model script/responder.py" in text and "respo…" not in text, text
    else:
        assert "accepted @ self_debug:1" in text and "responder.py" in text, text


async def test_the_browser_lists_searches_opens_exports_and_deletes(sessions_folder, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = create_app(demo_config(), remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        assert [s.title for s in screen.shown] == ["HumanEval 0: close elements", "MBPP 11: remove occurrences"]
        text = "\n".join(screen_text(app))
        for part in (
            "2026-01-03",
            "HumanEval 0: close elements",
            "accepted @ self_debug:1",
            "responder.py",
            "skipped junk.jsonl",
        ):
            assert part in text, part
        # Search as you type.
        await pilot.press("slash", *"occurrences")
        await pilot.pause()
        assert [s.title for s in screen.shown] == ["MBPP 11: remove occurrences"]
        await pilot.press("escape")
        await pilot.pause()
        assert len(screen.shown) == 2
        # The cursor stayed on the session found; export it as Markdown and as
        # JSONL, to the suggested paths (in the current folder).
        assert screen.selected.path.name == "s0.jsonl"
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, PathPrompt)
        await pilot.press("enter")
        await pilot.pause()
        assert (tmp_path / "s0.md").read_text().startswith("# MBPP 11: remove occurrences")
        await pilot.press("J")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert read_session(tmp_path / "s0-export.jsonl").warnings == []
        await pilot.press("up")
        # Delete: asks first; "n" keeps it, "y" deletes it.
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, Confirm)
        await pilot.press("n")
        await pilot.pause()
        assert (sessions_folder / "s1.jsonl").exists()
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert not (sessions_folder / "s1.jsonl").exists()
        assert [s.title for s in screen.shown] == ["MBPP 11: remove occurrences"]
        # Open: the replay of the selected session.
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen) and app.screen.path == sessions_folder / "s0.jsonl"
        await pilot.press("escape")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is screen


async def test_an_empty_browser_says_how_to_get_sessions(tmp_path, monkeypatch):
    monkeypatch.setenv("QFLOW_DATA_DIR", str(tmp_path))
    app = create_app(demo_config(), remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "No sessions yet" in "\n".join(screen_text(app))
        await pilot.press("D")  # the demo
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen) and app.screen.path == demo_session()


def _copies(folder: Path, count: int, *, title: str, day: int = 1, program: str | None = None) -> None:
    raw = demo_session().read_text()
    header, rest = raw.split("\n", 1)
    folder.mkdir(parents=True, exist_ok=True)
    if program is not None:
        lines = rest.rstrip("\n").split("\n")
        last = json.loads(lines[-1])
        last["final_program"] = program
        rest = "\n".join([*lines[:-1], json.dumps(last)]) + "\n"
    for n in range(count):
        h = json.loads(header)
        h.update(title=f"{title} {n}", created=f"2026-02-{day:02d}T10:{n // 60:02d}:{n % 60:02d}+0000")
        (folder / f"{title.replace(' ', '-')}-{n:03d}.jsonl").write_text(json.dumps(h) + "\n" + rest)


async def _open_browser(pilot, app) -> SessionsScreen:
    await pilot.press("f2")
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, SessionsScreen)
    return screen


async def test_escape_in_the_search_stays_in_the_browser(sessions_folder):
    app = create_app(demo_config(), remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_browser(pilot, app)
        await pilot.press("slash")
        assert screen.query_one("#sessions-search").has_focus
        await pilot.press("escape")
        await pilot.pause()
        # Still the browser, the table has the keys: "J" means export, not a letter in an editor.
        assert app.screen is screen and screen.query_one("#sessions-table").has_focus
        await pilot.press("J")
        await pilot.pause()
        assert isinstance(app.screen, PathPrompt)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape")  # from the table, with no search: leave
        await pilot.pause()
        assert not isinstance(app.screen, SessionsScreen)


async def test_a_benchmark_folder_is_one_group_row_until_opened(sessions_folder):
    _copies(sessions_folder / "bench" / "mbpp-run", 3, title="MBPP bench", day=5)
    app = create_app(demo_config(), remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_browser(pilot, app)
        assert [g.folder for g in screen.groups] == ["bench/mbpp-run"]
        assert len(screen.shown) == 2  # the top-level sessions
        text = "\n".join(screen_text(app))
        assert "mbpp-run/" in text and "3 sessions" in text and "3/3 accepted" in text
        screen.query_one("#sessions-table").move_cursor(row=0)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert [s.title for s in screen.shown] == ["MBPP bench 2", "MBPP bench 1", "MBPP bench 0"]
        assert screen.groups == []
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen) and app.screen.path.name == "MBPP-bench-002.jsonl"
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("escape")  # out of the folder
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is screen and len(screen.shown) == 2 and len(screen.groups) == 1


async def test_the_browser_pages_and_searches_programs(sessions_folder, monkeypatch):
    from qflow_tui.ui.screens import sessions as browser

    monkeypatch.setattr(browser, "PAGE_SIZE", 20)
    _copies(sessions_folder, 45, title="Copy", day=7)
    _copies(sessions_folder, 1, title="Other", day=8, program="def unique_thing(x):\n    return x ** 3 - 7\n")
    app = create_app(demo_config(), remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_browser(pilot, app)
        assert len(screen.shown) == 20 and screen.total == 48
        assert [s.number for s in screen.shown] == list(range(1, 21))
        await pilot.press(*["down"] * 12)  # near the end of the page
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(screen.shown) == 40, [(s.number, s.title) for s in screen.shown]
        await pilot.press("slash", *"return x ** 3 - 7")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert [s.title for s in screen.shown] == ["Other 0"] and screen.shown[0].number == 1


# -- snapshots ---------------------------------------------------------------------------------------


class TestReplaySnapshots:
    def test_demo_at_the_end(self, snap_compare):
        assert snap_compare(replay_app(demo_session()), terminal_size=SIZE, run_before=settle)

    def test_demo_at_the_first_quality_check_imagined_tab(self, snap_compare):
        async def run_before(pilot):
            await settle(pilot)
            pilot.app.screen.go_to_step(3)
            await pilot.press("3")
            await settle(pilot)

        assert snap_compare(replay_app(demo_session()), terminal_size=SIZE, run_before=run_before)

    def test_demo_tests_tab_after_the_tqc(self, snap_compare):
        async def run_before(pilot):
            await settle(pilot)
            pilot.app.screen.go_to_step(6)
            await pilot.press("4")
            await settle(pilot)

        assert snap_compare(replay_app(demo_session()), terminal_size=SIZE, run_before=run_before)

    def test_truncated_file_warning(self, snap_compare, tmp_path):
        assert snap_compare(replay_app(_cut(tmp_path)), terminal_size=SIZE, run_before=settle)


async def test_a_filter_that_cannot_match_says_so_and_keeps_the_rows(sessions_folder):
    app = create_app(demo_config(), remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_browser(pilot, app)
        await pilot.press("slash")
        screen.query_one("#sessions-search").value = "outcome:bogus"  # pasted
        await pilot.pause()
        await app.workers.wait_for_complete()
        where = str(screen.query_one("#sessions-where").render())
        assert "✗ outcome:bogus: no session has that outcome" in where
        assert len(screen.shown) == 2  # what was listed stays listed
        await pilot.press(*["backspace"] * 5, *"acc")  # a prefix of one outcome is that outcome
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "✗" not in str(screen.query_one("#sessions-where").render())
        assert len(screen.shown) == 2  # both are accepted runs
        await pilot.press(*["backspace"] * 3, *"rev")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.shown == [] and "No session matches" in str(screen.query_one("#sessions-empty").render())


async def test_at_80_columns_rows_of_two_models_differ(sessions_folder):
    """Rows of different models looked identical at 80 columns (no model column,
    nothing in its place): where the models differ, a short model column shows."""
    other = sessions_folder / "s1.jsonl"
    header, rest = other.read_text().split("\n", 1)
    h = json.loads(header)
    h["model"] = "anthropic/claude-sonnet-5-5"
    other.write_text(json.dumps(h) + "\n" + rest)
    app = create_app(demo_config(), remember_theme=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = "\n".join(screen_text(app))
    for model in ("anthropic/claude-sonnet-5-5", "script/x/responder.py"):
        assert narrow_model(model, NARROW_MODEL) in text, text
    assert "MBPP 11: remove" in text and "HumanEval 0: close" in text, text


def test_a_narrow_model_name_keeps_the_end_that_tells_models_apart():
    names = {narrow_model(m, NARROW_MODEL) for m in ("anthropic/claude-sonnet-5-5", "anthropic/claude-sonnet-4-5")}
    assert len(names) == 2 and all(len(n) == NARROW_MODEL for n in names)
    assert narrow_model("local/smollm2", NARROW_MODEL) == "smollm2"  # the provider gives way first
