"""Fork chains from files nobody should trust: 1,500 sessions whose fork
parents form a loop, chains thousands deep. They are walked without recursion,
the loop broken at a stated place and named, in the sessions browser,
`qflow sessions` and `qflow compare`; nothing crashes or crawls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qflow_tui.core.session.family import MAX_GENERATIONS, fork_tree, lineage
from qflow_tui.locations import demo_session
from qflow_tui.ui.app import create_app
from qflow_tui.ui.screens.session_rows import MAX_INDENT
from qflow_tui.ui.screens.sessions import SessionsScreen
from tests.helpers import qflow
from tests.sessions.support import demo_config

LOOP = 1500


def write_family(folder: Path, n: int, parent_of: dict[int, int | None]) -> list[Path]:
    """``n`` sessions (a header each: enough to be listed) whose parents are ``parent_of``."""
    folder.mkdir(parents=True, exist_ok=True)
    header = json.loads(demo_session().read_text(encoding="utf-8").split("\n", 1)[0])
    names = [folder / f"s{i:05d}.jsonl" for i in range(n)]
    for i, path in enumerate(names):
        h = dict(header, title=f"session {i}")
        up = parent_of.get(i)
        if up is not None:
            h["parent"] = {"session": str(names[up]), "forked_at": "self_debug:1", "progression": 0}
        path.write_text(json.dumps(h) + "\n", encoding="utf-8")
    return names


@pytest.fixture
def loop(tmp_path: Path) -> list[Path]:
    return write_family(tmp_path / "data" / "sessions", LOOP, {i: (i + 1) % LOOP for i in range(LOOP)})


# -- the walks ---------------------------------------------------------------------------------


def test_a_loop_of_1500_is_broken_once_and_named():
    parent = {i: (i + 1) % LOOP for i in range(LOOP)}
    tree = fork_tree(list(range(LOOP)), str, lambda i: str(parent[i]))
    assert sorted(tree.order) == list(range(LOOP))
    (ring,) = tree.loops
    assert ring[0] == 0 and len(ring) == LOOP and ring[1] == 1  # broken at the first listed, in parent order
    assert tree.broken == {"0": ring}
    assert max(tree.depth.values()) == LOOP - 1


def test_deep_chains_trees_self_parents_and_tails_off_a_loop():
    n = 20_000  # far past Python's recursion limit
    tree = fork_tree(list(range(n)), str, lambda i: str(i - 1) if i else None)
    assert tree.order == list(range(n)) and tree.depth[str(n - 1)] == n - 1 and tree.loops == []
    # 0 <-> 1 loop with 2 a fork of 1 and 3 its own parent.
    parent = {0: "1", 1: "0", 2: "1", 3: "3"}
    tree = fork_tree([3, 2, 1, 0], str, lambda i: parent[i])
    assert tree.order == [3, 1, 2, 0] and [len(x) for x in tree.loops] == [2]
    assert tree.depth == {"3": 0, "1": 0, "0": 1, "2": 1}


def test_lineage_stops_at_a_loop_a_missing_parent_and_its_bound(tmp_path):
    names = write_family(tmp_path / "loop", 5, {i: (i + 1) % 5 for i in range(5)})

    def parent_of(path: Path) -> str | None:
        if not path.exists():
            raise OSError("gone")
        up = json.loads(path.read_text(encoding="utf-8").split("\n", 1)[0]).get("parent")
        return up["session"] if up else None

    line = lineage(names[0], parent_of)
    assert [p.name for p in line.loop] == [f"s{i:05d}.jsonl" for i in range(5)]
    assert "form a loop" in line.words()
    chain = write_family(tmp_path / "chain", 4, {1: 0, 2: 1, 3: 2})
    line = lineage(chain[3], parent_of)
    assert line.ancestors == chain[2::-1] and line.words() == "3 forks from the root s00000.jsonl"
    chain[1].unlink()
    line = lineage(chain[3], parent_of)
    assert line.missing == chain[1] and "s00001.jsonl is not readable" in line.words()
    endless = lineage(Path("/x/0"), lambda p: str(Path("/x") / str(int(p.name) + 1)))
    assert endless.cut and len(endless.ancestors) == MAX_GENERATIONS


# -- where users meet them ---------------------------------------------------------------------


def test_qflow_sessions_lists_the_loop_and_names_it(loop):
    folder = loop[0].parent
    out = qflow("sessions", "--dir", str(folder), env={"COLUMNS": "140"})
    assert out.returncode == 0, out.stderr
    assert "fork loop s" in out.stdout and "1496 more" in out.stdout and "1500 sessions" in out.stdout
    assert out.stdout.count("↻ ") == 1 and out.stdout.count("└") >= LOOP - 1
    data = json.loads(qflow("sessions", "--dir", str(folder), "--json").stdout)
    assert [len(x) for x in data["fork_loops"]] == [LOOP]


def test_qflow_compare_walks_both_chains(loop, tmp_path):
    out = qflow("compare", str(loop[0]), str(loop[7]))
    assert out.returncode == 0, out.stderr
    assert "its fork parents form a loop (s00000.jsonl -> s00001.jsonl" in out.stdout
    assert "B descends from A (1493 forks)" in out.stdout
    data = json.loads(qflow("compare", str(loop[0]), str(loop[1]), "--json").stdout)
    assert len(data["a"]["lineage"]["loop"]) == LOOP and data["relation"] == "B descends from A (1499 forks)"


async def test_the_browser_pages_through_the_loop(loop, monkeypatch):
    from qflow_tui.ui.screens import sessions as browser

    monkeypatch.setenv("QFLOW_DATA_DIR", str(loop[0].parent.parent))
    monkeypatch.setattr(browser, "PAGE_SIZE", 500)
    said: list[tuple[str, str]] = []
    notify = SessionsScreen.notify

    def recorded(self, message, *args, **kwargs):  # notices expire; what was said stays here
        said.append((kwargs.get("title", ""), message))
        return notify(self, message, *args, **kwargs)

    monkeypatch.setattr(SessionsScreen, "notify", recorded)
    app = create_app(demo_config(), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionsScreen) and screen.total == LOOP
        for _ in range(10):  # the pages, as the cursor reaching the end loads them
            if len(screen.sessions) >= screen.total:
                break
            query, recursive = screen._query(offset=len(screen.sessions))
            screen._loading_more = True
            screen.read_more(query, recursive)
            await app.workers.wait_for_complete()
            await pilot.pause()
        assert len(screen.sessions) == LOOP and app.return_code is None
        assert list(screen.loops.values()) == [LOOP]
        marks = [screen._fork_note(s)[0] for s in screen.sessions]
        assert marks.count("↻ ") == 1 and max(len(m) for m in marks) <= 2 * MAX_INDENT + 6
        loops = [message for title, message in said if title == "A loop of forks"]
        assert len(loops) == 1 and "1500 sessions" in loops[0]
