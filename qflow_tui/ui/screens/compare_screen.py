"""The compare screen: two sessions side by side (a fork and its parent, two
workflows or two models on one problem). The steps each took with their
decisions in two aligned columns, the row where they part marked; the final
programs with a coloured diff; the Code Quality Checker's verdicts on the
visible tests; calls, tokens and time per agent. What is compared comes from
:func:`qflow_tui.core.steer.side_by_side.compare_sessions`, as ``qflow compare``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Header, Input, Static, TabbedContent, TabPane

from ...core.events import RunStarted
from ...core.safe_text import clean, one_line
from ...core.session import SessionData, SessionError, read_session
from ...core.session.display import model_words
from ...core.steer.side_by_side import Comparison, MarkRecord, SideRecord, compare_sessions, placed_trail
from ..access import qflow_app
from ..palette import Palette, palette
from ..replay_model import replay_steps
from ..state import run_shape
from ..widgets.footer import AppFooter
from ..widgets.lists import ListTable
from ..widgets.search_line import SearchLine, matches, search_key
from .base import AppScreen

_Cell = TypeVar("_Cell")
"""What a table's cells hold; an empty table's note does not look."""

#: The compare screen's tabs, in the order the number keys pick them.
COMPARE_TABS = (
    ("cmp-steps", "Steps"),
    ("cmp-programs", "Programs"),
    ("cmp-checks", "Visible tests"),
    ("cmp-agents", "Agents"),
)


def _short_agents(data: SessionData) -> dict[str, str]:
    """Each agent's short label from the run's first event (``CQC`` for the
    Code Quality Checker), so a step fits half a narrow terminal."""
    first = next((e for e in data.events if isinstance(e, RunStarted)), None)
    if first is None:
        return {}
    return {a.role: a.short for a in run_shape(first).agents}


def mark_words(mark: MarkRecord | None, agents: dict[str, str]) -> str:
    """One step mark in few words: ``p0 self_debug:1 CQC: decision accept``."""
    if mark is None:
        return ""
    prog = f"p{mark['progression']} " if mark["progression"] is not None else ""
    role = mark["agent"] or ""
    step = mark["step"] or "-"
    # A step named after an agent is said by its short label: ``PG`` for
    # program_generator's own work, ``PG›CQC`` for the check after it.
    owner = agents.get(step)
    if owner and role == step:
        where = owner
    elif owner:
        where = f"{owner}›{agents.get(role, role)}"
    else:
        where = f"{step} {agents.get(role, role)}".strip()
    what = "" if mark["what"] == "step" else f"{mark['what']} "
    return one_line(f"{prog}{where}: {what}{mark['value']}")


class CompareScreen(AppScreen[None]):
    """Two sessions side by side (see the module docstring)."""

    BINDINGS = [
        Binding("1", "show_tab('cmp-steps')", "Steps", show=False),
        Binding("2", "show_tab('cmp-programs')", "Programs", show=False),
        Binding("3", "show_tab('cmp-checks')", "Tests", show=False),
        Binding("4", "show_tab('cmp-agents')", "Agents", show=False),
        Binding("tab", "next_tab", "Next tab", key_display="1-4", tooltip="Steps, programs, visible tests, agents"),
        Binding("d", "divergence", "Divergence", tooltip="Put the cursor on the row where the runs part"),
        # Priority: the table's own Enter (select the row) would hide the key from the footer.
        Binding(
            "enter",
            "open_row",
            "Open",
            priority=True,
            tooltip="Replay the highlighted row's session; a step opens at that step (A's, or B's where only B has it)",
        ),
        search_key("Show only the rows (steps, visible tests, agents) that hold the words typed"),
        Binding("s", "swap", "Swap", tooltip="Swap A and B"),
        Binding(
            "a",
            "replay(0)",
            "Replay",
            key_display="a/b",
            tooltip="Replay session A (b: session B), at the highlighted step on the Steps tab",
        ),
        Binding("b", "replay(1)", "Replay B", show=False, tooltip="Replay session B, at the highlighted step"),
        Binding("escape", "back", "Back", tooltip="Leave the comparison (clears the search first)"),
        Binding("q", "quit_app", "Quit", show=False, tooltip="Quit qflow"),
    ]

    DEFAULT_CSS = """
    CompareScreen { layout: vertical; }
    CompareScreen #cmp-heads { height: auto; padding: 0 1; }
    CompareScreen #cmp-heads.-error { color: $error; }
    CompareScreen #cmp-tabs { height: 1fr; }
    CompareScreen #cmp-tabs > ContentSwitcher { height: 1fr; }
    CompareScreen TabPane { padding: 0; height: 1fr; }
    CompareScreen DataTable { height: 1fr; }
    CompareScreen #cmp-program-scroll { height: 1fr; }
    CompareScreen #cmp-program { width: auto; padding: 0 1; }
    """

    def __init__(self, a: str | Path, b: str | Path) -> None:
        super().__init__()
        self.paths = (Path(a), Path(b))
        self.result: Comparison | None = None
        self.error: str | None = None
        self.agents: dict[str, str] = {}
        self.titles = ("", "")
        self.models = ("", "")
        """Each side's model in words: a fork's live model, not ``replay/`` and its parent's path."""
        self.positions: tuple[list[int], list[int]] = ([], [])
        """For each row of the Steps table, per side, the event index it comes from."""
        self.replay_steps: tuple[list[Any], list[Any]] = ([], [])
        """Each side's steps as its replay cuts them (what a row opens at)."""
        self._load()

    def _load(self) -> None:

        try:
            a, b = read_session(self.paths[0]), read_session(self.paths[1])
        except SessionError as exc:
            self.error = one_line(str(exc))
            return
        except Exception as exc:  # what a file holds must never take the app down
            self.error = one_line(f"cannot compare these sessions ({type(exc).__name__}: {exc})")
            return
        self.result = compare_sessions(a, b)
        self.positions = tuple([at for _, at in placed_trail(d.events)] for d in (a, b))  # type: ignore[assignment]
        self.replay_steps = (replay_steps(a.events), replay_steps(b.events))
        self.agents = {**_short_agents(a), **_short_agents(b)}
        self.titles = (one_line(a.title), one_line(b.title))
        self.models = (model_words(a.header, since=False), model_words(b.header, since=False))
        self.sub_title = one_line(f"compare · {a.title}", 200)

    # -- layout -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="cmp-heads", markup=False)
        yield SearchLine("a step, a test, an agent", id="cmp-search")
        with TabbedContent(id="cmp-tabs"):
            with TabPane("Steps", id="cmp-steps"):
                yield ListTable(id="cmp-steps-table", cursor_type="row", zebra_stripes=True)
            with TabPane("Programs", id="cmp-programs"), VerticalScroll(id="cmp-program-scroll"):
                yield Static(id="cmp-program", markup=False)
            with TabPane("Visible tests", id="cmp-checks"):
                yield ListTable(id="cmp-checks-table", cursor_type="row")
            with TabPane("Agents", id="cmp-agents"):
                yield ListTable(id="cmp-agents-table", cursor_type="row")
        yield AppFooter()

    def on_mount(self) -> None:
        self.paint()
        if self.result is not None:
            self.query_one("#cmp-steps-table", DataTable).focus()
            self.action_divergence()

    def on_resize(self) -> None:
        self.paint()

    def paint(self) -> None:
        heads = self.query_one("#cmp-heads", Static)
        if self.error or self.result is None:
            heads.update(f"✖ {self.error}\nPress Escape to go back.")
            heads.add_class("-error")
            return
        self._paint_heads()
        self._paint_steps()
        self._paint_program()
        self._paint_checks()
        self._paint_agents()

    def _palette(self) -> Palette:

        return palette(self.app)

    def _side_line(self, name: str, side: SideRecord, title: str) -> Text:
        colours = self._palette()
        outcome = str(side["outcome"] or "unfinished")
        style = colours.success if outcome == "accepted" else colours.warning
        text = Text()
        text.append(f"{name} ", style="bold reverse")
        text.append(f" {outcome.upper()}", style=f"bold {style}")
        if side["accepted_at"]:
            text.append(f" @ {one_line(str(side['accepted_at']))}")
        parent = side.get("parent")
        if isinstance(parent, dict):
            parent = parent.get("session")
        if parent:
            text.append(one_line(f" · fork @ {side.get('forked_at')} of {Path(str(parent)).name}"), style="italic")
        calls = side["llm_calls"]
        text.append(f" · {calls} call{'' if calls == 1 else 's'} · {side['duration']:.1f}s · ")
        model = self.models[0 if name == "A" else 1]
        text.append(one_line(f"{side['workflow']} · {model}"), style=colours.muted)
        if not parent:
            text.append(f" · {Path(str(side['session'])).name}", style=colours.muted)
        return text

    def _paint_heads(self) -> None:
        assert self.result is not None
        r = self.result
        lines = [
            self._side_line("A", r["a"], self.titles[0]),
            self._side_line("B", r["b"], self.titles[1]),
        ]
        same = r["same_until"]
        if r["divergence"] is None:
            lines.append(Text(f"The two runs took the same {same} steps and decisions.", style="bold"))
        else:
            alike = {0: "", 1: "Row 1 is the same; "}.get(same, f"Rows 1-{same} are the same; ")
            said = f"{alike}the runs part at row {same + 1} (d goes there)."
            lines.append(Text(said[:1].upper() + said[1:], style="bold"))
        width = max(20, (self.size.width or 80) - 2)
        for line in lines:
            line.truncate(width, overflow="ellipsis")
        self.query_one("#cmp-heads", Static).update(Text("\n").join(lines))

    def _paint_steps(self) -> None:
        assert self.result is not None
        r = self.result
        colours = self._palette()
        table = self.query_one("#cmp-steps-table", DataTable)
        row = table.cursor_row
        table.clear(columns=True)
        room = max(20, (self.size.width or 80) - 5 - 2 * 3 - 2)
        half = room // 2
        table.add_column("#", key="n", width=4)
        table.add_column("A", key="a", width=half)
        table.add_column("B", key="b", width=room - half)
        steps_a, steps_b = r["a"]["steps"], r["b"]["steps"]
        split = r["same_until"] if r["divergence"] is not None else None
        for i in range(max(len(steps_a), len(steps_b))):
            left = mark_words(steps_a[i] if i < len(steps_a) else None, self.agents)
            right = mark_words(steps_b[i] if i < len(steps_b) else None, self.agents)
            if not matches(f"{i + 1} {left} {right}", self._search()):
                continue
            if split is not None and i == split:
                number = Text(f"▶{i + 1}", style=f"bold {colours.warning}", justify="right")
                cells = [Text(left, style=f"bold {colours.warning}"), Text(right, style=f"bold {colours.warning}")]
            elif split is not None and i > split:
                number = Text(str(i + 1), justify="right")
                cells = [Text(left, style=colours.accent), Text(right, style=colours.accent)]
            else:
                number = Text(str(i + 1), justify="right", style=colours.muted)
                cells = [Text(left), Text(right, style=colours.muted)]
            for cell in cells:
                cell.no_wrap, cell.overflow = True, "ellipsis"
            table.add_row(number, *cells, key=str(i))
        self._none_found(table, 3, at=1)
        if row:
            table.move_cursor(row=row)

    def _paint_program(self) -> None:
        assert self.result is not None
        r = self.result
        colours = self._palette()
        widget = self.query_one("#cmp-program", Static)
        if r["same_program"]:
            program = clean(r["a"]["final_program"] or "")
            title = Text("Both runs end with the same program:", style="bold")
            body: Any = Syntax(program or "(no program)", "python", theme=colours.syntax_theme, line_numbers=True)
        else:
            title = Text("The final programs differ (unified diff, A → B):", style="bold")
            body = Syntax(clean(r["program_diff"]).rstrip("\n"), "diff", theme=colours.syntax_theme)
        widget.update(Group(title, body))

    def _paint_checks(self) -> None:
        assert self.result is not None
        r = self.result
        colours = self._palette()
        table = self.query_one("#cmp-checks-table", DataTable)
        table.clear(columns=True)
        verdicts: dict[str, list[str]] = {}
        for n, side in enumerate((r["a"], r["b"])):
            for row in side.get("visible_checks") or []:
                verdicts.setdefault(str(row["test"]), ["", ""])[n] = str(row["verdict"])
        width = max(20, (self.size.width or 80) - 2 * 8 - 3 * 3 - 2)
        table.add_column("visible test", key="test", width=width)
        table.add_column("A", key="a", width=8)
        table.add_column("B", key="b", width=8)

        def verdict(value: str) -> Text:
            style = colours.success if value == "pass" else colours.error if value else colours.muted
            return Text(value or "—", style=f"bold {style}" if value else style)

        for test, (va, vb) in verdicts.items():
            if not matches(f"{test} {va} {vb}", self._search()):
                continue
            table.add_row(Text(one_line(clean(test)), no_wrap=True, overflow="ellipsis"), verdict(va), verdict(vb))
        if not verdicts:
            table.add_row(Text("(no check of the visible tests in either run)", style=colours.muted), "", "")
        self._none_found(table, 3)

    def _paint_agents(self) -> None:
        assert self.result is not None
        r = self.result
        table = self.query_one("#cmp-agents-table", DataTable)
        table.clear(columns=True)
        narrow = (self.size.width or 80) < 100
        # "A #": A's calls.
        table.add_column("agent", key="agent", width=10 if narrow else 24)
        for side in ("A", "B"):
            for what, width in (("#", 5), ("in", 7), ("out", 6), ("s", 6)):
                table.add_column(f"{side} {what}", key=f"{side}{what}", width=width)
        agents = sorted(set(r["a"]["agents"]) | set(r["b"]["agents"]))
        for agent in agents:
            if not matches(f"{agent} {self.agents.get(agent, '')}", self._search()):
                continue
            cells: list[Any] = [Text(one_line(self.agents.get(agent, agent) if narrow else agent), no_wrap=True)]
            for each in (r["a"], r["b"]):
                row = each["agents"].get(agent)
                if row is None:
                    cells += [Text("—", justify="right")] * 4
                    continue
                cells += [
                    Text(str(int(row["calls"])), justify="right"),
                    Text(str(int(row["input"])), justify="right"),
                    Text(str(int(row["output"])), justify="right"),
                    Text(f"{row['seconds']:.2f}", justify="right"),
                ]
            table.add_row(*cells, key=agent)
        self._none_found(table, 9)

    def _search(self) -> str:
        return self.query_one(SearchLine).search

    def _none_found(self, table: DataTable[_Cell], columns: int, at: int = 0) -> None:
        """Say so in ``table`` (in column ``at``) when the search left none of its rows."""
        if not table.row_count and self._search():
            said = Text(f"No row matches {self._search()!r}; Escape clears the search.", style=self._palette().muted)
            said.no_wrap, said.overflow = True, "ellipsis"
            cells: list[Any] = [""] * columns
            cells[at] = said
            table.add_row(*cells, key="none")

    # -- actions ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (self.result is None and action not in ("back", "quit_app", "replay"))

    def action_show_tab(self, tab: str) -> None:
        self.query_one("#cmp-tabs", TabbedContent).active = tab
        table = {"cmp-steps": "#cmp-steps-table", "cmp-checks": "#cmp-checks-table", "cmp-agents": "#cmp-agents-table"}
        if tab in table:
            self.query_one(table[tab], DataTable).focus()
        else:
            self.query_one("#cmp-program-scroll", VerticalScroll).focus()

    def action_next_tab(self) -> None:
        tabs = [t for t, _ in COMPARE_TABS]
        active = self.query_one("#cmp-tabs", TabbedContent).active
        self.action_show_tab(tabs[(tabs.index(active) + 1) % len(tabs)] if active in tabs else tabs[0])

    def action_divergence(self) -> None:
        if self.result is None:
            return
        self.action_show_tab("cmp-steps")
        table = self.query_one("#cmp-steps-table", DataTable)
        key = str(self.result["same_until"])
        if key not in table.rows and self._search():  # the search hides it: show every row again
            self.query_one(SearchLine).close(table, clear=True)
            self._search_changed()
        if key in table.rows:
            table.move_cursor(row=table.get_row_index(key))
        else:
            table.move_cursor(row=max(0, table.row_count - 1))

    def action_swap(self) -> None:
        self.paths = (self.paths[1], self.paths[0])
        self.result, self.error = None, None
        self._load()
        self.paint()

    def _active_table(self) -> ListTable | None:
        tables = {"cmp-steps": "#cmp-steps-table", "cmp-checks": "#cmp-checks-table", "cmp-agents": "#cmp-agents-table"}
        active = self.query_one("#cmp-tabs", TabbedContent).active
        return self.query_one(tables[active], ListTable) if active in tables else None

    def _highlighted(self) -> str | None:
        """The key of the active table's highlighted row (None: no table, no row)."""
        table = self._active_table()
        if table is None or not table.row_count or table.cursor_row < 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return None if key == "none" else key

    def _step_at(self, side: int) -> int | None:
        """The replay step of ``side`` the highlighted Steps row names (None: the
        Steps tab is not shown, or ``side`` has no such row)."""
        if self.query_one("#cmp-tabs", TabbedContent).active != "cmp-steps":
            return None
        key = self._highlighted()
        if key is None or not key.isdigit() or int(key) >= len(self.positions[side]):
            return None
        at = self.positions[side][int(key)]
        # The step whose stop came last before the row (steps overlap: progressions run side by side).
        started = [s for s in self.replay_steps[side] if s.start <= at]
        return max(started, key=lambda s: s.start).number if started else None

    def action_open_row(self) -> None:
        """Enter: the highlighted row's session. A Steps row opens at its step
        (A's; B's where only B has the row); a visible test or an agent opens
        the session that has it (A's when both do), at its end."""
        search = self.query_one(SearchLine)
        if search.has_focus:
            search.close(self._active_table() or self.query_one("#cmp-steps-table", DataTable), clear=False)
            return
        key = self._highlighted()
        if key is None or self.result is None:
            if self.query_one("#cmp-tabs", TabbedContent).active == "cmp-programs":
                self.action_replay(0)
            return
        active = self.query_one("#cmp-tabs", TabbedContent).active
        if active == "cmp-steps":
            side = 0 if int(key) < len(self.positions[0]) else 1
        elif active == "cmp-agents":
            side = 0 if key in self.result["a"]["agents"] else 1
        else:
            side = 0
        self.action_replay(side)

    def action_replay(self, side: int) -> None:
        qflow_app(self).open_replay(self.paths[side], step=self._step_at(side))

    def action_search(self) -> None:
        self.query_one(SearchLine).open()

    @on(Input.Changed, "#cmp-search")
    def _search_changed(self) -> None:
        if self.result is not None:
            self._paint_steps()
            self._paint_checks()
            self._paint_agents()

    def action_back(self) -> None:
        search = self.query_one(SearchLine)
        if search.close(self._active_table() or self.query_one("#cmp-steps-table", DataTable), clear=True):
            self._search_changed()
            return
        self.app.pop_screen()

    def action_quit_app(self) -> None:
        self.app.exit()
