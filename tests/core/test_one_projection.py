"""Every reader of a run reads one projection of it (core/run_state.py): the
app's state, ``qflow solve``'s progress and log, the bench's trace and a
session's summary and Markdown transcript give the same programs, verdicts,
decisions, returned node, tokens and failures for the same recording."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from qflow_tui.commands.solve import LiveProgress, OnceEach
from qflow_tui.core import events as ev
from qflow_tui.core.bench.bench_runner import _Trace
from qflow_tui.core.pieces import ImaginedChecks, SearchNodes, SynthTests
from qflow_tui.core.run_state import RunState
from qflow_tui.core.session import read_session
from qflow_tui.core.session.transcript import markdown_transcript
from qflow_tui.ui.state import RunState as AppState
from tests.ui import wf_streams

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "qflow_tui/data/demo/demo-session.jsonl"
LATE_FIX = ROOT / "tests/bench/data/finished-late-fix/sessions/humaneval-0.jsonl"


def _failing_session(folder: Path) -> Path:
    """A run whose every check fails alike: the mbpp11 script model knows nothing of HumanEval/0."""
    from qflow_tui.core.bench.datasets import load_benchmark_problem
    from qflow_tui.core.workflow_run import RunError, run_workflow
    from qflow_tui.core.workflows.values import load_config

    config = load_config(overrides={"model": "script/tests/scripts/mbpp11.py"})
    with pytest.raises(RunError) as failed:
        asyncio.run(run_workflow(load_benchmark_problem("humaneval/0"), config, session_dir=folder))
    assert failed.value.session
    return Path(failed.value.session)


def _session(which: str, tmp_path: Path) -> Path:
    if which == "demo":
        return DEMO
    if which == "late_fix":
        return LATE_FIX
    if which == "codetree":
        return wf_streams.write_session(tmp_path / "codetree.jsonl", wf_streams.codetree_stream())
    return _failing_session(tmp_path)


def _figures(state: RunState) -> dict[str, object]:
    t = state.total_tokens()
    return {
        "programs": [(c.step, c.progression, c.agent, c.program) for c in state.candidates],
        "checks": [(c.step, c.progression, c.accepted) for c in state.checks],
        "imagined": [(r.step, r.progression, r.test, r.verdict) for r in state.piece(ImaginedChecks).records.values()],
        "tqc": [(s.test, s.verdict) for s in state.piece(SynthTests).judged()],
        "decisions": [(d.step, d.progression, d.decision) for d in state.decisions],
        "returned_node": state.piece(SearchNodes).returned,
        "tokens": (t.calls, t.input, t.output),
        "failures": dict(state.failures),
        "stops": dict(state.stops),
    }


@pytest.mark.parametrize("which", ["demo", "late_fix", "codetree", "failing"])
def test_every_reader_of_a_recording_gives_the_same_figures(which, tmp_path):
    data = read_session(_session(which, tmp_path))
    assert data.events and not data.warnings

    app = AppState()
    log = OnceEach()
    progress = LiveProgress()
    trace = _Trace()
    said: list[str] = []
    for e in data.events:
        app.apply(e)
        said += log(e)
        progress(e)
        trace(e)
    ours = RunState()
    for e in data.events:
        ours.apply(e)
    figures = _figures(ours)
    assert figures["programs"] or ours.piece(SearchNodes).nodes, "a recording with no program proves nothing"

    # The app, the headless log and status line, and the bench read one projection.
    for reader in (app, log.state, progress.lines.state, trace.state):
        assert _figures(reader) == figures
    t = ours.total_tokens()
    calls, tokens_in, tokens_out = t.calls, t.input, t.output
    status = str(progress.live.renderable)
    assert f"{calls} calls  |  {tokens_in} in / {tokens_out} out" in status
    assert trace.tokens == tokens_in + tokens_out

    # The log says each failure once and counts the rest.
    failures = ours.failures
    again = sum(n - 1 for n in failures.values())
    assert any(f"({again} more failed for the same reason)" == line for line in said) == bool(again)

    # The recording's summary (``qflow replay --json``, the browser) and its transcript.
    summary = data.summary()
    assert (summary["llm_calls"], summary["stops"]) == (app.llm_calls, figures["stops"])
    total_in = sum(t["input"] for t in summary["tokens"].values())
    total_out = sum(t["output"] for t in summary["tokens"].values())
    assert (total_in, total_out) == (tokens_in, tokens_out)
    text = markdown_transcript(data)
    assert f"| Model calls | {app.llm_calls} ({tokens_in} tokens in, {tokens_out} out) |" in text
    assert text.count("\nProgram from `") == len(ours.candidates)
    assert text.count("**Decision (") == len(ours.decisions)
    assert len(re.findall(r"^- TQC #", text, re.M)) == sum(isinstance(e, ev.TQCVerdict) for e in data.events)
    if app.finished is not None:
        assert summary["outcome"] == app.finished.outcome
        assert f"**{app.finished.outcome.upper()}**" in text
    elif app.failed is not None:
        assert summary["outcome"] == "failed" and "## Run failed" in text
    if which == "codetree":
        assert figures["returned_node"] is not None
    if which == "failing":
        assert failures and again > 0
    if which in ("demo", "late_fix"):
        assert figures["checks"] or figures["decisions"]


def test_a_format_1_copy_of_a_recording_without_agents_or_plan_projects_the_same(tmp_path):
    """Session format 1 (one line per streamed chunk) from before run_started
    described the workflow: read back, upgraded and described, the same figures."""
    import json

    data = read_session(DEMO)
    lines = [{**data.header, "format_version": 1}]
    for seq, e in enumerate(data.events, start=1):
        line = e.to_dict() | {"seq": seq}  # one line per chunk, numbered in a row
        if isinstance(e, ev.RunStarted):
            for key in ("agents", "plan", "summary", "visible_tests", "progressions", "sampling"):
                line.pop(key, None)
        lines.append(line)
    old = tmp_path / "old.jsonl"
    old.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")

    again = read_session(old)
    assert not again.warnings and len(again.events) == len(data.events)
    first = again.events[0]
    assert isinstance(first, ev.RunStarted) and first.agents and first.plan
    projections = []
    for events in (data.events, again.events):
        state = AppState()
        for e in events:
            state.apply(e)
        projections.append((_figures(state), state.planned_stages(), [a.role for a in state.agents]))
    assert projections[0] == projections[1]
    assert again.summary() | {"session": None, "cost": None} == data.summary() | {"session": None, "cost": None}
