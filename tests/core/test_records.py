"""A workflow's own records, panes and decision words (issue 54): the record
event and its checks, the piece that folds it, the session round trip, the
spec's decision words and the headless log's lines."""

from __future__ import annotations

import dataclasses
import math

import pytest

from qflow_tui.commands.solve import OnceEach
from qflow_tui.core import events as ev
from qflow_tui.core.config import RunConfig
from qflow_tui.core.pieces import Records
from qflow_tui.core.plugins import PluginRefused
from qflow_tui.core.run_state import RunState
from qflow_tui.core.session.reader import read_session
from qflow_tui.core.session.writer import SessionWriter
from qflow_tui.core.workflows import WORKFLOWS, Column, Pane, checked_spec

PANES = (
    Pane("plans", "Plans", record="plan", columns=(Column("plan", "#"), "confidence", "step")),
    Pane("recalled", "Recalled", record="recalled"),
)


def _spec(**changes: object):
    base = WORKFLOWS["zeroshot"]
    fields = {"name": "mapcoderish", "panes": PANES, "decision_words": {"next plan": "continue", "solved": "accept"}}
    fields.update(changes)
    return dataclasses.replace(base, **fields)


def _started(**extra: object) -> ev.RunStarted:
    return ev.RunStarted(
        workflow="mapcoderish",
        model="m",
        config={},
        problem={},
        agents=[{"role": "planner", "label": "Planner", "short": "PL"}],
        plan=[{"step": "planning", "label": "planning", "agents": ["planner"]}],
        tabs=[],
        panes=[p.to_dict() for p in PANES],
        stage_words={"debugging": "debug round"},
        **extra,  # type: ignore[arg-type]
    )


def _plan(n: int, confidence: object, progression: int | None = 0, key: str = "") -> ev.Record:
    return ev.Record(
        step="planning",
        agent="planner",
        progression=progression,
        record="plan",
        key=key,
        fields={"plan": n, "confidence": confidence, "approach": "two pointers"},  # type: ignore[dict-item]
    )


@pytest.mark.parametrize(
    ("record", "fields", "said"),
    [
        ("plan", {"steps": ["a", "b"]}, "field 'steps' is a list; give str, int, float, bool or None"),
        ("plan", {"nested": {"a": 1}}, "field 'nested' is a dict"),
        ("plan", {"score": math.nan}, "field 'score' is nan, which JSON cannot hold"),
        ("plan", {"Bad Name": 1}, "the field name 'Bad Name' is not a word"),
        ("Plan!", {}, "the record kind 'Plan!' is not a word"),
    ],
)
def test_a_record_that_is_not_a_flat_row_of_json_scalars_is_one_clear_error(record, fields, said):
    with pytest.raises(ValueError) as exc:
        ev.Record(record=record, fields=fields)
    assert said in str(exc.value) and "\n" not in str(exc.value)


def test_records_fold_by_kind_keyed_ones_replace_and_each_progression_sees_its_own():
    state = RunState()
    for e in [
        _started(),
        _plan(1, 40, key="1"),
        _plan(2, 85, key="2"),
        _plan(1, 60, key="1"),  # plan 1's confidence updated: its row, in its place
        _plan(1, 10, progression=1, key="1"),
        ev.Record(record="recalled", fields={"problem": "two sum"}),  # run-wide
        _plan(3, 5),  # no key: a row of its own, always
        _plan(3, 5),
    ]:
        state.apply(e)
    records = state.piece(Records)
    assert [(r.value("plan"), r.value("confidence")) for r in records.of("plan", 0)] == [
        (1, 60),
        (2, 85),
        (3, 5),
        (3, 5),
    ]
    assert [r.value("confidence") for r in records.of("plan", 1)] == [10]
    assert [r.value("problem") for r in records.of("recalled", 1)] == ["two sum"]
    assert records.of("plan", 0)[0].value("step") == "planning"  # the event's own
    assert records.kinds() == ["plan", "recalled"]
    assert [p.id for p in state.panes] == ["plans", "recalled"]
    assert state.panes[0].table_columns[0].heading == "#"


def test_records_and_panes_survive_a_session_and_replay_the_same(tmp_path):
    path = tmp_path / "s.jsonl"
    events: list[ev.Event] = [_started(), _plan(1, 40, key="1"), _plan(1, 70, key="1")]
    events.append(ev.Record(record="recalled", progression=0, fields={"problem": "[bold]x[/] \x1b[31mred", "k": 2}))
    with SessionWriter(path, workflow="mapcoderish", model="m", config={}, problem={}, compact=False) as w:
        for seq, e in enumerate(events, 1):
            e.seq = seq
            w(e)
    data = read_session(path)
    live, replayed = RunState(), RunState()
    for e in events:
        live.apply(e)
    for e in data.events:
        replayed.apply(e)
    assert replayed.piece(Records).rows == live.piece(Records).rows
    assert [p.to_dict() for p in replayed.panes] == [p.to_dict() for p in PANES]
    assert replayed.piece(Records).of("plan", 0)[0].value("confidence") == 70


