"""A workflow's own panes, numbered tabs and words on screen (issue 54; issue
57's help and absent-tab lines): a session whose workflow declares panes
replays them as tables, even where the plugin is not installed; the digits
number the tabs a run has, and the help lists exactly those."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from ui_app import SIZE
from wf_streams import PROBLEM, Stream, agentcoder_stream, screen_text, write_session

from qflow_tui.core import events as ev
from qflow_tui.core.workflows.base import Column, Pane
from qflow_tui.ui.app import create_app
from qflow_tui.ui.palette import palette
from qflow_tui.ui.screens.keys import keys_of
from qflow_tui.ui.widgets.records_table import RecordsTable
from qflow_tui.ui.widgets.run_tabs import pane_widget
from qflow_tui.ui.widgets.run_view import RunView, no_tab_reason
from qflow_tui.ui.widgets.timeline import render_timeline
from tests.sessions.support import demo_config

PANES = (
    Pane("plans", "Plans", record="plan", columns=(Column("plan", "#"), Column("confidence", "conf %"), "approach")),
    Pane("recalled", "Recalled", record="recalled", empty="Nothing recalled."),
)


def plugin_stream() -> list[ev.Event]:
    """A run of a workflow this build does not know, with two panes of its own,
    its own stage and decision words, and records a model wrote."""
    s = Stream()
    s(
        ev.RunStarted(
            workflow="mapcoderish",
            model="script",
            config={},
            problem=PROBLEM,
            agents=[{"role": "planner", "label": "Planner", "short": "plan"}],
            plan=[{"step": "planning", "label": "plan", "agents": ["planner"]}],
            tabs=[],
            panes=[p.to_dict() for p in PANES],
            stage_words={"debugging": "debug round"},
            decided=["planner"],
        )
    )
    s(ev.StepStarted(step="planning", agent="planner", progression=0))
    for n, conf in ((1, 40), (2, 85)):
        s(
            ev.Record(
                step="planning",
                agent="planner",
                progression=0,
                record="plan",
                key=str(n),
                fields={"plan": n, "confidence": conf, "approach": f"[bold red]approach {n}[/]"},
            )
        )
    s(ev.StepFinished(step="planning", agent="planner", progression=0))
    s(ev.StepStarted(step="debugging:1", agent="planner", progression=0))
    s(ev.StepFinished(step="debugging:1", agent="planner", progression=0, outcome="rejected"))
    s(
        ev.Decision(
            step="debugging:1", agent="planner", progression=0, decision="continue", word="next plan", reason="plan 2"
        )
    )
    s(ev.RunFinished(final_program="x", outcome="rejected", accepted_at=None))
    return s.events


async def test_a_sessions_own_panes_replay_as_tables_numbered_after_the_built_in_tabs(tmp_path: Path):
    path = write_session(tmp_path / "plugin.jsonl", plugin_stream())
    app = create_app(demo_config(), replay_path=path, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        view = app.screen.query_one(RunView)
        assert view.numbered() == [
            ("tab-timeline", "Timeline"),
            ("tab-agents", "Agents"),
            ("tab-program", "Program"),
            ("pane-plans", "Plans"),
            ("pane-recalled", "Recalled"),
        ]
        # Back to before the run's first event and forward again: the same tabs, once each.
        app.screen.seek(0)
        view.flush()
        app.screen.seek(len(app.screen.events))
        view.flush()
        await pilot.pause()
        await pilot.press("4")
        await pilot.pause()
        assert view.query_one("#run-tabs").active == "pane-plans"
        assert len(view.query("#pane-plans")) == 1
        table = view.query_one("#records-plans", RecordsTable)
        assert [r.value("confidence") for r in table.shown] == [40, 85]
        text = screen_text(app)
        assert "Plans" in text.splitlines()[2]  # the tab row
        assert "conf %" in text and "85" in text
        assert "[bold red]approach 2[/]" in text  # a model's text is never markup
        # A record arriving as a live run's do: the shown pane repaints, the keyed row in its place.
        view.apply(
            ev.Record(
                seq=900, step="planning", progression=0, record="plan", key="1", fields={"plan": 1, "confidence": 99}
            )
        )
        view.flush()
        await pilot.pause()
        assert [r.value("confidence") for r in table.shown] == [99, 85]
        await pilot.press("5")
        await pilot.pause()
        assert "Nothing recalled." in screen_text(app)
        await pilot.press("9")
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert any("This run has 5 tabs: 1 Timeline, 2 Agents, 3 Program, 4 Plans, 5 Recalled." in m for m in said)
        await pilot.press("1")
        await pilot.pause()
        text = screen_text(app)
        assert "debug round 1" in text  # the run's stage words name its timeline's row
        assert "next plan" in text  # its own decision word, whole in its cell
        whole = io.StringIO()
        Console(file=whole, width=120, color_system=None).print(render_timeline(view.state, 0, palette(app)))
        assert "debug round 1: next plan  plan 2" in whole.getvalue()  # the decisions, in its words


async def test_the_digits_number_the_tabs_a_run_has_and_the_help_lists_those(tmp_path: Path):
    # AgentCoder has no Imagined tab: 3 is its Tests tab, 4 its Program; no 5 or 6.
    path = write_session(tmp_path / "agentcoder.jsonl", agentcoder_stream())
    app = create_app(demo_config(), replay_path=path, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        view = app.screen.query_one(RunView)
        await pilot.press("3")
        await pilot.pause()
        assert view.query_one("#run-tabs").active == "tab-tests"
        await pilot.press("4")
        await pilot.pause()
        assert view.query_one("#run-tabs").active == "tab-program"
        rows = [(r.keys, r.what) for _group, group in keys_of(app.screen) for r in group]
        digits = [(k, w) for k, w in rows if k.isdigit()]
        assert digits == [("1", "Timeline tab"), ("2", "Agents tab"), ("3", "Tests tab"), ("4", "Program tab")]


def test_a_missing_tab_says_the_setting_that_would_have_it():
    # A QualityFlow run whose checker is not imagined: not "its workflow does not use one".
    said = no_tab_reason("qualityflow", {"checker": "python"}, "imagined")
    assert said == "its checker is python; the tab comes with checker=imagined"
    assert no_tab_reason("agentcoder", {}, "imagined") == "its workflow does not use one"
    assert no_tab_reason("not-installed", {}, "tree") == "its workflow does not use one"


class PlanChart(RecordsTable):
    """A plugin's own widget for its pane (here the table, to keep it short)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(Pane("plans", "Plans", record="plan"), **kwargs)  # type: ignore[arg-type]


def test_a_panes_own_widget_is_made_and_one_that_cannot_be_is_the_table_with_a_reason():
    own = Pane("plans", "Plans", record="plan", widget=f"{__name__}:PlanChart")
    widget, why = pane_widget(own)
    assert type(widget) is PlanChart and widget.id == "records-plans" and why == ""
    missing = Pane("plans", "Plans", record="plan", widget="no_such_module_here:Chart")
    widget, why = pane_widget(missing)
    assert type(widget) is RecordsTable and widget.pane == missing
    assert why.startswith("The Plans pane's own widget (no_such_module_here:Chart) could not be made")
    assert "ModuleNotFoundError" in why and why.endswith("it shows as a table.")
    not_a_widget = Pane("plans", "Plans", record="plan", widget="os.path:join")
    widget, why = pane_widget(not_a_widget)
    assert type(widget) is RecordsTable and "not a widget with update_from" in why