def test_a_workflows_own_decision_word_maps_onto_the_cores_and_is_said():
    spec = _spec()
    d = spec.decision("next plan", "3 rounds failed", step="debugging:3", agent="debugger", progression=0)
    assert (d.decision, d.word, d.said) == ("continue", "next plan", "next plan")
    assert spec.decision("accept", step="x").said == "accept"
    with pytest.raises(ValueError, match="'give up' is not a decision word of its own"):
        spec.decision("give up", step="x")
    log = OnceEach()
    log(_started())
    assert log(d) == ["[p0] debugging:3: NEXT PLAN - 3 rounds failed"]
    state = RunState()
    state.apply(_started())
    state.apply(d)
    cell = state.cells[("debugging:3", 0)]
    assert (cell.decision, cell.word) == ("continue", "next plan")
    assert state.step_label("debugging:3") == "debug round 3"  # the run's stage words


def test_the_headless_log_prints_a_record_line_with_its_panes_columns():
    log = OnceEach()
    log(_started())
    assert log(_plan(2, 85)) == ["[p0] planning plan: plan=2 confidence=85 step=planning"]
    # A kind no pane declares: every field; text on one line, no control sequence.
    line = log(ev.Record(record="note", fields={"text": "a\nb \x1b[2Jc", "ok": True}))
    assert line == ["note: text=a b c ok=yes"]


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"panes": (Pane("Plans!", "Plans", "plan"),)}, "its pane 'Plans!' is not a word"),
        ({"panes": (Pane("p", "P", "plan"), Pane("p", "Q", "plan"))}, "two of its panes have the same id"),
        ({"panes": (Pane("p", " ", "plan"),)}, "has no title"),
        ({"panes": (Pane("p", "P", "plan", widget="not a path"),)}, "not module:Class"),
        ({"panes": (Pane("p", "P", "plan", columns=("a b",)),)}, "has a column 'a b', not a word"),
        ({"decision_words": {"next plan": "skip"}}, "decision_words\\['next plan'\\] is 'skip'"),
        ({"decision_words": {"x" * 30: "accept"}}, "is not 1-24 letters"),
        ({"decision_words": {"accept": "revert"}}, "is the core's, mapped onto another"),
    ],
)
def test_a_plugins_bad_pane_or_decision_word_is_refused_in_one_line(changes, said):
    with pytest.raises(PluginRefused, match=said):
        checked_spec(_spec(**changes))


def test_a_plugins_good_panes_and_words_are_taken():
    spec = checked_spec(_spec())
    assert spec.panes == PANES and spec.decision_words == {"next plan": "continue", "solved": "accept"}
    described = spec.described(RunConfig())
    assert described["panes"][0]["columns"][0] == {"field": "plan", "title": "#", "width": 0}


def test_the_pieces_never_import_the_run_state_not_even_for_type_checkers():
    # Issue 52: run_state imports the pieces; a piece reads the run through
    # RunReading (pieces/base.py), so no circle hides behind TYPE_CHECKING.
    import ast
    from pathlib import Path

    import qflow_tui.core.pieces as pieces

    found = []
    for path in Path(pieces.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("run_state"):
                found.append(path.name)
    assert not found, found


def test_a_sessions_markdown_and_html_say_its_records_and_its_own_decision_words(tmp_path):
    from qflow_tui.core.htmlpage.session_page import render_session_page
    from qflow_tui.core.session.transcript import markdown_transcript

    path = tmp_path / "s.jsonl"
    events: list[ev.Event] = [
        _started(),
        _plan(2, 85),
        _spec().decision("next plan", "plan 2 failed", step="debugging:3", agent="debugger", progression=0),
    ]
    with SessionWriter(path, workflow="mapcoderish", model="m", config={}, problem={}, compact=False) as w:
        for seq, e in enumerate(events, 1):
            e.seq = seq
            w(e)
    text = markdown_transcript(read_session(path))
    assert "plan: plan=2 confidence=85 approach=two pointers" in text
    assert "NEXT PLAN" in text and "CONTINUE" not in text
    page = render_session_page(read_session(path))
    assert "(next plan)" in page
